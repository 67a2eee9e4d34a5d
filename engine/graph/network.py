"""Networks: ordered layers with unique names and ordered links (see :mod:`engine.graph.project`).

``Layer`` and ``Link`` are frozen values; ``Network`` owns every change to them and emits one
event per change. The API is documented in :mod:`engine.graph.project`, which re-exports it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from engine.core.messages import QT_TRANSLATE_NOOP
from engine.graph import events as ev
from engine.layers import find_spec

# Properties NNC computes and its editor never writes (docs/formats.md §1.4).
_COMPUTED = frozenset({"Input", "Output", "IsParam"})


class ModelError(ValueError):
    """An edit or a loaded structure that the model cannot hold (the message names the place)."""


@dataclass(frozen=True)
class Layer:
    name: str
    type: str
    properties: dict[str, str] = field(default_factory=dict)
    position: tuple[float, float] = (0, 0)
    size: tuple[float, float] = (240, 48)
    id: int | None = None
    extra: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Link:
    source: str
    destination: str
    dest_pin: int = 0
    source_pin: int = 0
    id: int | None = None
    extra: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class _Views:
    layers: tuple[Layer, ...]
    links: tuple[Link, ...]
    index: dict[str, int]
    into: dict[str, tuple[Link, ...]]
    out: dict[str, tuple[Link, ...]]


class Network:
    """One network: ordered layers with unique names and ordered links between them."""

    def __init__(
        self,
        name: str,
        layers: Iterable[Layer] = (),
        links: Iterable[Link] = (),
        extra: dict[str, str] | None = None,
    ) -> None:
        self._name = name
        self._layers: dict[str, Layer] = {}
        self._links: list[Link] = []
        self._layer_ids: set[int] = set()
        self._link_ids: set[int] = set()
        # the largest ID of each set, kept while it stays in it (None: recount), so adding N
        # layers does not take N^2 steps
        self._top: dict[str, int | None] = {"layer": -1, "link": -1}
        self._cache: _Views | None = None
        self.extra: dict[str, str] = dict(extra or {})
        self._emitter: ev.Emitter = ev.Emitter()
        for layer in layers:
            self._insert_layer(layer, None)
        for link in links:
            self._insert_link(link, None)

    def __repr__(self) -> str:
        return f"Network({self._name!r}, {len(self._layers)} layers, {len(self._links)} links)"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Network):
            return NotImplemented
        return (
            self._name == other._name
            and self.layers == other.layers
            and self._links == other._links
            and self.extra == other.extra
        )

    __hash__ = None  # type: ignore[assignment]  # mutable

    # -- reading ---------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @property
    def events(self) -> ev.Emitter:
        return self._emitter

    # Read views are built once per state (every change drops them), so shape inference can
    # ask for them per layer without rebuilding them.
    def _views(self) -> _Views:
        if self._cache is None:
            into: dict[str, list[Link]] = {}
            out: dict[str, list[Link]] = {}
            for link in self._links:
                into.setdefault(link.destination, []).append(link)
                out.setdefault(link.source, []).append(link)
            self._cache = _Views(
                layers=tuple(self._layers.values()),
                links=tuple(self._links),
                index={name: i for i, name in enumerate(self._layers)},
                into={k: tuple(v) for k, v in into.items()},
                out={k: tuple(v) for k, v in out.items()},
            )
        return self._cache

    @property
    def layers(self) -> tuple[Layer, ...]:
        return self._views().layers

    @property
    def layer_names(self) -> tuple[str, ...]:
        return tuple(self._layers)

    @property
    def links(self) -> tuple[Link, ...]:
        return self._views().links

    def has_layer(self, name: str) -> bool:
        return name in self._layers

    def layer(self, name: str) -> Layer:
        try:
            return self._layers[name]
        except KeyError:
            raise ModelError(
                QT_TRANSLATE_NOOP("Problems", 'network "{name}": no layer "{layer}"').format(
                    name=self._name, layer=name
                )
            ) from None

    def index_of(self, name: str) -> int:
        self.layer(name)
        return self._views().index[name]

    def inputs_of(self, name: str) -> tuple[Link, ...]:
        """Links into ``name`` in link order (pin 0 inputs keep Concatenate order)."""
        return self._views().into.get(name, ())

    def outputs_of(self, name: str) -> tuple[Link, ...]:
        """Links out of ``name`` in link order."""
        return self._views().out.get(name, ())

    def link_index(self, link: Link) -> int:
        for i, existing in enumerate(self._links):
            if existing == link:
                return i
        raise ModelError(
            QT_TRANSLATE_NOOP(
                "Problems", 'network "{name}": no link {source} -> {destination} (pin {dest_pin})'
            ).format(
                name=self._name,
                source=link.source,
                destination=link.destination,
                dest_pin=link.dest_pin,
            )
        )

    def unique_name(self, base: str) -> str:
        """``base`` if free, else NNC's ``base_2``, ``base_3``, ..."""
        if base not in self._layers:
            return base
        k = 2
        while f"{base}_{k}" in self._layers:
            k += 1
        return f"{base}_{k}"

    def new_layer(
        self, type_: str, position: tuple[float, float] = (0, 0), name: str | None = None
    ) -> Layer:
        """A layer of ``type_`` with a free name and the catalogue's default properties.

        The layer is not added (push ``AddLayer`` for that). Properties the editor does not
        write (computed ``Input``/``Output``/``Cost*``/``IsParam``) are left out; an unknown
        type gets no properties.
        """

        spec = find_spec(type_)
        props: dict[str, str] = {}
        if spec is not None:
            type_ = spec.type
            for prop in spec.properties:
                computed = not prop.editable and prop.default.startswith("*")
                if prop.name in _COMPUTED or prop.name.startswith("Cost") or computed:
                    continue
                props[prop.name] = prop.default
        props.pop("Name", None)
        return Layer(self.unique_name(name or type_), type_, props, position=position)

    def next_layer_id(self) -> int:
        return self._top_id("layer", self._layer_ids) + 1

    def next_link_id(self) -> int:
        return self._top_id("link", self._link_ids) + 1

    def _top_id(self, kind: str, ids: set[int]) -> int:
        top = self._top[kind]
        if top is None:
            top = self._top[kind] = max(ids, default=-1)
        return top

    def _id_added(self, kind: str, value: int) -> None:
        top = self._top[kind]
        if top is not None and value > top:
            self._top[kind] = value

    def _id_removed(self, kind: str, value: int | None) -> None:
        if value is not None and value == self._top[kind]:
            self._top[kind] = None

    # -- edits (each emits one event) ------------------------------------------------------
    def add_layer(self, layer: Layer, index: int | None = None) -> Layer:
        """Insert ``layer`` (at ``index``, default last); returns it with its ID set."""
        count = len(self._layers)
        layer = self._insert_layer(layer, index)
        at = count if index is None or index >= count else self.index_of(layer.name)
        self._emit(ev.LayerAdded(self._name, layer, at))  # (no view rebuilt per layer added)
        return layer

    def remove_layer(self, name: str) -> tuple[Layer, int, list[tuple[int, Link]]]:
        """Remove a layer and its links; returns ``(layer, index, [(link index, link), ...])``.

        The link list is in ascending index order, ready for re-insertion by undo.
        """
        layer = self.layer(name)
        index = self.index_of(name)
        removed = [(i, k) for i, k in enumerate(self._links) if name in (k.source, k.destination)]
        for i, link in reversed(removed):
            del self._links[i]
            self._link_ids.discard(link.id)
            self._id_removed("link", link.id)
            self._emit(ev.LinkRemoved(self._name, link, i))
        del self._layers[name]
        self._layer_ids.discard(layer.id)
        self._id_removed("layer", layer.id)
        self._emit(ev.LayerRemoved(self._name, layer, index))
        return layer, index, removed

    def rename_layer(self, old: str, new: str) -> None:
        layer = self.layer(old)
        if new == old:
            return
        check_name(new, f'network "{self._name}", layer "{old}": new name')
        if new in self._layers:
            raise ModelError(
                QT_TRANSLATE_NOOP(
                    "Problems", 'network "{name}": a layer named "{new}" already exists'
                ).format(name=self._name, new=new)
            )
        renamed = replace(layer, name=new)
        self._layers = {(new if k == old else k): (renamed if k == old else v)
                        for k, v in self._layers.items()}  # fmt: skip
        self._links = [_rename_link(k, old, new) for k in self._links]
        self._emit(ev.LayerRenamed(self._name, old, new, renamed))

    def set_property(self, layer_name: str, key: str, value: str | None) -> str | None:
        """Set a raw property string (``None`` removes it); returns the previous value."""
        layer = self.layer(layer_name)
        if key == "Name":
            raise ModelError(
                QT_TRANSLATE_NOOP(
                    "Problems",
                    'network "{name}", layer "{layer_name}": Name is changed by renaming',
                ).format(name=self._name, layer_name=layer_name)
            )
        if value is not None:
            check_value(value, f'network "{self._name}", layer "{layer_name}", property {key}')
        old = layer.properties.get(key)
        if old == value:
            return old
        props = dict(layer.properties)
        if value is None:
            del props[key]
        else:
            props[key] = value
        self._layers[layer_name] = replace(layer, properties=props)
        self._emit(ev.PropertyChanged(self._name, layer_name, key, old, value))
        return old

    def move_layer(self, layer_name: str, position: tuple[float, float]) -> tuple[float, float]:
        """Move a layer (file coordinates); returns the previous position."""
        layer = self.layer(layer_name)
        old = layer.position
        position = (position[0], position[1])
        if old == position:
            return old
        self._layers[layer_name] = replace(layer, position=position)
        self._emit(ev.LayerMoved(self._name, layer_name, old, position))
        return old

    def connect(self, link: Link, index: int | None = None) -> Link:
        """Add a link (at ``index``, default last); returns it with its ID set."""
        count = len(self._links)
        link = self._insert_link(link, index)
        at = count if index is None or index >= count else self.link_index(link)
        self._emit(ev.LinkAdded(self._name, link, at))  # (no scan of the links per link added)
        return link

    def disconnect(self, link: Link | int) -> tuple[Link, int]:
        """Remove a link (given as value or index); returns ``(link, index)``."""
        if isinstance(link, int):
            if not 0 <= link < len(self._links):
                raise ModelError(
                    QT_TRANSLATE_NOOP("Problems", 'network "{name}": no link #{link}').format(
                        name=self._name, link=link
                    )
                )
            index = link
        else:
            index = self.link_index(link)
        removed = self._links.pop(index)
        self._link_ids.discard(removed.id)
        self._id_removed("link", removed.id)
        self._emit(ev.LinkRemoved(self._name, removed, index))
        return removed, index

    # -- internals -------------------------------------------------------------------------
    def _emit(self, event: ev.Event) -> None:
        self._cache = None
        self._emitter.emit(event)

    def _insert_layer(self, layer: Layer, index: int | None) -> Layer:
        where = f'network "{self._name}"'
        if not isinstance(layer, Layer):
            raise ModelError(
                QT_TRANSLATE_NOOP(
                    "Problems", "{where}: expected a Layer. Received: {layer}"
                ).format(where=where, layer=repr(layer))
            )
        check_name(layer.name, f"{where}, layer name")
        if layer.name in self._layers:
            raise ModelError(
                QT_TRANSLATE_NOOP("Problems", '{where}: duplicate layer name "{name}"').format(
                    where=where, name=layer.name
                )
            )
        if "Name" in layer.properties:
            raise ModelError(
                QT_TRANSLATE_NOOP(
                    "Problems", '{where}, layer "{name}": Name belongs in Layer.name'
                ).format(where=where, name=layer.name)
            )
        for key, value in layer.properties.items():
            if not (_one_line(key) and key.strip() and _one_line(value)):  # say which is wrong
                check_name(key, f'{where}, layer "{layer.name}": property name')
                check_value(value, f'{where}, layer "{layer.name}", property {key}')
        self._cache = None
        if layer.id is None or layer.id in self._layer_ids:
            layer = replace(layer, id=self.next_layer_id())
        self._layer_ids.add(layer.id)  # type: ignore[arg-type]
        self._id_added("layer", layer.id)  # type: ignore[arg-type]
        if index is None or index >= len(self._layers):
            self._layers[layer.name] = layer
        else:
            items = list(self._layers.items())
            items.insert(index, (layer.name, layer))
            self._layers = dict(items)
        return layer

    def _insert_link(self, link: Link, index: int | None) -> Link:
        where = f'network "{self._name}"'
        if not isinstance(link, Link):
            raise ModelError(
                QT_TRANSLATE_NOOP("Problems", "{where}: expected a Link. Received: {link}").format(
                    where=where, link=repr(link)
                )
            )
        for end in (link.source, link.destination):
            if end not in self._layers:
                raise ModelError(
                    QT_TRANSLATE_NOOP(
                        "Problems",
                        '{where}: link {source} -> {destination} names a missing layer "{end}"',
                    ).format(where=where, source=link.source, destination=link.destination, end=end)
                )
        if link.dest_pin < 0 or link.source_pin < 0:
            raise ModelError(
                QT_TRANSLATE_NOOP(
                    "Problems", "{where}: link {source} -> {destination}: negative pin"
                ).format(where=where, source=link.source, destination=link.destination)
            )
        self._cache = None
        if link.id is None or link.id in self._link_ids:
            link = replace(link, id=self.next_link_id())
        self._link_ids.add(link.id)  # type: ignore[arg-type]
        self._id_added("link", link.id)  # type: ignore[arg-type]
        self._links.insert(len(self._links) if index is None else index, link)
        return link

    def _attach(self, emitter: ev.Emitter) -> None:
        self._emitter = emitter

    def _set_name(self, name: str) -> None:
        self._name = name


def _rename_link(link: Link, old: str, new: str) -> Link:
    if old not in (link.source, link.destination):
        return link
    return replace(
        link,
        source=new if link.source == old else link.source,
        destination=new if link.destination == old else link.destination,
    )


def _one_line(value: object) -> bool:
    return isinstance(value, str) and "\n" not in value and "\r" not in value


def check_name(name: object, where: str, forbidden: str = "") -> None:
    """Names are one non-blank line (``.sdcproj`` values end at the line end)."""
    bad = set("\r\n" + forbidden)
    if not isinstance(name, str) or not name.strip() or bad & set(name):
        extra = f" without {' '.join(sorted(forbidden))}" if forbidden else ""
        raise ModelError(
            QT_TRANSLATE_NOOP(
                "Problems", "{where}: expected a non-empty one-line name{extra}. Received: {name}"
            ).format(where=where, extra=extra, name=repr(name))
        )


def check_value(value: object, where: str) -> None:
    """Property values are strings on one line, as NNC stores them."""
    if not isinstance(value, str) or "\n" in value or "\r" in value:
        raise ModelError(
            QT_TRANSLATE_NOOP(
                "Problems", "{where}: expected a one-line string. Received: {value}"
            ).format(where=where, value=repr(value))
        )
