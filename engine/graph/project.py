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

Network (:mod:`engine.graph.network`, re-exported here; mutable; events go through its
project's emitter; read views are cached until the next change)
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
from dataclasses import dataclass, field
from typing import Any

from engine.graph import config as cfg
from engine.graph import events as ev
from engine.graph.network import Layer, Link, ModelError, Network, check_name

__all__ = [
    "Layer",
    "Link",
    "ModelError",
    "Network",
    "Project",
    "RawSection",
    "SdcprojHints",
    "Where",
]


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
        check_name(new, f'network "{old}": new name', forbidden="[]")
        if self.has_network(new):
            raise ModelError(f'a network named "{new}" already exists')
        network._set_name(new)
        self.events.emit(ev.NetworkRenamed(old, new))

    def _insert_network(self, network: Network, index: int | None) -> None:
        if not isinstance(network, Network):
            raise ModelError(f"expected a Network. Received: {network!r}")
        check_name(network.name, "network name", forbidden="[]")
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
        if index is not None and not 0 <= index <= len(items):
            raise ModelError(f"{collection}: cannot insert at #{index} (there are {len(items)})")
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
