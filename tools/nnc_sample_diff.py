"""Print where NeuroCanvas's statistics and shapes differ from NNC's on NNC's own samples.

``python tools/nnc_sample_diff.py [SUBSTRING]``: for every sample in
tests/fixtures/nnc-samples (or those whose path contains SUBSTRING), compares each network's eight
statistics and every layer's output shape with NNC's numbers in
tests/fixtures/nnc-sample-statistics.json, prints one line per difference and a summary
(samples and networks that agree). tests/engine/graph/test_nnc_samples.py asserts the same.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "tests" / "fixtures" / "nnc-samples"
REFERENCE = ROOT / "tests" / "fixtures" / "nnc-sample-statistics.json"


def nnc_reference() -> dict[str, dict[str, dict]]:
    """{sample path: {network: {"statistics": {...}, "output_shapes": {layer: "C,H,W"}}}}."""
    return json.loads(REFERENCE.read_text(encoding="utf-8"))


def compare_sample(sample: str, expected: dict[str, dict]) -> dict[str, list[str]]:
    """Network -> the differences from NNC (an empty list where the network agrees)."""
    from engine.formats import load_project
    from engine.graph.infer import ProjectInference
    from engine.graph.statistics import network_statistics

    try:
        project = load_project(SAMPLES / sample)
    except Exception as exc:  # noqa: BLE001 - the script reports every failure and goes on
        return {name: [f"does not open: {exc}"] for name in expected}
    inference = ProjectInference(project, follow=False)
    found: dict[str, list[str]] = {}
    for name, nnc in expected.items():
        if not project.has_network(name):
            found[name] = ["no such network"]
            continue
        stats = network_statistics(inference.network(name))
        problems = [
            f"{key}: NNC {value:,}, ours {stats.totals.get(key, 0):,}"
            for key, value in nnc["statistics"].items()
            if stats.totals.get(key) != value
        ]
        results = inference.network(name).results()
        for layer, shape in nnc["output_shapes"].items():
            ours = _shape_text(results[layer]) if layer in results else "missing"
            if ours != shape:
                error = results[layer].error if layer in results else ""
                problems.append(f'layer "{layer}": NNC {shape!r}, ours {ours!r} {error or ""}')
        found[name] = problems
    return found


def _shape_text(result) -> str | None:  # noqa: ANN001 - an infer.LayerResult
    """A layer's shape as NNC's reference writes it: "C,H,W"; "" when it cannot be computed
    (NNC leaves the shape empty); None for a layer that has no output (Comment, Argument)."""
    if result.shape is not None:
        return ",".join(map(str, result.shape))
    return "" if result.error else None


def main(argv: list[str]) -> int:
    wanted = argv[0] if argv else ""
    reference = nnc_reference()
    samples_ok = networks_ok = networks = 0
    selected = [s for s in reference if wanted in s]
    for sample in selected:
        result = compare_sample(sample, reference[sample])
        networks += len(result)
        networks_ok += sum(not p for p in result.values())
        samples_ok += all(not p for p in result.values())
        for network, problems in result.items():
            for problem in problems:
                print(f'{sample} "{network}": {problem}')
    print(f"samples {samples_ok}/{len(selected)}, networks {networks_ok}/{networks} agree with NNC")
    return 0 if networks_ok == networks else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
