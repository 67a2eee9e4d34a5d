"""Undoable edit commands and the undo stack (pure Python; the GUI wraps them).

Every command stores what it needs to undo itself and calls one model method per step, so the
model's events drive every view. ``UndoStack.push(cmd)`` runs ``cmd.do()`` and records it:

    stack = UndoStack()
    stack.push(SetProperty(net, "Conv", "KernelShape", "5,5"))
    stack.undo(); stack.redo()
    stack.is_clean()        # False while there are unsaved edits; set_clean() after a save

Commands: ``AddLayer``, ``RemoveLayer`` (also removes, and on undo restores, its links at their
old positions), ``RenameLayer``, ``SetProperty``, ``MoveLayers`` (one drag of any number of
layers), ``Connect``, ``Disconnect``, ``AddNetwork``, ``RemoveNetwork``, ``RenameNetwork``,
``SetSectionValue`` (one CONFIG/DATASET field), ``ReplaceSection``, ``InsertItem``,
``RemoveItem``, ``SetDescription`` and ``Compound`` (a macro: paste, delete selection).
``rename_network_everywhere(project, old, new)`` builds the Compound that also updates the
settings and Unit layers that name the network (``RenameNetwork`` alone renames only it).

No-op guard: a command whose ``is_noop()`` is true is not pushed (typing the same value,
dropping a layer where it was). Merging: consecutive ``SetProperty`` on the same field,
``SetSectionValue`` on the same key, ``MoveLayers`` of the same layers and ``SetDescription``
merge into one step (typing in one field is one undo step), unless the stack was marked clean
in between; a merge that ends where it started removes the step.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from contextlib import contextmanager
from typing import Any

from engine.core.messages import QT_TRANSLATE_NOOP
from engine.graph.config_keys import Section
from engine.graph.project import Layer, Link, ModelError, Network, Project, Where

# Also the text of the canvas's link, which replaces an existing link in one step.
CONNECT = QT_TRANSLATE_NOOP("Commands", "Connect {source} to {destination}")


class Command:
    """Base: ``do``/``undo`` plus the merge and no-op hooks."""

    text = "Edit"

    def do(self) -> None:
        raise NotImplementedError

    def undo(self) -> None:
        raise NotImplementedError

    def is_noop(self) -> bool:
        return False

    def merge_key(self) -> Any:
        """Commands with equal, non-None keys may merge (newest into oldest)."""
        return None

    def merge(self, newer: Command) -> None:
        raise NotImplementedError


# -- layers and links ----------------------------------------------------------------------
class AddLayer(Command):
    def __init__(self, network: Network, layer: Layer, index: int | None = None) -> None:
        self.network, self.layer, self.index = network, layer, index
        self.text = QT_TRANSLATE_NOOP("Commands", "Add {name}").format(name=layer.name)

    def do(self) -> None:
        self.layer = self.network.add_layer(self.layer, self.index)  # keeps the ID on redo

    def undo(self) -> None:
        self.network.remove_layer(self.layer.name)


class RemoveLayer(Command):
    def __init__(self, network: Network, name: str) -> None:
        self.network, self.name = network, name
        self.text = QT_TRANSLATE_NOOP("Commands", "Delete {name}").format(name=name)
        self._saved: tuple[Layer, int, list[tuple[int, Link]]] | None = None

    def do(self) -> None:
        self._saved = self.network.remove_layer(self.name)

    def undo(self) -> None:
        assert self._saved is not None
        layer, index, links = self._saved
        self.network.add_layer(layer, index)
        for position, link in links:  # ascending, so each lands at its old index
            self.network.connect(link, position)


class RenameLayer(Command):
    def __init__(self, network: Network, old: str, new: str) -> None:
        self.network, self.old, self.new = network, old, new
        self.text = QT_TRANSLATE_NOOP("Commands", "Rename {old} to {new}").format(old=old, new=new)

    def is_noop(self) -> bool:
        return self.old == self.new

    def do(self) -> None:
        self.network.rename_layer(self.old, self.new)

    def undo(self) -> None:
        self.network.rename_layer(self.new, self.old)


class SetProperty(Command):
    """Set a raw property string; ``None`` removes it (back to the catalogue default)."""

    def __init__(self, network: Network, layer: str, key: str, value: str | None) -> None:
        self.network, self.layer, self.key, self.value = network, layer, key, value
        self.old = network.layer(layer).properties.get(key)
        self.text = QT_TRANSLATE_NOOP("Commands", "Set {layer}.{key}").format(layer=layer, key=key)

    def is_noop(self) -> bool:
        return self.old == self.value

    def do(self) -> None:
        self.old = self.network.set_property(self.layer, self.key, self.value)

    def undo(self) -> None:
        self.network.set_property(self.layer, self.key, self.old)

    def merge_key(self) -> Any:
        return ("property", id(self.network), self.layer, self.key)

    def merge(self, newer: Command) -> None:
        assert isinstance(newer, SetProperty)
        self.value = newer.value


class SetPropertyOfLayers(Command):
    """One property of several layers set to one value (the property pane's multi-selection);
    typing merges into one undo step as for one layer."""

    def __init__(self, network: Network, layers: list[str], key: str, value: str | None) -> None:
        self.network, self.key = network, key
        self.parts = [SetProperty(network, name, key, value) for name in layers]
        self.text = QT_TRANSLATE_NOOP("Commands", "Set {key} of {count} layers").format(
            key=key, count=len(layers)
        )

    def is_noop(self) -> bool:
        return all(part.is_noop() for part in self.parts)

    def do(self) -> None:
        for part in self.parts:
            part.do()

    def undo(self) -> None:
        for part in reversed(self.parts):
            part.undo()

    def merge_key(self) -> Any:
        return ("properties", id(self.network), tuple(p.layer for p in self.parts), self.key)

    def merge(self, newer: Command) -> None:
        assert isinstance(newer, SetPropertyOfLayers)
        for part, new in zip(self.parts, newer.parts, strict=True):
            part.merge(new)


class MoveLayers(Command):
    """Move layers to new file coordinates; one drag of a selection is one command."""

    def __init__(self, network: Network, moves: Mapping[str, tuple[float, float]]) -> None:
        self.network = network
        self.new = {name: (pos[0], pos[1]) for name, pos in moves.items()}
        self.old = {name: network.layer(name).position for name in self.new}
        self.text = (
            QT_TRANSLATE_NOOP("Commands", "Move {name}").format(name=next(iter(self.new)))
            if len(self.new) == 1
            else QT_TRANSLATE_NOOP("Commands", "Move {count} layers").format(count=len(self.new))
        )

    def is_noop(self) -> bool:
        return self.old == self.new

    def do(self) -> None:
        for name, position in self.new.items():
            self.network.move_layer(name, position)

    def undo(self) -> None:
        for name, position in self.old.items():
            self.network.move_layer(name, position)

    def merge_key(self) -> Any:
        return ("move", id(self.network), frozenset(self.new))

    def merge(self, newer: Command) -> None:
        assert isinstance(newer, MoveLayers)
        self.new = dict(newer.new)


class Connect(Command):
    def __init__(self, network: Network, link: Link, index: int | None = None) -> None:
        self.network, self.link, self.index = network, link, index
        self.text = CONNECT.format(source=link.source, destination=link.destination)

    def do(self) -> None:
        self.link = self.network.connect(self.link, self.index)

    def undo(self) -> None:
        self.network.disconnect(self.link)


class Disconnect(Command):
    def __init__(self, network: Network, link: Link) -> None:
        self.network, self.link = network, link
        self.text = QT_TRANSLATE_NOOP("Commands", "Disconnect {source} from {destination}").format(
            source=link.source, destination=link.destination
        )
        self.index = -1

    def do(self) -> None:
        self.link, self.index = self.network.disconnect(self.link)

    def undo(self) -> None:
        self.network.connect(self.link, self.index)


# -- networks ------------------------------------------------------------------------------
class AddNetwork(Command):
    def __init__(self, project: Project, network: Network, index: int | None = None) -> None:
        self.project, self.network, self.index = project, network, index
        self.text = QT_TRANSLATE_NOOP("Commands", "Add network {name}").format(name=network.name)

    def do(self) -> None:
        self.project.add_network(self.network, self.index)

    def undo(self) -> None:
        self.project.remove_network(self.network.name)


class RemoveNetwork(Command):
    def __init__(self, project: Project, name: str) -> None:
        self.project, self.name = project, name
        self.text = QT_TRANSLATE_NOOP("Commands", "Delete network {name}").format(name=name)
        self._saved: tuple[Network, int] | None = None

    def do(self) -> None:
        self._saved = self.project.remove_network(self.name)

    def undo(self) -> None:
        assert self._saved is not None
        self.project.add_network(*self._saved)


class RenameNetwork(Command):
    def __init__(self, project: Project, old: str, new: str) -> None:
        self.project, self.old, self.new = project, old, new
        self.text = QT_TRANSLATE_NOOP("Commands", "Rename network {old} to {new}").format(
            old=old, new=new
        )

    def is_noop(self) -> bool:
        return self.old == self.new

    def do(self) -> None:
        self.project.rename_network(self.old, self.new)

    def undo(self) -> None:
        self.project.rename_network(self.new, self.old)


_NETWORK_KEYS = {
    "optimizers": "Optimizer_NetworkName",
    "monitors": "Monitor_NetworkName",
    "executors": "Executor_NetworkName",
}


def rename_network_everywhere(project: Project, old: str, new: str) -> Compound:
    """One undo step: rename a network and every reference to it.

    References are the optimizers', monitors' and executors' network names (including the
    derived ``<old>Validation`` / ``<old>Runtime``) and the ``Network`` property of Unit layers.
    """
    steps: list[Command] = [RenameNetwork(project, old, new)]
    renames = {old: new, f"{old}Validation": f"{new}Validation", f"{old}Runtime": f"{new}Runtime"}
    for collection, key in _NETWORK_KEYS.items():
        for i, item in enumerate(getattr(project, collection)):
            target = renames.get(item.values.get(key, ""))
            if target is not None:
                steps.append(SetSectionValue(project, (collection, i), key, target))
    for network in project.networks:
        for layer in network.layers:
            if layer.type == "Unit" and layer.properties.get("Network") == old:
                steps.append(SetProperty(network, layer.name, "Network", new))
    return Compound(f"Rename network {old} to {new}", steps)


# -- settings ------------------------------------------------------------------------------
class ReplaceSection(Command):
    def __init__(self, project: Project, where: Where, new: Section) -> None:
        self.project, self.where, self.new = project, where, new
        self.old = project.section(where)
        self.text = QT_TRANSLATE_NOOP("Commands", "Edit {section}").format(
            section=_where_text(where)
        )

    def is_noop(self) -> bool:
        return self.old == self.new

    def do(self) -> None:
        self.old = self.project.replace_section(self.where, self.new)

    def undo(self) -> None:
        self.project.replace_section(self.where, self.old)


class SetSectionValue(ReplaceSection):
    """One settings field (``MaxEpoch``, a dataset's ``URI``); ``None`` removes the key."""

    def __init__(self, project: Project, where: Where, key: str, value: str | None) -> None:
        super().__init__(project, where, project.section(where).with_value(key, value))
        self.key = key
        self.text = QT_TRANSLATE_NOOP("Commands", "Set {key}").format(key=key)

    def merge_key(self) -> Any:
        return ("section", id(self.project), self.where, self.key)

    def merge(self, newer: Command) -> None:
        assert isinstance(newer, SetSectionValue)
        self.new = newer.new


class InsertItem(Command):
    def __init__(self, project: Project, collection: str, item: Section, index: int | None = None):
        self.project, self.collection, self.item = project, collection, item
        self.index = index
        self.text = QT_TRANSLATE_NOOP("Commands", "Add {name}").format(name=collection[:-1])

    def do(self) -> None:
        self.index = self.project.insert_item(self.collection, self.index, self.item)

    def undo(self) -> None:
        assert self.index is not None
        self.project.remove_item(self.collection, self.index)


class RemoveItem(Command):
    def __init__(self, project: Project, collection: str, index: int) -> None:
        self.project, self.collection, self.index = project, collection, index
        self.item: Section | None = None
        self.text = QT_TRANSLATE_NOOP("Commands", "Delete {name}").format(name=collection[:-1])

    def do(self) -> None:
        self.item = self.project.remove_item(self.collection, self.index)

    def undo(self) -> None:
        assert self.item is not None
        self.project.insert_item(self.collection, self.index, self.item)


class SetDescription(Command):
    def __init__(self, project: Project, text: str) -> None:
        self.project, self.new, self.old = project, text, project.description
        self.text = QT_TRANSLATE_NOOP("Commands", "Edit description")

    def is_noop(self) -> bool:
        return self.old == self.new

    def do(self) -> None:
        self.old = self.project.set_description(self.new)

    def undo(self) -> None:
        self.project.set_description(self.old)

    def merge_key(self) -> Any:
        return ("description", id(self.project))

    def merge(self, newer: Command) -> None:
        assert isinstance(newer, SetDescription)
        self.new = newer.new


def _where_text(where: Where) -> str:
    return where if isinstance(where, str) else f"{where[0][:-1]} {where[1] + 1}"


# -- grouping ------------------------------------------------------------------------------
class Compound(Command):
    """Several commands as one undo step; a failure part-way undoes the done part."""

    def __init__(self, text: str, commands: Iterable[Command] = ()) -> None:
        self.text = text
        self.commands = list(commands)

    def is_noop(self) -> bool:
        return all(c.is_noop() for c in self.commands)

    def do(self) -> None:
        done: list[Command] = []
        try:
            for command in self.commands:
                command.do()
                done.append(command)
        except Exception:
            for command in reversed(done):
                command.undo()
            raise

    def undo(self) -> None:
        for command in reversed(self.commands):
            command.undo()


class UndoStack:
    """Linear undo/redo history with a clean mark (the title bar's unsaved ``*``)."""

    def __init__(self) -> None:
        self._commands: list[Command] = []
        self._index = 0  # commands[:index] are done
        self._clean: int | None = 0
        self._listeners: list[Callable[[], None]] = []
        self._macro: list[Compound] = []

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Called after every push/undo/redo/clean change; returns an unsubscribe function."""
        self._listeners.append(callback)
        return lambda: self._listeners.remove(callback) if callback in self._listeners else None

    def _changed(self) -> None:
        for callback in list(self._listeners):
            callback()

    def push(self, command: Command) -> bool:
        """Run and record ``command``; returns False (and does nothing) for a no-op.

        If ``do`` raises (e.g. a duplicate name), the history is unchanged and the error
        propagates for the caller to show.
        """
        if command.is_noop():
            return False
        command.do()
        if self._macro:
            self._macro[-1].commands.append(command)
            return True
        del self._commands[self._index :]
        if self._clean is not None and self._clean > self._index:
            self._clean = None  # the saved state can no longer be reached
        top = self._commands[-1] if self._commands else None
        key = command.merge_key()
        if (
            top is not None
            and key is not None
            and key == top.merge_key()
            and self._clean != self._index
        ):
            top.merge(command)
            if top.is_noop():  # typed back to the original value
                self._commands.pop()
                self._index -= 1
        else:
            self._commands.append(command)
            self._index += 1
        self._changed()
        return True

    @contextmanager
    def macro(self, text: str):  # type: ignore[no-untyped-def]
        """Group the pushes inside the ``with`` block into one undo step."""
        group = Compound(text)
        self._macro.append(group)
        try:
            yield group
        except BaseException:
            self._macro.pop()
            group.undo()
            raise
        self._macro.pop()
        if group.commands:
            if self._macro:
                self._macro[-1].commands.append(group)
            else:
                self._record(group)

    def _record(self, command: Command) -> None:
        del self._commands[self._index :]
        if self._clean is not None and self._clean > self._index:
            self._clean = None
        self._commands.append(command)
        self._index += 1
        self._changed()

    def undo(self) -> None:
        if not self.can_undo():
            raise ModelError(QT_TRANSLATE_NOOP("Problems", "nothing to undo"))
        self._index -= 1
        try:
            self._commands[self._index].undo()
        except Exception:
            self._index += 1
            raise
        self._changed()

    def redo(self) -> None:
        if not self.can_redo():
            raise ModelError(QT_TRANSLATE_NOOP("Problems", "nothing to redo"))
        self._commands[self._index].do()
        self._index += 1
        self._changed()

    def can_undo(self) -> bool:
        return self._index > 0 and not self._macro

    def can_redo(self) -> bool:
        return self._index < len(self._commands) and not self._macro

    def undo_text(self) -> str:
        return self._commands[self._index - 1].text if self.can_undo() else ""

    def redo_text(self) -> str:
        return self._commands[self._index].text if self.can_redo() else ""

    @property
    def index(self) -> int:
        return self._index

    def __len__(self) -> int:
        return len(self._commands)

    def is_clean(self) -> bool:
        return self._clean == self._index

    def set_clean(self) -> None:
        self._clean = self._index
        self._changed()

    def clear(self) -> None:
        self._commands.clear()
        self._index = 0
        self._clean = 0
        self._changed()
