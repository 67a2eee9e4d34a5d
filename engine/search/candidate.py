"""Candidates: a mutated copy of a parent project that is known to be sound before it trains.

A candidate is kept only when every shape infers, the project has no problem of severity
"error", the loss layers still receive inputs of the parent's shapes (a mutation must not
change the task, e.g. the number of classes), and its CostMultiplyAdd lies in the search's
range. Anything else is retried with another mutation and never trained.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from engine.formats import native
from engine.graph.project import Project
from engine.graph.project_inference import ProjectInference
from engine.graph.statistics import network_statistics
from engine.graph.validate import validate_project
from engine.layers import find_spec
from engine.search.mutations import Mutation, NothingToSearch, mutate, searchable_networks

__all__ = ["Candidate", "CandidateError", "copy_project", "describe", "propose"]


class CandidateError(ValueError):
    """No sound candidate could be built (the message says why)."""


@dataclass
class Candidate:
    project: Project
    mutation: Mutation | None
    cost: float  # CostMultiplyAdd of the trained network (NNC's float32 total)
    features: dict[str, float] = field(default_factory=dict)
    signature: tuple = ()  # loss layer -> input shapes: what must not change


def copy_project(project: Project) -> Project:
    """An independent copy (through the native format's plain data, no pickling)."""
    return native.from_dict(native.to_dict(project))


def describe(project: Project, problems_ok: bool = False) -> Candidate:
    """Statistics, features and the loss signature of a project; CandidateError if unsound."""
    networks = searchable_networks(project)
    if not networks:
        raise NothingToSearch(
            "no network to search: the optimizers' networks are missing or carry a "
            "StructureSearch layer with Search=False"
        )
    inference = ProjectInference(project, follow=False)
    try:
        errors = [p for p in validate_project(project, inference) if p.severity == "error"]
        if errors and not problems_ok:
            raise CandidateError(str(errors[0]))
        features: dict[str, float] = {}
        signature = []
        cost = 0.0
        for name in networks:
            net_inf = inference.network(name)
            stats = network_statistics(net_inf)
            cost += stats.totals["CostMultiplyAdd"]
            for key, value in stats.totals.items():
                features[key] = features.get(key, 0.0) + float(value)
            for layer in project.network(name).layers:
                spec = find_spec(layer.type)
                if spec is not None and spec.category == "Loss":
                    shapes = tuple(net_inf.shape(k.source) for k in
                                   project.network(name).inputs_of(layer.name))  # fmt: skip
                    signature.append((name, layer.name, shapes))
            counts = Counter(layer.type for layer in project.network(name).layers)
            for type_, count in counts.items():
                features[f"count:{type_}"] = features.get(f"count:{type_}", 0.0) + count
        return Candidate(project, None, cost, features, tuple(signature))
    finally:
        inference.close()


def propose(
    parent: Project,
    rng: random.Random,
    cost_range: tuple[float, float] = (-1, -1),
    tries: int = 50,
) -> Candidate:
    """A sound mutated copy of ``parent`` (one mutation), within ``cost_range`` (-1: unbounded).

    Raises CandidateError after ``tries`` unsound or out-of-range attempts.
    """
    base = describe(parent, problems_ok=True)
    last = "no attempt"
    for _ in range(tries):
        child = copy_project(parent)
        mutation = mutate(child, rng)
        try:
            found = describe(child)
        except CandidateError as exc:
            last = f"{mutation}: {exc}"
            continue
        if found.signature != base.signature:
            last = f"{mutation}: changes the loss layers' input shapes"
            continue
        if not in_range(found.cost, cost_range):
            last = f"{mutation}: CostMultiplyAdd {found.cost:,.0f} is outside the range"
            continue
        found.mutation = mutation
        return found
    raise CandidateError(f"no sound candidate in {tries} mutations (last: {last})")


def in_range(value: float, bounds: tuple[float, float]) -> bool:
    """NNC's ranges: -1 (or any negative number) leaves that side open."""
    low, high = bounds
    return (low < 0 or value >= low) and (high < 0 or value <= high)
