"""Plain-Python model events: the GUI and incremental shape inference subscribe here.

The model (:mod:`engine.graph.project`) emits one frozen event object per change, after the
change is made. Subscribers receive the event and read the model for anything else they need::

    unsubscribe = project.events.subscribe(on_event)                 # every event
    project.events.subscribe(on_prop, kinds=("property_changed",))   # only some kinds

Every event has a ``kind`` string (``layer_added``, ``layer_removed``, ``layer_renamed``,
``property_changed``, ``layer_moved``, ``link_added``, ``link_removed``, ``network_added``,
``network_removed``, ``network_renamed``, ``section_changed``, ``item_inserted``,
``item_removed``, ``description_changed``). Network events carry the network's name as it is
when the event is emitted. Layers and links are immutable values, so events hold them directly.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from engine.graph.project import Layer, Link, Network

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Event:
    """Base of all model events."""

    kind: ClassVar[str] = "event"


@dataclass(frozen=True)
class LayerAdded(Event):
    kind: ClassVar[str] = "layer_added"
    network: str
    layer: Layer
    index: int


@dataclass(frozen=True)
class LayerRemoved(Event):
    """Emitted after the layer's links were removed (each with its own ``LinkRemoved``)."""

    kind: ClassVar[str] = "layer_removed"
    network: str
    layer: Layer
    index: int


@dataclass(frozen=True)
class LayerRenamed(Event):
    """Links that named ``old`` now name ``new``; no link events are emitted for that."""

    kind: ClassVar[str] = "layer_renamed"
    network: str
    old: str
    new: str
    layer: Layer


@dataclass(frozen=True)
class PropertyChanged(Event):
    """``old``/``new`` are raw strings; ``None`` means absent (the catalogue default applies)."""

    kind: ClassVar[str] = "property_changed"
    network: str
    layer: str
    key: str
    old: str | None
    new: str | None


@dataclass(frozen=True)
class LayerMoved(Event):
    kind: ClassVar[str] = "layer_moved"
    network: str
    layer: str
    old: tuple[float, float]
    new: tuple[float, float]


@dataclass(frozen=True)
class LinkAdded(Event):
    kind: ClassVar[str] = "link_added"
    network: str
    link: Link
    index: int


@dataclass(frozen=True)
class LinkRemoved(Event):
    kind: ClassVar[str] = "link_removed"
    network: str
    link: Link
    index: int


@dataclass(frozen=True)
class NetworkAdded(Event):
    kind: ClassVar[str] = "network_added"
    network: str
    index: int
    obj: Network


@dataclass(frozen=True)
class NetworkRemoved(Event):
    kind: ClassVar[str] = "network_removed"
    network: str
    index: int
    obj: Network


@dataclass(frozen=True)
class NetworkRenamed(Event):
    kind: ClassVar[str] = "network_renamed"
    old: str
    new: str


@dataclass(frozen=True)
class SectionChanged(Event):
    """A config section was replaced. ``where`` is a section path (see ``Project.section``)."""

    kind: ClassVar[str] = "section_changed"
    where: str | tuple[str, int]
    old: Any
    new: Any


@dataclass(frozen=True)
class ItemInserted(Event):
    """An item was inserted into a collection (``datasets``, ``optimizers``, ...)."""

    kind: ClassVar[str] = "item_inserted"
    collection: str
    index: int
    item: Any


@dataclass(frozen=True)
class ItemRemoved(Event):
    kind: ClassVar[str] = "item_removed"
    collection: str
    index: int
    item: Any


@dataclass(frozen=True)
class DescriptionChanged(Event):
    kind: ClassVar[str] = "description_changed"
    old: str
    new: str


Callback = Callable[[Event], None]


class Emitter:
    """A tiny observer: ``subscribe`` returns a function that unsubscribes.

    A subscriber that raises does not stop the others or undo the change: the model is already
    consistent when events go out. The error is logged and re-raised after every subscriber ran,
    so tests still see it.
    """

    def __init__(self) -> None:
        self._subs: list[tuple[Callback, frozenset[str] | None]] = []

    def subscribe(
        self, callback: Callback, kinds: Iterable[str] | None = None
    ) -> Callable[[], None]:
        entry = (callback, None if kinds is None else frozenset(kinds))
        self._subs.append(entry)

        def unsubscribe() -> None:
            if entry in self._subs:
                self._subs.remove(entry)

        return unsubscribe

    def emit(self, event: Event) -> None:
        error: Exception | None = None
        for callback, kinds in list(self._subs):
            if kinds is not None and event.kind not in kinds:
                continue
            try:
                callback(event)
            except Exception as exc:  # one broken view must not starve the others
                _log.exception("subscriber %r failed on %s", callback, event.kind)
                error = error or exc
        if error is not None:
            raise error
