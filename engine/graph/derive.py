"""Derived ``<Net>Validation`` and ``<Net>Runtime`` networks (docs/nnc-behaviour.md §3.2, §3.3).

When a monitor or executor names ``MainValidation`` or ``MainRuntime`` and no tab has that
name, NNC derives it from tab ``Main``:

* Validation: layers with ``SkipAtTest=True`` are removed and their input is wired straight
  through; properties whose nnabla argument carries ``-test=<v>`` are forced to v (BatchStat
  False, UpdateRunningMean False, SpectralNorm Test True). Everything else stays.
* Runtime: Validation without the loss-type layers (``IsLossFunction=True``); the main input of
  each removed loss becomes an output named ``<T.Dataset>'`` (``y'``).

A drawn network gets the same test rewriting only when it contains a TestNetwork layer with
``ModifyForTesting=True``. Units inside a rewritten network must be expanded in test mode too
(their BatchNormalization layers included); :attr:`Derived.test_mode` says so to the compiler.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from engine.graph.network import Layer, Link, Network
from engine.graph.project import Project
from engine.layers import find_spec

__all__ = [
    "Derived",
    "derived_names",
    "derive",
    "counted_as",
    "network_for",
    "test_rewrite",
    "runtime_outputs",
    "modifies_for_testing",
    "has_loss",
]

_SUFFIXES = ("Validation", "Runtime")


@dataclass(frozen=True)
class Derived:
    """A network as it runs: drawn or derived, with its outputs and whether it is in test mode."""

    network: Network
    base: str  # the drawn network it comes from (itself when drawn)
    derived: bool
    test_mode: bool
    outputs: tuple[tuple[str, str], ...]  # (output variable name, layer name)


def derived_names(project: Project) -> list[str]:
    """Networks named by monitors/executors (and optimizers) that NNC derives from a tab."""
    names: list[str] = []
    for item in (*project.optimizers, *project.monitors, *project.executors):
        name = item.network  # type: ignore[attr-defined]
        if name and name not in names and _base_of(project, name) is not None:
            names.append(name)
    return names


def _base_of(project: Project, name: str) -> str | None:
    if project.has_network(name):
        return None
    for suffix in _SUFFIXES:
        base = name.removesuffix(suffix)
        if name.endswith(suffix) and base and project.has_network(base):
            return base
    return None


def counted_as(project: Project, name: str) -> str | None:
    """The drawn network whose statistics NNC reports for ``name`` (None if there is none).

    A derived ``MainRuntime`` is counted as the drawn ``Main``, loss layer included; that is
    why NNC's worked example has Output 85,477 (docs/layers.md §1.6, §2).
    """
    if project.has_network(name):
        return name
    return _base_of(project, name)


def network_for(project: Project, name: str) -> Derived:
    """The network a config item names: a drawn tab, or one derived from ``<Net>``."""
    if project.has_network(name):
        network = project.network(name)
        test = modifies_for_testing(network)
        if test:
            network = test_rewrite(network, name)
        return Derived(network, name, False, test, runtime_outputs(network))
    derived = derive(project, name)
    if derived is None:
        raise KeyError(f'no network "{name}" and no tab to derive it from')
    return derived


def derive(project: Project, name: str) -> Derived | None:
    """``<Net>Validation`` / ``<Net>Runtime`` derived from tab ``<Net>``, or None."""
    base = _base_of(project, name)
    if base is None:
        return None
    validation = test_rewrite(project.network(base), name)
    if name.endswith("Validation"):
        return Derived(validation, base, True, True, runtime_outputs(validation))
    runtime, outputs = _without_losses(validation)
    return Derived(runtime, base, True, True, outputs)


def modifies_for_testing(network: Network) -> bool:
    """A drawn network is rewritten for testing only with TestNetwork ModifyForTesting=True."""
    return any(
        layer.type == "TestNetwork" and layer.properties.get("ModifyForTesting", "True") == "True"
        for layer in network.layers
    )


def test_rewrite(network: Network, name: str | None = None) -> Network:
    """The network rewritten for testing: SkipAtTest layers bypassed, ``-test=`` values forced."""
    skipped = {layer.name for layer in network.layers if _skips_at_test(layer)}
    layers = [_forced(layer) for layer in network.layers if layer.name not in skipped]
    links = _bypass(network, skipped)
    return Network(name or network.name, layers, links)


test_rewrite.__test__ = False  # type: ignore[attr-defined]  # not a pytest test when imported


def _skips_at_test(layer: Layer) -> bool:
    spec = find_spec(layer.type)
    if spec is None or not spec.has_skip_at_test:
        return False
    prop = spec.prop("SkipAtTest")
    raw = layer.properties.get("SkipAtTest")
    if raw is None:
        raw = next((layer.properties[n] for n in prop.legacy_names if n in layer.properties), None)  # type: ignore[union-attr]
    return (prop.default if raw is None else raw) == "True"  # type: ignore[union-attr]


def _forced(layer: Layer) -> Layer:
    spec = find_spec(layer.type)
    if spec is None:
        return layer
    forced = {
        p.name: "True" if p.argument.test_value else "False"
        for p in spec.properties
        if p.argument is not None and p.argument.test_value is not None
    }
    if not forced:
        return layer
    return replace(layer, properties={**layer.properties, **forced})


def _bypass(network: Network, skipped: set[str]) -> list[Link]:
    """Links with each skipped layer removed and its (first) main input wired to its consumers."""
    source_of: dict[str, str] = {}
    for link in network.links:
        if link.destination in skipped and link.dest_pin == 0:
            source_of.setdefault(link.destination, link.source)
    links = []
    for link in network.links:
        if link.destination in skipped:
            continue
        source = link.source
        while source in skipped:  # chains of skipped layers (Dropout -> RandomFlip -> ...)
            if source not in source_of:
                break
            source = source_of[source]
        if source in skipped:
            continue  # a skipped layer without input: its consumers lose the link
        links.append(replace(link, source=source, id=None))
    return links


def _without_losses(network: Network) -> tuple[Network, tuple[tuple[str, str], ...]]:
    """Removes loss-type layers; their main inputs become ``<T.Dataset>'`` outputs."""
    losses = {layer.name: layer for layer in network.layers if _is_loss(layer)}
    outputs: list[tuple[str, str]] = []
    for link in network.links:
        if link.destination in losses and link.dest_pin == 0:
            loss = losses[link.destination]
            outputs.append((_label_name(loss) + "'", link.source))
    kept_links = [k for k in network.links if k.destination not in losses]
    # Layers that only fed a loss's side input (the label Input) go with it.
    feeds_only_losses = {
        layer.name
        for layer in network.layers
        if layer.name not in losses
        and network.outputs_of(layer.name)
        and all(k.destination in losses and k.dest_pin > 0 for k in network.outputs_of(layer.name))
    }
    removed = set(losses) | feeds_only_losses
    layers = [layer for layer in network.layers if layer.name not in removed]
    links = [k for k in kept_links if k.source not in removed]
    return Network(network.name, layers, links), tuple(outputs)


def has_loss(network: Network) -> bool:
    """Whether a drawn network holds a loss-type layer (a training network)."""
    return any(_is_loss(layer) for layer in network.layers)


def _is_loss(layer: Layer) -> bool:
    spec = find_spec(layer.type)
    return spec is not None and spec.is_loss


def _label_name(loss: Layer) -> str:
    """The dataset variable of a loss's first data side input (``T.Dataset``, ``q.Dataset``)."""
    spec = find_spec(loss.type)
    connector = next((c for c in spec.connectors if c.kind.value == "Data"), None)  # type: ignore[union-attr]
    if connector is None:
        return loss.name
    key = f"{connector.name}.Dataset"
    value = loss.properties.get(key, spec.defaults().get(key, ""))  # type: ignore[union-attr]
    return value or loss.name


def runtime_outputs(network: Network) -> tuple[tuple[str, str], ...]:
    """A drawn network's outputs: every terminal layer, named after the layer (§3.2)."""
    consumers = {link.source for link in network.links}
    outputs = []
    for layer in network.layers:
        spec = find_spec(layer.type)
        if layer.name in consumers or spec is None or spec.output_rule is None:
            continue
        outputs.append((layer.name, layer.name))
    return tuple(outputs)
