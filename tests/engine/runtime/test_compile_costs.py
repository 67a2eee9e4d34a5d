"""Compiling a network infers shapes without the layers' cost statistics (parameters, FLOPs...,
about a quarter of compiling LeNet): the programs are the ones compiled with them, for every
network of the sample projects and of NNC's samples (units, loops, repeats among them)."""

from __future__ import annotations

from pathlib import Path

import pytest
from nnc_samples import ALL_SAMPLES

from engine.formats import load_project
from engine.graph import infer
from engine.layers.evaluate import LayerEval
from engine.runtime import compiler

PROJECTS = sorted((Path(__file__).resolve().parents[3] / "projects").glob("*.ncproj"))


def _compiled(project, name):
    try:
        return compiler.compile_network(project, name)
    except compiler.CompileError as exc:
        return str(exc)


def test_compiling_evaluates_no_cost_rule(monkeypatch):
    def refuse(self, name):
        raise AssertionError(f"cost {name} of {self.name} evaluated")

    monkeypatch.setattr(LayerEval, "cost", refuse)
    for path in PROJECTS:
        project = load_project(path)
        for name in project.network_names:
            assert not isinstance(_compiled(project, name), str), (path.name, name)


@pytest.mark.parametrize("path", PROJECTS + ALL_SAMPLES, ids=lambda p: p.name)
def test_programs_are_those_compiled_with_costs(path, monkeypatch):
    project = load_project(path)
    names = project.network_names
    without = [_compiled(project, name) for name in names]
    with_costs = infer.UnitCache
    monkeypatch.setattr(compiler, "UnitCache", lambda p, costs: with_costs(p, costs=True))
    assert [_compiled(project, name) for name in names] == without
