"""Run a project's executor network on given inputs with given parameters (import tests)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import engine.nn as nn
from engine.core.autograd import Variable
from engine.graph.network import Link
from engine.runtime.compiler import compile_network

ROOT = Path(__file__).resolve().parents[1]
PROJECTS = sorted((ROOT / "projects").glob("*.ncproj"))
RECURRENT = {"elman_4or9", "elman_bit_majority", "gru_4or9", "lstm_4or9", "lstm_layer_digits"}


def randomized(program, seed: int = 0) -> dict[str, np.ndarray]:
    """Initial parameters with random normalization statistics (so they are really used)."""
    rng = np.random.default_rng(seed)
    with nn.parameter_scope("", {}):
        nn.seed(seed)
        values = {k: np.array(v.data) for k, v in program.create_parameters().items()}
    for name, value in values.items():
        if name.endswith(("/mean", "/beta", "/gamma")):
            value[...] = rng.normal(0, 0.3, value.shape)
        elif name.endswith("/var"):
            value[...] = rng.uniform(0.5, 1.5, value.shape)
    return values


def outputs(project, network: str, values: dict, inputs: dict, test_mode: bool | None = None
            ) -> list[np.ndarray]:  # fmt: skip
    """The program's outputs, in order, under a private parameter scope and a fixed seed
    (``test_mode``: as :func:`compile_network`)."""
    program = compile_network(project, network, test_mode=test_mode)
    with nn.parameter_scope("", {}):
        for name, value in values.items():
            nn.set_parameter(name, Variable(np.asarray(value, np.float32), need_grad=True))
        params = program.create_parameters()
        nn.seed(0)  # Dropout in a drawn runtime network draws the same masks on both sides
        with nn.no_grad():
            acts = program.forward(inputs, params)
        return [np.array(program.output(acts, name).data) for name, _ in program.outputs]


def sample_inputs(program, seed: int = 1, batch: int = 3) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {v: rng.random((batch, *s)).astype(np.float32) for v, s in program.feeds.items()}


def save(values: dict, path: Path) -> Path:
    nn.save_parameters(path, {k: Variable(np.asarray(v)) for k, v in values.items()})
    return path


def working_memory_project(path: Path):
    """iris with NNC's two WorkingMemory forms: ``mem`` read without input (added to the
    input, so its value matters) and ``hidden`` storing the hidden layer and passing it on."""
    from engine.formats import load_project

    project = load_project(path)
    net = project.network("Main")
    size = net.layer("Affine").properties["OutShape"]
    for name, layer_type, props in (("mem", "WorkingMemory", {"Size": "4"}), ("Add2", "Add2", {}),
                                    ("hidden", "WorkingMemory", {"Size": size})):  # fmt: skip
        layer = net.new_layer(layer_type, name=name)
        net.add_layer(layer.__class__(name, layer_type, {**layer.properties, **props}))
    for link in [k for k in net.links if (k.source, k.destination) in
                 {("Input", "Affine"), ("ReLU", "Affine_2")}]:  # fmt: skip
        net.disconnect(link)
    for source, destination in (("Input", "Add2"), ("mem", "Add2"), ("Add2", "Affine"),
                                ("ReLU", "hidden"), ("hidden", "Affine_2")):  # fmt: skip
        net.connect(Link(source, destination))
    return project


def nested_loops_project():
    """Nested repeat blocks around an Affine, then a recurrent loop with a Delay inside the
    outer block: every iteration of ``Outer`` runs its own copy of the loop (own weights)."""
    import runtime_kit as kit

    layers = [
        kit.layer("x", "Input", Size=(4, 6), Dataset="x"),
        kit.layer("Outer", "RepeatStart", Times=2),
        kit.layer("Inner", "RepeatStart", Times=2),
        kit.layer("Affine", "Affine", OutShape=(4, 6)),
        kit.layer("InnerEnd", "RepeatEnd"),
        kit.layer("Steps", "RecurrentInput", Axis=0),
        kit.layer("Delay", "Delay", Size=(6,), Initial__GeneratorMultiplier=0.5),
        kit.layer("Concatenate", "Concatenate", Axis=0),
        kit.layer("Affine_2", "Affine", OutShape=6),
        kit.layer("Tanh", "Tanh"),
        kit.layer("StepsEnd", "RecurrentOutput", Axis=0),
        kit.layer("OuterEnd", "RepeatEnd"),
        kit.layer("SquaredError", "SquaredError", T__Dataset="x"),
    ]
    links = [
        *kit.chain("x", "Outer", "Inner", "Affine", "InnerEnd", "Steps", "Concatenate"),
        Link("Delay", "Concatenate"),
        *kit.chain("Concatenate", "Affine_2", "Tanh", "StepsEnd", "OuterEnd", "SquaredError"),
        Link("Tanh", "Delay"),
    ]
    return kit.make_project([kit.network("Main", layers, links)])
