"""The network editor (EDIT tab): canvas items, scene, view, palette and side panes.

The scene mirrors one :class:`engine.graph.network.Network`: it subscribes to the project's
events and never changes its items on its own; user gestures become command objects pushed on
the document's undo stack (docs/architecture.md §5.2, §5.3).
"""
