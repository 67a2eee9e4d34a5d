"""NNC's structure-search mutations (docs/nnc-behaviour.md §9.2), one function per rule.

A rule takes the network to change and a random generator, picks one place where it fits, changes
the network in place and returns a :class:`Mutation` saying what it did, or ``None`` when the
network has no such place. Rules do not check that the result is sound: the candidate builder
(:mod:`engine.search.candidate`) infers shapes and validates every result and retries on failure,
so a rule may propose, for example, a pooling layer after an Affine.

The searchable properties are the catalogue's ``search=True`` properties (SearchParameter=True in
NNC's layer files); the swaps are its ``[Compatible]`` groups (:mod:`engine.layers.compatible`).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace

from engine.graph import nesting
from engine.graph.network import Layer, Link, Network
from engine.graph.project import Project
from engine.layers import find_spec
from engine.layers.compatible import compatible_with
from engine.search import edit
from engine.search.values import argument_sites, new_value

__all__ = ["Mutation", "RULES", "mutate", "searchable_networks", "NothingToSearch"]

ACTIVATIONS_REMOVED = ("Tanh", "ReLU", "ELU", "Abs")
ACTIVATIONS_INSERTED = ("Tanh", "ReLU", "PReLU", "LeakyReLU", "ELU", "SELU", "Swish")
POOLINGS = ("MaxPooling", "AveragePooling", "SumPooling")
BASIC = ("Convolution", "DepthwiseConvolution", "Affine")
# Layers that belong to a basic layer and go with it (RemoveLayers): observed removals were
# Convolution+Tanh+Dropout and Affine+ReLU.
_FOLLOWERS = (*ACTIVATIONS_INSERTED, "Abs", "Dropout", "BatchNormalization")
# Joins whose inputs are branches (RemoveBranch).
_JOINS = ("Add2", "Mul2", "Concatenate", "Add", "Mul")


class NothingToSearch(ValueError):
    """The project has no network the search may change."""


@dataclass(frozen=True)
class Mutation:
    rule: str
    network: str
    layer: str
    detail: str

    def __str__(self) -> str:
        return f'{self.rule}: network "{self.network}", layer "{self.layer}": {self.detail}'


Rule = Callable[[Project, Network, random.Random], Mutation | None]


def searchable_networks(project: Project) -> list[str]:
    """The networks the optimizers train, minus those with a StructureSearch layer Search=False."""
    names = []
    for opt in project.optimizers:
        if opt.network in names or not project.has_network(opt.network):
            continue
        network = project.network(opt.network)
        if any(
            layer.type == "StructureSearch" and layer.properties.get("Search", "True") == "False"
            for layer in network.layers
        ):
            continue
        names.append(opt.network)
    return names


def mutate(project: Project, rng: random.Random, rules: dict[str, Rule] | None = None) -> Mutation:
    """Apply one randomly chosen rule that fits somewhere; raises NothingToSearch if none does."""
    networks = searchable_networks(project)
    if not networks:
        raise NothingToSearch(
            "no network to search: the optimizers' networks are missing or carry a "
            "StructureSearch layer with Search=False"
        )
    order = list((rules or RULES).items())
    rng.shuffle(order)
    for _, rule in order:
        network = project.network(rng.choice(networks))
        done = rule(project, network, rng)
        if done is not None:
            return done
    raise NothingToSearch(f'network "{networks[0]}": no mutation rule fits (nothing searchable)')


# -- helpers -------------------------------------------------------------------------------------
def _of_type(network: Network, types: tuple[str, ...]) -> list[Layer]:
    return [layer for layer in network.layers if layer.type in types]


def _new(network: Network, type_: str, **props: str) -> Layer:
    layer = network.new_layer(type_)
    return replace(layer, properties={**layer.properties, **props})


def _remove_rule(rule: str, types: tuple[str, ...]) -> Rule:
    def apply(project: Project, network: Network, rng: random.Random) -> Mutation | None:
        sites = [x for x in _of_type(network, types) if edit.sole_input(network, x.name)]
        if not sites:
            return None
        layer = rng.choice(sites)
        edit.remove_through(network, layer.name)
        return Mutation(rule, network.name, layer.name, f"removed {layer.type}")

    return apply


def _insert_rule(rule: str, make: Callable[[Network, Layer, random.Random], list[Layer]]) -> Rule:
    types = ("Convolution", "DepthwiseConvolution") if rule == "InsertConvolution" else BASIC
    if rule == "InsertAffine":
        types = ("Affine",)

    def apply(project: Project, network: Network, rng: random.Random) -> Mutation | None:
        sites = _of_type(network, types)
        if not sites:
            return None
        layer = rng.choice(sites)
        added = edit.insert_after(network, layer.name, make(network, layer, rng))
        kinds = " + ".join(network.layer(n).type for n in added)
        return Mutation(rule, network.name, layer.name, f"inserted {kinds} after it")

    return apply


def _activation(network: Network, rng: random.Random) -> Layer:
    return network.new_layer(rng.choice(ACTIVATIONS_INSERTED))


def _pooling(network: Network, layer: Layer, rng: random.Random) -> list[Layer]:
    return [network.new_layer(rng.choice(("MaxPooling", "AveragePooling")))]


def _smaller_affine(network: Network, layer: Layer, rng: random.Random) -> list[Layer]:
    """An activation, then an Affine smaller than this one (NNC's ``*SmallerAffine``)."""
    out = layer.properties.get("OutShape", "100")
    width = int(out) if out.isdigit() else 100
    smaller = max(1, round(width * 2 ** -rng.uniform(0.5, 1.5)))
    return [_activation(network, rng), _new(network, "Affine", OutShape=str(smaller))]


def _convolution(network: Network, layer: Layer, rng: random.Random) -> list[Layer]:
    """BatchNormalization, an activation, then a 3x3 same-size (depthwise) convolution."""
    if rng.random() < 0.5:
        conv = _new(network, "DepthwiseConvolution", KernelShape="3,3", Padding="1,1")
    else:
        maps = layer.properties.get("OutMaps", "16")
        conv = _new(network, "Convolution", OutMaps=maps if maps.isdigit() else "16",
                    KernelShape="3,3", Padding="1,1")  # fmt: skip
    return [network.new_layer("BatchNormalization"), _activation(network, rng), conv]


def remove_basic_layer(project: Project, network: Network, rng: random.Random) -> Mutation | None:
    """RemoveBasicLayer: a Convolution/Affine together with the activation, Dropout and
    BatchNormalization layers that follow it in a chain."""
    sites = [x for x in _of_type(network, BASIC) if edit.sole_input(network, x.name)]
    if not sites:
        return None
    layer = rng.choice(sites)
    chain = [layer.name]
    while True:
        outs = network.outputs_of(chain[-1])
        if len(outs) != 1 or network.layer(outs[0].destination).type not in _FOLLOWERS:
            break
        chain.append(outs[0].destination)
    for name in reversed(chain):
        edit.remove_through(network, name)
    return Mutation("RemoveBasicLayer", network.name, layer.name, f"removed {' + '.join(chain)}")


def remove_branch(project: Project, network: Network, rng: random.Random) -> Mutation | None:
    """RemoveBranch: drop one input of a join and the layers only that branch uses; a join left
    with one input is removed and wired through."""
    sites = [x for x in _of_type(network, _JOINS) if len(network.inputs_of(x.name)) >= 2]
    if not sites:
        return None
    join = rng.choice(sites)
    links = network.inputs_of(join.name)
    cut = rng.choice(links)
    keep = [k for k in links if k is not cut]
    up = nesting.adjacency(network)[1]
    shared = set().union(*(nesting.reach(k.source, up) for k in keep))
    branch = nesting.reach(cut.source, up) - shared
    # Only layers whose every consumer is inside the branch (or the join) go.
    changed = True
    while changed:
        changed = False
        for name in list(branch):
            if any(o.destination not in branch | {join.name} for o in network.outputs_of(name)):
                branch.discard(name)
                changed = True
    network.disconnect(cut)
    for name in branch:
        network.remove_layer(name)
    if len(keep) == 1 and join.type in ("Add2", "Mul2"):
        edit.remove_through(network, join.name)
    removed = ", ".join(sorted(branch)) or "a skip link"
    return Mutation("RemoveBranch", network.name, join.name, f"removed branch {removed}")


def branch(project: Project, network: Network, rng: random.Random) -> Mutation | None:
    """Branch: a copy of a convolution beside it on the same input, the two summed by Add2."""
    sites = [x for x in _of_type(network, BASIC[:2]) if edit.sole_input(network, x.name)]
    if not sites:
        return None
    layer = rng.choice(sites)
    source = edit.sole_input(network, layer.name)
    assert source is not None
    x, y = layer.position
    twin = network.add_layer(replace(layer, name=network.unique_name(layer.name), id=None,
                                     position=(x + 264, y)))  # fmt: skip
    network.connect(Link(source.source, twin.name, 0, source.source_pin))
    (add,) = edit.insert_after(network, layer.name, [network.new_layer("Add2")])
    network.connect(Link(twin.name, add))  # Add2 takes both inputs on pin 0
    return Mutation("Branch", network.name, layer.name, f"added {twin.name} beside it, summed")


def swap(project: Project, network: Network, rng: random.Random) -> Mutation | None:
    """Swap a layer for another of its [Compatible] group; shared property values carry over."""
    sites = [x for x in network.layers if compatible_with(x.type)]
    if not sites:
        return None
    layer = rng.choice(sites)
    new_type = rng.choice(compatible_with(layer.type))
    fresh = network.new_layer(new_type)
    spec = find_spec(new_type)
    props = dict(fresh.properties)
    for key, value in layer.properties.items():
        if key in props and spec is not None and (p := spec.prop(key)) and p.editable:
            props[key] = value
    links_in, links_out = network.inputs_of(layer.name), network.outputs_of(layer.name)
    index = network.index_of(layer.name)
    network.remove_layer(layer.name)
    new = network.add_layer(replace(fresh, properties=props, position=layer.position), index)
    for k in links_in:
        network.connect(replace(k, destination=new.name, id=None))
    for k in links_out:
        network.connect(replace(k, source=new.name, id=None))
    return Mutation("Swap", network.name, layer.name, f"{layer.type} -> {new_type} ({new.name})")


def mutate_property(project: Project, network: Network, rng: random.Random) -> Mutation | None:
    """Change one literal property that the catalogue marks searchable, or one Argument with
    Search=True (the Unit layer's value when it sets one, else the Argument's default)."""

    sites: list[tuple[Network, str, str, str]] = []  # network, layer, property, type name
    for layer in network.layers:
        spec = find_spec(layer.type)
        for prop in spec.properties if spec else ():
            value = layer.properties.get(prop.name, prop.default)
            if prop.search and _literal(value):
                sites.append((network, layer.name, prop.name, prop.type.name))
    sites += argument_sites(project, network)
    rng.shuffle(sites)
    for net, name, key, type_name in sites:
        old = _current(net.layer(name), key)
        value = new_value(old, type_name, key, rng)
        if value is not None and value != old:
            net.set_property(name, key, value)
            return Mutation("Property", net.name, name, f"{key} {old} -> {value}")
    return None


def _current(layer: Layer, key: str) -> str:
    if key in layer.properties:
        return layer.properties[key]
    spec = find_spec(layer.type)
    prop = spec.prop(key) if spec else None
    return prop.default if prop else ""


def _literal(value: str) -> bool:
    """Numbers only: macros (``*Name``) and expressions (``Input[0]/2``) are left alone."""
    return bool(value) and all(c.isdigit() or c in ",.-e" for c in value)


RULES: dict[str, Rule] = {
    "Property": mutate_property,
    "RemoveActivation": _remove_rule("RemoveActivation", ACTIVATIONS_REMOVED),
    "RemovePooling": _remove_rule("RemovePooling", POOLINGS),
    "RemoveDropout": _remove_rule("RemoveDropout", ("Dropout",)),
    "RemoveBatchNormalization": _remove_rule("RemoveBatchNormalization", ("BatchNormalization",)),
    "InsertActivation": _insert_rule("InsertActivation", lambda n, x, r: [_activation(n, r)]),
    "InsertPooling": _insert_rule("InsertPooling", _pooling),
    "InsertDropout": _insert_rule("InsertDropout", lambda n, x, r: [n.new_layer("Dropout")]),
    "InsertBatchNormalization": _insert_rule(
        "InsertBatchNormalization", lambda n, x, r: [n.new_layer("BatchNormalization")]
    ),
    "InsertAffine": _insert_rule("InsertAffine", _smaller_affine),
    "InsertConvolution": _insert_rule("InsertConvolution", _convolution),
    "RemoveBasicLayer": remove_basic_layer,
    "RemoveBranch": remove_branch,
    "Branch": branch,
    "Swap": swap,
}
