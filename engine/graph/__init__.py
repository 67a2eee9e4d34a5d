"""Project model (Qt-free), units, shape inference, costs and validation.

The model lives in :mod:`engine.graph.project` (see its docstring for the API; networks, layers
and links are in :mod:`engine.graph.network`), its events in
:mod:`engine.graph.events`, settings sections in :mod:`engine.graph.config` and undoable edit
commands in :mod:`engine.graph.commands`.
"""
