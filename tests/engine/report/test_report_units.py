"""Units in the report and on the boxes (issue 35, item 5): a Unit layer's box shows the values
of its unit's arguments, and the report shows each unit's inside once, with its layers' papers
among the References."""

from __future__ import annotations

from pptx import Presentation
from pptx_kit import slide, texts, titles

import engine.nn as nn
from engine.formats import load_project, save_project
from engine.graph.network import Layer, Link
from engine.layers import find_spec
from engine.report.job_report import write_report
from engine.report.layout import important_text, unit_arguments
from engine.runtime.run import train

from .conftest import ROOT, _subset

RESIDUAL = ROOT / "projects" / "residual_digits.ncproj"


def test_a_unit_layers_box_shows_its_arguments():
    project = load_project(RESIDUAL)
    main = project.network("Main")
    res1 = main.layer("Res1")
    assert unit_arguments(project, res1) == {"Maps": "16"}
    shown = important_text(res1, find_spec("Unit"), unit_arguments(project, res1))
    assert shown.endswith("   Maps : 16") and "ResidualBlock" in shown
    main.set_property("Res1", "Maps", "32")
    assert important_text(res1 := main.layer("Res1"), find_spec("Unit"),
                          unit_arguments(project, res1)).endswith("Maps : 32")  # fmt: skip
    conv = next(layer for layer in main.layers if layer.type == "Convolution")
    assert unit_arguments(project, conv) == {}


def test_the_report_shows_each_unit_once_and_its_layers_references(tmp_path, monkeypatch):
    monkeypatch.setenv("NEUROCANVAS_CACHE", str(tmp_path / "cache"))
    project = load_project(RESIDUAL)
    for i, dataset in enumerate(project.datasets):
        subset = _subset(dataset.uri, tmp_path, tmp_path / "cache")
        project.replace_section(("datasets", i), dataset.with_value("URI", str(subset)))
    # A layer type only inside the unit, so its paper must come from the unit's inside.
    unit = project.network("ResidualBlock")
    relu = next(layer for layer in unit.layers if layer.type == "ReLU")
    _, index, links = unit.remove_layer(relu.name)
    unit.add_layer(Layer(relu.name, "ELU", {}, relu.position), index)
    for _, link in links:
        unit.connect(Link(link.source, link.destination, link.dest_pin))
    assert "ELU" not in {layer.type for layer in project.network("Main").layers}
    save_project(project, tmp_path / "residual.ncproj")
    nn.clear_parameters()
    assert train(tmp_path / "residual.ncproj", job_dir=tmp_path / "job", epochs=1,
                 seed=0).status == "finished"  # fmt: skip
    prs = Presentation(str(write_report(tmp_path / "job", tmp_path / "r.pptx")))
    names = titles(prs)
    assert names.count("Network Architecture : ResidualBlock (unit)") == 1
    assert names.index("Network Architecture : Main") < names.index(
        "Network Architecture : ResidualBlock (unit)"
    )
    unit_slide = slide(prs, "Network Architecture : ResidualBlock (unit)")
    assert any(shape.shape_type == 13 for shape in unit_slide.shapes)  # its picture
    references = [t for s in prs.slides if s.shapes.title.text.startswith("References")
                  for t in texts(s)]  # fmt: skip
    assert any(line.startswith("ELU - ") for line in references), references
