"""Benchmark: shapes + statistics of NNC's densenet-161 sample, full and after one edit.

Times (best of rounds, milliseconds):

* parse       reading the .sdcproj (the reference the other timings are divided by)
* full        shapes and the eight statistics of all 6 networks from scratch (82 Unit layers
              expanded, with per-network totals, unique parameters and FLOPs)
* edit/tail   one property edit near the output (Affine OutShape) + everything re-queried
* edit/head   one property edit near the input (first Convolution OutMaps): most layers redo
* edit/unit   one property edit inside the ConvUnit network that 78 Unit layers call: every
              expansion (156: BatchStat True and False) redoes the edited layer and what reads
              it; layers fed alike in several expansions are computed once; the Unit layers
              redo their statistics, and their readers only if the unit's output changed

Edits use values never used before (cold); the time to toggle back to a value whose unit
expansions are cached is printed beside. ``--clock cpu`` measures process CPU time, steadier
than wall time when other processes share the machine.

Targets from issue #3: full < 1 s, one incremental property edit < 50 ms.

    python tests/benchmarks/bench_model.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from engine.formats import load_project
from engine.graph.project_inference import ProjectInference
from engine.graph.statistics import network_statistics

SAMPLE = (
    Path(__file__).resolve().parents[1]
    / "fixtures/nnc-samples/image_recognition/ILSVRC2012/densenet/densenet-161.sdcproj"
)


_clock = time.perf_counter


def best(fn, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = _clock()
        fn()
        times.append(_clock() - start)
    return min(times) * 1000


def everything(inference: ProjectInference) -> int:
    """Query every network's statistics (what the statistics pane and `cost` need)."""
    return sum(network_statistics(n).totals["CostMultiplyAdd"] for n in inference.all().values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--project", type=Path, default=SAMPLE)
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    args = parser.parse_args()
    global _clock
    _clock = time.process_time if args.clock == "cpu" else time.perf_counter

    parse_ms = best(lambda: load_project(args.project), args.rounds)
    project = load_project(args.project)
    layers = sum(len(n.layers) for n in project.networks)
    full_ms = best(lambda: everything(ProjectInference(project, follow=False)), args.rounds)

    inference = ProjectInference(project)
    everything(inference)
    main_net = project.network("DenseNet")
    conv = next(layer.name for layer in main_net.layers if layer.type == "Convolution")
    affine = next(layer.name for layer in main_net.layers if layer.type == "Affine")
    unit_conv = next(
        layer.name for layer in project.network("ConvUnit").layers if layer.type == "Convolution"
    )

    def edit(network: str, layer: str, key: str, start: int) -> tuple[float, float]:
        """(cold, warm) ms: a value never used before, then the best of toggling two values
        (whose unit expansions the cache already holds)."""
        cold = []
        for i in range(1, args.rounds + 1):
            begin = _clock()
            project.network(network).set_property(layer, key, str(start - i))
            everything(inference)
            cold.append((_clock() - begin) * 1000)
        state = {"i": 0}

        def toggle() -> None:
            state["i"] ^= 1
            project.network(network).set_property(layer, key, str(start - state["i"]))
            everything(inference)

        return sum(cold) / len(cold), best(toggle, args.rounds)

    tail = edit("DenseNet", affine, "OutShape", 1000)
    head = edit("DenseNet", conv, "OutMaps", 96)
    unit = edit("ConvUnit", unit_conv, "OutMaps", 48)

    print(f"{args.project.name}: {len(project.networks)} networks, {layers} layers in the file")
    print(f"  {'parse':<10}{parse_ms:9.1f} ms   (reference)")
    print(f"  {'full':<10}{full_ms:9.1f} ms   {full_ms / parse_ms:6.2f} x parse")
    for label, (cold, warm) in (("edit/tail", tail), ("edit/head", head), ("edit/unit", unit)):
        print(
            f"  {label:<10}{cold:9.1f} ms   {cold / parse_ms:6.2f} x parse   "
            f"(again with a cached value: {warm:.1f} ms)"
        )


if __name__ == "__main__":
    main()
