"""Incremental inference of every network of a project: one :class:`NetworkInference` per
network, unit expansions shared between callers (:class:`UnitCache`), and the project's events
followed so that an edit recomputes only what it touches (docs/architecture.md)."""

from __future__ import annotations

from engine.graph import unit_graph
from engine.graph.infer import NetworkInference, UnitCache
from engine.graph.network import Network
from engine.graph.project import Project

__all__ = ["ProjectInference"]


class ProjectInference:
    """Incremental inference of every network of a project, following its events."""

    def __init__(self, project: Project, follow: bool = True) -> None:
        self.project = project
        self.units = UnitCache(project)
        self._networks: dict[str, NetworkInference] = {}
        self._unsubscribe = project.events.subscribe(self._on_event) if follow else None

    def close(self) -> None:
        if self._unsubscribe:
            self._unsubscribe()
            self._unsubscribe = None

    def network(self, name: str) -> NetworkInference:
        inference = self._networks.get(name)
        if inference is None:
            inference = NetworkInference(self.project.network(name), self.project, units=self.units)
            self._networks[name] = inference
        return inference

    def all(self) -> dict[str, NetworkInference]:
        return {n.name: self.network(n.name) for n in self.project.networks}

    def reset(self) -> None:
        self._networks.clear()
        self.units.entries.clear()
        self.units.layers.clear()

    # -- events ------------------------------------------------------------------------------

    def _on_event(self, event) -> None:  # noqa: ANN001 - any engine.graph.events.Event
        kind = event.kind
        if kind.startswith("network_"):
            self.reset()  # unit references may now resolve differently
            return
        network = getattr(event, "network", None)
        if network is None or kind == "layer_moved" or not self.project.has_network(network):
            return
        if _changes_arguments(self.project.network(network), event):
            # Argument values feed every layer of the network and every caller's binding.
            self._networks.pop(network, None)
            for key in [k for k in self.units.entries if k[0] == network]:
                del self.units.entries[key]
        else:
            for inference in self._instances(network):
                inference.apply(event)
        self._drop_callers(network)

    def _instances(self, network: str) -> list[NetworkInference]:
        found = self.units.instances(network)
        if network in self._networks:
            found.append(self._networks[network])
        return found

    def _drop_callers(self, network: str) -> None:
        """Unit layers that (transitively) call ``network`` must recompute their expansion."""
        changed = {network}
        calls = unit_graph.unit_calls(self.project)
        grew = True
        while grew:
            grew = False
            for caller, items in calls.items():
                if caller not in changed and any(called in changed for _, called in items):
                    changed.add(caller)
                    grew = True
        for inference in [*self._networks.values(), *self.units.entries.values()]:
            inference.invalidate_units(changed)


def _changes_arguments(network: Network, event) -> bool:  # noqa: ANN001
    """True when the event adds, removes, renames or edits an Argument layer."""
    layer = getattr(event, "layer", None)
    if hasattr(layer, "type"):  # layer_added / layer_removed / layer_renamed carry the Layer
        return layer.type == "Argument"  # type: ignore[union-attr]
    if isinstance(layer, str) and network.has_layer(layer):
        return network.layer(layer).type == "Argument"
    return False
