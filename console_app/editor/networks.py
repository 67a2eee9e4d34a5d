"""Network tabs: add, rename, duplicate and delete a network as undoable commands (no Qt).

Renaming goes through :func:`engine.graph.commands.rename_network_everywhere`, so the CONFIG
settings (optimizers, monitors, executors, derived ``<Net>Validation``/``<Net>Runtime``
included) and the Unit layers that name the network follow in the same undo step. Deleting
leaves references as they are (the problems list then names them); :func:`references_to`
lists them so the editor can ask first.
"""

from __future__ import annotations

from dataclasses import replace

from engine.core.messages import QT_TRANSLATE_NOOP
from engine.graph import commands as C
from engine.graph.project import ModelError, Network, Project

NEW_NETWORK = "Network"
_SETTINGS = (("optimizers", "optimizer"), ("monitors", "monitor"), ("executors", "executor"))


def add_network(project: Project, name: str | None = None, index: int | None = None) -> C.Command:
    """An empty network named ``name`` (default: a free ``Network``, ``Network_2``, ...)."""
    network = Network(name or project.unique_network_name(NEW_NETWORK))
    return C.AddNetwork(project, network, index)


def duplicate_network(project: Project, name: str, new: str | None = None) -> C.Command:
    """A copy of ``name`` (layers, links, positions), placed right after it."""
    original = project.network(name)
    copy = Network(
        new or project.unique_network_name(name),
        [replace(layer, properties=dict(layer.properties), extra=dict(layer.extra))
         for layer in original.layers],
        [replace(link, extra=dict(link.extra)) for link in original.links],
        extra=dict(original.extra),
    )  # fmt: skip
    command = C.AddNetwork(project, copy, project.network_index(name) + 1)
    command.text = QT_TRANSLATE_NOOP("Commands", "Duplicate network {name}").format(name=name)
    return command


def rename_network(project: Project, old: str, new: str) -> C.Command:
    """The network and every reference to it, as one step; ModelError for a bad name."""
    new = new.strip()
    project.network(old)  # an unknown network says so
    if new != old and project.has_network(new):
        raise ModelError(f'a network named "{new}" already exists')
    if not new or any(c in new for c in "[]\r\n"):
        raise ModelError(
            f'network "{old}": expected a non-empty one-line name without [ ]. Received: {new!r}'
        )
    return C.rename_network_everywhere(project, old, new)


def delete_network(project: Project, name: str) -> C.Command:
    if project.network_names == (name,):
        raise ModelError(f'network "{name}" is the only network: a project keeps at least one')
    return C.RemoveNetwork(project, name)


def references_to(project: Project, name: str) -> list[str]:
    """What names the network: other networks' Unit layers and the CONFIG settings.

    A setting naming ``<name>Validation`` or ``<name>Runtime`` counts when that network is
    derived from this one (no drawn tab of that name).
    """
    found = [
        f'Unit layer "{layer.name}" in network "{network.name}"'
        for network in project.networks
        if network.name != name
        for layer in network.layers
        if layer.type == "Unit" and layer.properties.get("Network") == name
    ]
    derived = {f"{name}{s}" for s in ("Validation", "Runtime")} - set(project.network_names)
    for collection, what in _SETTINGS:
        for item in getattr(project, collection):
            if item.network == name or item.network in derived:
                found.append(f'{what} "{item.name}" (network {item.network})')
    return found
