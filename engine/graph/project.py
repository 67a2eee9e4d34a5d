"""The Qt-free project model: Project -> Network -> Layer / Link, plus datasets and CONFIG.

The model owns every change and emits one plain-Python event per change
(:mod:`engine.graph.events`); the GUI and incremental shape inference subscribe to
``project.events``. Undoable edits are command objects in :mod:`engine.graph.commands`.

Values
    ``Layer`` and ``Link`` are frozen values. An edit replaces the value inside its network,
    so hold names, not ``Layer`` objects, across edits.

    ``Layer(name, type, properties, position, size, id, extra)``
        ``type`` is the NNC type string (``Convolution``; unknown types load too).
        ``properties`` maps property name -> RAW string exactly as NNC writes it
        (``"7,7"``, ``"*Name"``, ``"True"``, ``"0,r"``), in file order, WITHOUT ``Name``
        (that is ``name``). A missing property means the catalogue default.
        ``position`` is NNC's file coordinates (x, y) of the box's top-left corner
        (multiples of 24 in Sony's files; editor px = file x 20/24). ``size`` is
        ``Position_2/3`` (always 240, 48). ``id`` is the NNC layer ID the file's links use;
        the network assigns a fresh one when ``None``. ``extra`` keeps any other key of the
        layer section (e.g. ``RepeatTimes``) verbatim.
    ``Link(source, destination, dest_pin, source_pin, id, extra)``
        Layer names. ``dest_pin`` 0 = main input, k >= 1 = k-th input side connector of the
        destination type (1 = ``W`` of Affine, ``T`` of losses, ``R`` of Sub2). Several links
        into pin 0 are ordered by their position in ``Network.links`` (Concatenate order).

Network (mutable, events emitted through its project's emitter)
    ``name``, ``layers`` (tuple, ordered), ``links`` (tuple, ordered), ``layer(name)``,
    ``has_layer``, ``index_of``, ``inputs_of(name)`` (links into it, in link order),
    ``outputs_of(name)``, ``unique_name(base)``.
    Edits: ``add_layer(layer, index=None) -> Layer``, ``remove_layer(name)`` (also removes its
    links; returns what undo needs), ``rename_layer(old, new)`` (links follow),
    ``set_property(layer, key, value | None)``, ``move_layer(layer, (x, y))``,
    ``connect(link, index=None) -> Link``, ``disconnect(link) -> index``.

Project (mutable)
    ``networks`` / ``network(name)`` / ``add_network`` / ``remove_network`` /
    ``rename_network``; ``description`` / ``set_description``.
    Settings (:mod:`engine.graph.config`, raw strings with typed views and NNC defaults):
    singletons ``engine``, ``dataset_index``, ``config`` (global: MaxEpoch, BatchSize, ...),
    ``structure_search``; collections ``datasets``, ``optimizers``, ``monitors``,
    ``executors``. Generic access: ``section(where)`` and ``replace_section(where, new)`` with
    ``where`` = ``"config"`` or ``("optimizers", 0)``; ``insert_item(collection, index, item)``,
    ``remove_item(collection, index)``.
    ``extra_sections``: unknown ``.sdcproj`` sections kept verbatim (``RawSection``).
    ``hints``: how the source ``.sdcproj`` was laid out (line ends, BOM, ``[Global]``) so
    an unedited project is written back byte for byte. Hints are not part of equality.

``Project.new()`` is an empty project with NNC's new-project settings and one network ``Main``.
Structural problems (duplicate names, links to missing layers) raise :class:`ModelError`;
bad property values are kept and left to validation.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from engine.graph import config as cfg
from engine.graph import events as ev

# Properties NNC computes and its editor never writes (nnc-formats.md 1.4).
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
class RawSection:
    """An ``.sdcproj`` section the model does not interpret, kept verbatim.

    ``after`` names the section it followed in the source file (``None`` = file start), so a
    writer can put it back in place. Like ``hints``, the place is not part of equality.
    """

    name: str
    values: dict[str, str] = field(default_factory=dict)
    after: str | None = field(default=None, compare=False)


@dataclass(frozen=True)
class SdcprojHints:
    """Layout of the source ``.sdcproj``; defaults are what NeuroCanvas writes for new files."""

    newline: str = "\r\n"
    bom: bool = False
    final_newline: bool = True
    global_section: bool | None = None  # None: write [Global] only for several networks
    encoding: str = "utf-8"
    absent: tuple[str, ...] = ()  # top-level sections the source lacked (a unit file has few)


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

    @property
    def layers(self) -> tuple[Layer, ...]:
        return tuple(self._layers.values())

    @property
    def layer_names(self) -> tuple[str, ...]:
        return tuple(self._layers)

    @property
    def links(self) -> tuple[Link, ...]:
        return tuple(self._links)

    def has_layer(self, name: str) -> bool:
        return name in self._layers

    def layer(self, name: str) -> Layer:
        try:
            return self._layers[name]
        except KeyError:
            raise ModelError(f'network "{self._name}": no layer "{name}"') from None

    def index_of(self, name: str) -> int:
        self.layer(name)
        return list(self._layers).index(name)

    def inputs_of(self, name: str) -> tuple[Link, ...]:
        """Links into ``name`` in link order (pin 0 inputs keep Concatenate order)."""
        return tuple(k for k in self._links if k.destination == name)

    def outputs_of(self, name: str) -> tuple[Link, ...]:
        return tuple(k for k in self._links if k.source == name)

    def link_index(self, link: Link) -> int:
        for i, existing in enumerate(self._links):
            if existing == link:
                return i
        raise ModelError(
            f'network "{self._name}": no link {link.source} -> {link.destination} '
            f"(pin {link.dest_pin})"
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
        from engine.layers import find_spec  # noqa: PLC0415 - the catalogue imports late

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
        return max(self._layer_ids, default=-1) + 1

    def next_link_id(self) -> int:
        return max(self._link_ids, default=-1) + 1

    # -- edits (each emits one event) ------------------------------------------------------
    def add_layer(self, layer: Layer, index: int | None = None) -> Layer:
        """Insert ``layer`` (at ``index``, default last); returns it with its ID set."""
        layer = self._insert_layer(layer, index)
        self._emit(ev.LayerAdded(self._name, layer, self.index_of(layer.name)))
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
            self._emit(ev.LinkRemoved(self._name, link, i))
        del self._layers[name]
        self._layer_ids.discard(layer.id)
        self._emit(ev.LayerRemoved(self._name, layer, index))
        return layer, index, removed

    def rename_layer(self, old: str, new: str) -> None:
        layer = self.layer(old)
        if new == old:
            return
        _check_name(new, f'network "{self._name}", layer "{old}": new name')
        if new in self._layers:
            raise ModelError(f'network "{self._name}": a layer named "{new}" already exists')
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
                f'network "{self._name}", layer "{layer_name}": Name is changed by renaming'
            )
        if not isinstance(value, str | None):
            raise ModelError(
                f'network "{self._name}", layer "{layer_name}", property {key}: expected a '
                f"string. Received: {key}={value!r}"
            )
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
        link = self._insert_link(link, index)
        self._emit(ev.LinkAdded(self._name, link, self.link_index(link)))
        return link

    def disconnect(self, link: Link | int) -> tuple[Link, int]:
        """Remove a link (given as value or index); returns ``(link, index)``."""
        if isinstance(link, int):
            if not 0 <= link < len(self._links):
                raise ModelError(f'network "{self._name}": no link #{link}')
            index = link
        else:
            index = self.link_index(link)
        removed = self._links.pop(index)
        self._link_ids.discard(removed.id)
        self._emit(ev.LinkRemoved(self._name, removed, index))
        return removed, index

    # -- internals -------------------------------------------------------------------------
    def _emit(self, event: ev.Event) -> None:
        self._emitter.emit(event)

    def _insert_layer(self, layer: Layer, index: int | None) -> Layer:
        where = f'network "{self._name}"'
        if not isinstance(layer, Layer):
            raise ModelError(f"{where}: expected a Layer. Received: {layer!r}")
        _check_name(layer.name, f"{where}, layer name")
        if layer.name in self._layers:
            raise ModelError(f'{where}: duplicate layer name "{layer.name}"')
        if "Name" in layer.properties:
            raise ModelError(f'{where}, layer "{layer.name}": Name belongs in Layer.name')
        if layer.id is None or layer.id in self._layer_ids:
            layer = replace(layer, id=self.next_layer_id())
        self._layer_ids.add(layer.id)  # type: ignore[arg-type]
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
            raise ModelError(f"{where}: expected a Link. Received: {link!r}")
        for end in (link.source, link.destination):
            if end not in self._layers:
                raise ModelError(
                    f"{where}: link {link.source} -> {link.destination} names a missing "
                    f'layer "{end}"'
                )
        if link.dest_pin < 0 or link.source_pin < 0:
            raise ModelError(f"{where}: link {link.source} -> {link.destination}: negative pin")
        if link.id is None or link.id in self._link_ids:
            link = replace(link, id=self.next_link_id())
        self._link_ids.add(link.id)  # type: ignore[arg-type]
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


def _check_name(name: object, where: str) -> None:
    if not isinstance(name, str) or not name.strip() or "\n" in name or "\r" in name:
        raise ModelError(f"{where}: expected a non-empty one-line name. Received: {name!r}")


Where = str | tuple[str, int]


class Project:
    """Networks, datasets, CONFIG, description; the root of the model and its event hub."""

    def __init__(
        self,
        networks: Iterable[Network] = (),
        *,
        description: str = "",
        engine: cfg.Engine | None = None,
        dataset_index: cfg.DatasetIndex | None = None,
        config: cfg.GlobalConfig | None = None,
        structure_search: cfg.StructureSearch | None = None,
        datasets: Iterable[cfg.Dataset] = (),
        optimizers: Iterable[cfg.Optimizer] = (),
        monitors: Iterable[cfg.Monitor] = (),
        executors: Iterable[cfg.Executor] = (),
        extra_sections: Iterable[RawSection] = (),
        hints: SdcprojHints | None = None,
    ) -> None:
        self.events = ev.Emitter()
        self._networks: list[Network] = []
        self._description = description
        self._singletons: dict[str, cfg.Section] = {
            "engine": engine or cfg.Engine(),
            "dataset_index": dataset_index or cfg.DatasetIndex(),
            "config": config or cfg.GlobalConfig(),
            "structure_search": structure_search or cfg.StructureSearch(),
        }
        self._collections: dict[str, list[cfg.Section]] = {
            "datasets": list(datasets),
            "optimizers": list(optimizers),
            "monitors": list(monitors),
            "executors": list(executors),
        }
        for name, items in self._collections.items():
            for item in items:
                _check_section(name, item, cfg.COLLECTIONS[name])
        for name, item in self._singletons.items():
            _check_section(name, item, cfg.SINGLETONS[name])
        self.extra_sections: list[RawSection] = list(extra_sections)
        self.hints = hints or SdcprojHints()
        for network in networks:
            self._insert_network(network, None)

    @classmethod
    def new(cls, network_name: str = "Main") -> Project:
        """An empty project as NNC creates it: one network and NNC's default settings."""
        return cls([Network(network_name)], **cfg.default_settings())

    def __repr__(self) -> str:
        return f"Project({[n.name for n in self._networks]})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Project):
            return NotImplemented
        return (
            self._networks == other._networks
            and self._description == other._description
            and self._singletons == other._singletons
            and self._collections == other._collections
            and self.extra_sections == other.extra_sections
        )

    __hash__ = None  # type: ignore[assignment]

    # -- networks --------------------------------------------------------------------------
    @property
    def networks(self) -> tuple[Network, ...]:
        return tuple(self._networks)

    @property
    def network_names(self) -> tuple[str, ...]:
        return tuple(n.name for n in self._networks)

    def has_network(self, name: str) -> bool:
        return any(n.name == name for n in self._networks)

    def network(self, name: str) -> Network:
        for network in self._networks:
            if network.name == name:
                return network
        raise ModelError(f'no network "{name}" (networks: {", ".join(self.network_names)})')

    def network_index(self, name: str) -> int:
        return self._networks.index(self.network(name))

    def unique_network_name(self, base: str) -> str:
        if not self.has_network(base):
            return base
        k = 2
        while self.has_network(f"{base}_{k}"):
            k += 1
        return f"{base}_{k}"

    def add_network(self, network: Network, index: int | None = None) -> Network:
        self._insert_network(network, index)
        self.events.emit(ev.NetworkAdded(network.name, self._networks.index(network), network))
        return network

    def remove_network(self, name: str) -> tuple[Network, int]:
        network = self.network(name)
        index = self._networks.index(network)
        del self._networks[index]
        network._attach(ev.Emitter())
        self.events.emit(ev.NetworkRemoved(name, index, network))
        return network, index

    def rename_network(self, old: str, new: str) -> None:
        """Rename only the network; references in settings and Unit layers are left as they are."""
        network = self.network(old)
        if new == old:
            return
        _check_name(new, f'network "{old}": new name')
        if self.has_network(new):
            raise ModelError(f'a network named "{new}" already exists')
        network._set_name(new)
        self.events.emit(ev.NetworkRenamed(old, new))

    def _insert_network(self, network: Network, index: int | None) -> None:
        if not isinstance(network, Network):
            raise ModelError(f"expected a Network. Received: {network!r}")
        _check_name(network.name, "network name")
        if self.has_network(network.name):
            raise ModelError(f'duplicate network name "{network.name}"')
        network._attach(self.events)
        self._networks.insert(len(self._networks) if index is None else index, network)

    # -- description -----------------------------------------------------------------------
    @property
    def description(self) -> str:
        return self._description

    def set_description(self, text: str) -> str:
        old = self._description
        if text != old:
            self._description = text
            self.events.emit(ev.DescriptionChanged(old, text))
        return old

    # -- settings --------------------------------------------------------------------------
    @property
    def engine(self) -> cfg.Engine:
        return self._singletons["engine"]  # type: ignore[return-value]

    @property
    def dataset_index(self) -> cfg.DatasetIndex:
        return self._singletons["dataset_index"]  # type: ignore[return-value]

    @property
    def config(self) -> cfg.GlobalConfig:
        return self._singletons["config"]  # type: ignore[return-value]

    @property
    def structure_search(self) -> cfg.StructureSearch:
        return self._singletons["structure_search"]  # type: ignore[return-value]

    @property
    def datasets(self) -> tuple[cfg.Dataset, ...]:
        return tuple(self._collections["datasets"])  # type: ignore[arg-type]

    @property
    def optimizers(self) -> tuple[cfg.Optimizer, ...]:
        return tuple(self._collections["optimizers"])  # type: ignore[arg-type]

    @property
    def monitors(self) -> tuple[cfg.Monitor, ...]:
        return tuple(self._collections["monitors"])  # type: ignore[arg-type]

    @property
    def executors(self) -> tuple[cfg.Executor, ...]:
        return tuple(self._collections["executors"])  # type: ignore[arg-type]

    def dataset(self, name: str) -> cfg.Dataset:
        for item in self.datasets:
            if item.name == name:
                return item
        raise ModelError(f'no dataset "{name}"')

    def main_dataset(self) -> cfg.Dataset | None:
        index = self.dataset_index.main_index
        return self.datasets[index] if 0 <= index < len(self.datasets) else None

    def section(self, where: Where) -> cfg.Section:
        """A settings section: ``"config"`` (any singleton) or ``("optimizers", i)``."""
        if isinstance(where, str):
            if where not in self._singletons:
                raise ModelError(f"no settings section {where!r}")
            return self._singletons[where]
        name, index = where
        items = self._items(name)
        if not 0 <= index < len(items):
            raise ModelError(f"{name}: no item #{index} (there are {len(items)})")
        return items[index]

    def replace_section(self, where: Where, new: cfg.Section) -> cfg.Section:
        """Replace a settings section; returns the old one."""
        old = self.section(where)
        if type(new) is not type(old):
            raise ModelError(
                f"{where}: expected {type(old).__name__}. Received: {type(new).__name__}"
            )
        if new == old:
            return old
        if isinstance(where, str):
            self._singletons[where] = new
        else:
            self._collections[where[0]][where[1]] = new
        self.events.emit(ev.SectionChanged(where, old, new))
        return old

    def insert_item(self, collection: str, index: int | None, item: cfg.Section) -> int:
        items = self._items(collection)
        _check_section(collection, item, cfg.COLLECTIONS[collection])
        index = len(items) if index is None else index
        items.insert(index, item)
        self.events.emit(ev.ItemInserted(collection, index, item))
        return index

    def remove_item(self, collection: str, index: int) -> cfg.Section:
        item = self.section((collection, index))
        del self._collections[collection][index]
        self.events.emit(ev.ItemRemoved(collection, index, item))
        return item

    def _items(self, collection: str) -> list[cfg.Section]:
        if collection not in self._collections:
            raise ModelError(
                f"no settings collection {collection!r} (one of {', '.join(self._collections)})"
            )
        return self._collections[collection]


def _check_section(name: str, item: Any, cls: type[cfg.Section]) -> None:
    if type(item) is not cls:
        raise ModelError(f"{name}: expected {cls.__name__}. Received: {item!r}")
