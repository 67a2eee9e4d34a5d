"""Auto-arrange: top-to-bottom rows by dependency, one undo step."""

from __future__ import annotations

import pytest
from nnc_samples import SAMPLES_DIR

from console_app.editor.arrange import COLUMN, ROW, arrange_positions
from engine.formats import load_project

SAMPLES = SAMPLES_DIR


def test_chain_becomes_one_column_and_branches_fan_out():
    project = load_project(SAMPLES / "tutorial" / "basics" / "12_residual_learning.sdcproj")
    network = project.networks[0]
    positions = arrange_positions(network)
    assert set(positions) == set(network.layer_names)
    assert len(set(positions.values())) == len(positions)  # no two boxes on one spot
    for link in network.links:  # every link goes down
        assert positions[link.destination][1] > positions[link.source][1]
    input_x = positions["Input"][0]
    assert input_x == 24 and (positions["Input"][1] - 24) % ROW == 0
    assert all((x - 24) % COLUMN == 0 for x, _ in positions.values())


@pytest.mark.gui
def test_arrange_is_one_undo_step(lenet_window):
    window = lenet_window
    net = window.document.project.network("Main")
    from engine.graph import commands as C

    window.document.push(C.MoveLayers(net, {"ReLU": (500, 500), "Affine": (0, 900)}))
    before = {layer.name: layer.position for layer in net.layers}
    window.arrange()
    after = {layer.name: layer.position for layer in net.layers}
    chain, name = [], "Input"
    while True:
        chain.append(name)
        outputs = net.outputs_of(name)
        if not outputs:
            break
        name = outputs[0].destination
    assert len(chain) == len(net.layers)
    assert after == {name: (24, 24 + 48 * i) for i, name in enumerate(chain)}
    assert window.document.stack.undo_text() == "Arrange Layers"
    window.undo()
    assert {layer.name: layer.position for layer in net.layers} == before
