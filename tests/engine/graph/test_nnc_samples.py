"""Every NNC sample project agrees with NNC: each network's eight statistics and every layer's
output shape.

tests/fixtures/nnc-sample-statistics.json holds NNC's own numbers for its 63 samples (184
networks): ``{sample: {network: {"statistics": {...}, "output_shapes": {layer: "C,H,W"}}}}``.
NNC writes ``""`` for a layer whose shape it cannot compute and ``null`` for a layer that has no
output (Comment, Argument). ``python tools/nnc_sample_diff.py`` prints what differs.
"""

import json
from pathlib import Path

import pytest
from nnc_samples import ALL_SAMPLES, SAMPLES_DIR

from engine.formats import load_project
from engine.graph.project_inference import ProjectInference
from engine.graph.statistics import network_statistics

REFERENCE = json.loads(
    (Path(__file__).resolve().parents[2] / "fixtures" / "nnc-sample-statistics.json").read_text()
)


def shape_text(result):
    if result.shape is not None:
        return ",".join(map(str, result.shape))
    return "" if result.error else None


def test_the_reference_covers_every_sample():
    assert sorted(REFERENCE) == sorted(p.relative_to(SAMPLES_DIR).as_posix() for p in ALL_SAMPLES)
    assert len(REFERENCE) == 63
    assert sum(len(networks) for networks in REFERENCE.values()) == 184


@pytest.mark.parametrize("sample", sorted(REFERENCE))
def test_sample_agrees_with_nnc(sample):
    project = load_project(SAMPLES_DIR / sample)
    inference = ProjectInference(project, follow=False)
    for network, nnc in REFERENCE[sample].items():
        network_inference = inference.network(network)
        stats = network_statistics(network_inference)
        assert stats.totals == nnc["statistics"], f'network "{network}"'
        shapes = {name: shape_text(r) for name, r in network_inference.results().items()}
        assert shapes == nnc["output_shapes"], f'network "{network}"'


def test_exact_counts_differ_from_nncs_only_by_float32_rounding():
    # alexnet: NNC shows 691,487,232; the layers add up to 691,487,264 (float32 spacing 64).
    project = load_project(SAMPLES_DIR / "image_recognition" / "ILSVRC2012" / "alexnet.sdcproj")
    stats = network_statistics(ProjectInference(project, follow=False).network("Training"))
    assert stats.totals["CostMultiplyAdd"] == 691487232
    assert stats.exact["CostMultiplyAdd"] == 691487264
    assert sum(layer["CostMultiplyAdd"] for layer in stats.layers.values()) == 691487264
