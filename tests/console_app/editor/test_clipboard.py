"""Copy and paste layers within and across networks."""

from __future__ import annotations

import pytest

from console_app.editor.clipboard import copy_layers, paste_layers
from engine.graph import commands as C
from engine.graph.project import ModelError, Network

pytestmark = pytest.mark.gui


def test_copy_paste_within_and_across_networks(lenet_window):
    window = lenet_window
    doc = window.document
    main = doc.project.network("Main")
    scene = window.edit_tab.current_scene()
    scene.select_layers(["Affine", "ReLU_2"])
    assert window.copy()
    pasted = window.paste()
    assert pasted == ["Affine_3", "ReLU_3"]
    assert scene.selected_layers() == ["Affine_3", "ReLU_3"]
    assert [(k.source, k.destination) for k in main.inputs_of("ReLU_3")] == [("Affine_3", "ReLU_3")]
    x, y = main.layer("Affine").position
    assert main.layer("Affine_3").position == (x + 48, y + 48)
    assert main.layer("Affine_3").properties == main.layer("Affine").properties
    assert doc.stack.undo_text() == "Paste"
    window.undo()
    assert not main.has_layer("Affine_3") and not main.has_layer("ReLU_3")

    doc.push(C.AddNetwork(doc.project, Network("Other")))
    window.edit_tab.show_network("Other")
    assert window.paste() == ["Affine", "ReLU_2"]
    other = doc.project.network("Other")
    assert other.layer("Affine").position == main.layer("Affine").position
    assert window.edit_tab.current_scene().layer_items["Affine"].error  # no input there


def test_cut_and_bad_clipboard_text(lenet_window):
    window = lenet_window
    main = window.document.project.network("Main")
    window.edit_tab.current_scene().select_layers(["Softmax"])
    window.cut()
    assert not main.has_layer("Softmax")
    assert window.paste() == ["Softmax"]
    with pytest.raises(ModelError, match="no layers"):
        paste_layers(window.document, main, '{"format": "something else"}')
    with pytest.raises(ModelError, match="no layers"):
        paste_layers(window.document, main, "not json at all")
    text = copy_layers(main, ["Input"])
    assert '"type": "Input"' in text
