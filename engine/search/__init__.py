"""Structure search (NNC's CONFIG > Structure Search), Qt-free; docs/structure-search.md §1.

- :mod:`~engine.search.mutations`: NNC's mutation rules (docs/nnc-behaviour.md §9.2), graph edits in
  :mod:`~engine.search.edit`, new property values in :mod:`~engine.search.values`
- :mod:`~engine.search.candidate`: a mutated copy that infers, validates and keeps the task
- :mod:`~engine.search.study`: the Optuna study (SQL storage shared by workers), settings
- :mod:`~engine.search.worker`: ask an attempt, build it, train and evaluate it, tell
- :mod:`~engine.search.model`: "Network Feature + Gaussian Process"
- :mod:`~engine.search.session`: a whole search (``neurocanvas search``); results table and plot
  in :mod:`~engine.search.results`
"""
