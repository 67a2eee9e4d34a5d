"""Small projects built in code and tiny numeric datasets on disk, shared by the runtime, CLI
and export tests (``import runtime_kit as kit``)."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from engine.formats import save_project
from engine.graph import config as cfg
from engine.graph.project import Layer, Link, Network, Project


def layer(name: str, type_: str, **props: object) -> Layer:
    """A layer; property values are written as NNC text (``True``, ``3,3``)."""
    return Layer(name, type_, {k.replace("__", "."): _text(v) for k, v in props.items()})


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, tuple):
        return ",".join(str(v) for v in value)
    return str(value)


def chain(*names: str) -> list[Link]:
    """Links from each layer to the next, into pin 0."""
    return [Link(a, b) for a, b in zip(names, names[1:], strict=False)]


def network(name: str, layers: list[Layer], links: list[Link]) -> Network:
    return Network(name, layers, links)


def make_project(
    networks: list[Network],
    *,
    train: Path | str = "",
    valid: Path | str = "",
    max_epoch: int = 2,
    batch: int = 8,
    monitor_interval: int = 10,
    save_best: bool = True,
    solver: str = "Adam",
    solver_parameters: dict[str, str] | None = None,
    optimizer: dict[str, str] | None = None,
) -> Project:
    """A project with NNC's default CONFIG (Main, MainValidation monitors, MainRuntime)."""
    settings = cfg.default_settings()
    settings["datasets"] = [
        cfg.Dataset.new(Name="Training", URI=str(train), Shuffle="1"),
        cfg.Dataset.new(Name="Validation", URI=str(valid), Shuffle="0"),
    ]
    settings["config"] = cfg.GlobalConfig.new(
        MaxEpoch=str(max_epoch), BatchSize=str(batch), MonitorInterval=str(monitor_interval),
        SaveBest="1" if save_best else "0",
    )  # fmt: skip
    opt = cfg.Optimizer.new(**(optimizer or {})).with_solver(solver, solver_parameters)
    settings["optimizers"] = [opt]
    return Project(networks, **settings)


def write_csv(path: Path, header: list[str], rows: list[list[object]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
    return path


def blobs(folder: Path, rows: int = 96, seed: int = 0) -> tuple[Path, Path]:
    """A separable 3-class problem with 4 features: x__0..x__3, y (class index)."""
    rng = np.random.default_rng(seed)
    centers = np.array([[0.2, 0.2, 0.8, 0.5], [0.8, 0.3, 0.2, 0.5], [0.5, 0.9, 0.5, 0.1]])
    header = ["x__0", "x__1", "x__2", "x__3", "y:label"]

    def make(n: int) -> list[list[object]]:
        labels = np.arange(n) % 3
        points = centers[labels] + rng.normal(0, 0.08, (n, 4))
        return [[f"{v:.4f}" for v in p] + [int(c)] for p, c in zip(points, labels, strict=True)]

    train = write_csv(folder / "train.csv", header, make(rows))
    valid = write_csv(folder / "valid.csv", header, make(rows // 2))
    return train, valid


def mlp_project(train: Path, valid: Path, **options: object) -> Project:
    """Input(4) -> Affine(8) -> ReLU -> Affine(3) -> Softmax -> CategoricalCrossEntropy."""
    layers = [
        layer("Input", "Input", Size=(4,), Dataset="x"),
        layer("Affine", "Affine", OutShape=8),
        layer("ReLU", "ReLU"),
        layer("Affine_2", "Affine", OutShape=3),
        layer("Softmax", "Softmax"),
        layer("CategoricalCrossEntropy", "CategoricalCrossEntropy", T__Dataset="y"),
    ]
    links = chain(*(item.name for item in layers))
    return make_project([network("Main", layers, links)], train=train, valid=valid, **options)  # type: ignore[arg-type]


def fan_out_project(folder: Path, depth: int, calls: int) -> Path:
    """Main calls unit U0; each Uk calls U(k+1) ``calls`` times; the last one holds an Affine.
    Expanded, Main would hold about calls**depth layers (a few KB of file)."""
    train_csv, valid_csv = blobs(folder, rows=24)
    main_net = mlp_project(train_csv, valid_csv).networks[0]
    layers = [layer(x.name, "Unit", Network="U0") if x.name == "ReLU" else x
              for x in main_net.layers]  # fmt: skip
    networks = [network("Main", layers, main_net.links)]
    for k in range(depth):
        names = ["Input", *(f"U{j}" for j in range(calls))]
        units = [layer(f"U{j}", "Unit", Network=f"U{k + 1}") for j in range(calls)]
        networks.append(network(f"U{k}", [layer("Input", "Input", Size=(8,)), *units],
                                    chain(*names)))  # fmt: skip
    last = [layer("Input", "Input", Size=(8,)), layer("Affine", "Affine", OutShape=8)]
    networks.append(network(f"U{depth}", last, chain("Input", "Affine")))
    path = folder / "fan.sdcproj"
    save_project(make_project(networks, train=train_csv, valid=valid_csv, batch=8), path)
    return path
