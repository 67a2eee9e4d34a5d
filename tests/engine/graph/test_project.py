"""The project model: edits, events, invariants and errors that name the place."""

import pytest

from engine.graph import config as cfg
from engine.graph.project import Layer, Link, ModelError, Network, Project, SdcprojHints


@pytest.fixture()
def project():
    project = Project.new()
    net = project.network("Main")
    net.add_layer(Layer("Input", "Input", {"Size": "1,28,28"}, position=(24, 24)))
    net.add_layer(Layer("Affine", "Affine", {"OutShape": "10"}, position=(24, 72)))
    net.add_layer(Layer("Softmax", "Softmax", position=(24, 120)))
    net.connect(Link("Input", "Affine"))
    net.connect(Link("Affine", "Softmax"))
    return project


@pytest.fixture()
def log(project):
    events = []
    project.events.subscribe(events.append)
    return events


def test_networks_add_rename_remove_with_events(project, log):
    unit = Network("Unit", [Layer("Arg", "Argument")])
    project.add_network(unit, index=0)
    assert project.network_names == ("Unit", "Main")
    project.rename_network("Unit", "SE")
    unit.set_property("Arg", "Value", "4")  # network events reach the project's subscribers
    removed, index = project.remove_network("SE")
    assert (removed, index) == (unit, 0)
    removed.set_property("Arg", "Value", "5")  # detached: no event
    assert [e.kind for e in log] == [
        "network_added", "network_renamed", "property_changed", "network_removed",
    ]  # fmt: skip
    assert log[2].network == "SE"


def test_network_name_errors(project):
    with pytest.raises(ModelError, match='duplicate network name "Main"'):
        project.add_network(Network("Main"))
    project.add_network(Network("B"))
    with pytest.raises(ModelError, match='"Main" already exists'):
        project.rename_network("B", "Main")
    with pytest.raises(ModelError, match=r"one-line name without \[ \]. Received: 'B\]'"):
        project.rename_network("B", "B]")
    with pytest.raises(ModelError, match=r'no network "X" \(networks: Main, B\)'):
        project.network("X")


def test_new_project_has_nnc_defaults():
    project = Project.new()
    assert project.network_names == ("Main",)
    assert (project.config.max_epoch, project.config.batch_size) == (100, 64)
    assert project.config.precision == "Float"
    assert [d.name for d in project.datasets] == ["Training", "Validation"]
    assert [d.shuffle for d in project.datasets] == [True, False]
    assert project.main_dataset().name == "Training"
    opt = project.optimizers[0]
    assert (opt.name, opt.network, opt.dataset, opt.solver) == (
        "Optimizer",
        "Main",
        "Training",
        "Adam",
    )
    assert opt.solver_parameters == {
        "Alpha": "0.001",
        "Beta1": "0.9",
        "Beta2": "0.999",
        "Epsilon": "1e-08",
    }
    assert [(m.name, m.network, m.dataset) for m in project.monitors] == [
        ("train_error", "MainValidation", "Training"),
        ("valid_error", "MainValidation", "Validation"),
    ]
    ex = project.executors[0]
    assert (ex.network, ex.dataset, ex.num_evaluations, ex.repeat_evaluation_type) == (
        "MainRuntime", "Validation", 1, "mean",
    )  # fmt: skip
    assert project.structure_search.enabled is False


def test_settings_sections_replace_insert_remove(project, log):
    cfg_new = project.config.with_value("MaxEpoch", "20")
    old = project.replace_section("config", cfg_new)
    assert (old.max_epoch, project.config.max_epoch) == (100, 20)
    project.insert_item("monitors", 1, cfg.Monitor.new(Monitor_Name="extra"))
    assert [m.name for m in project.monitors] == ["train_error", "extra", "valid_error"]
    removed = project.remove_item("monitors", 1)
    assert removed.name == "extra"
    project.replace_section(("datasets", 1), project.datasets[1].with_value("URI", "v.csv"))
    assert project.datasets[1].uri == "v.csv"
    assert [e.kind for e in log] == [
        "section_changed",
        "item_inserted",
        "item_removed",
        "section_changed",
    ]
    assert log[3].where == ("datasets", 1)


def test_settings_errors_name_the_place(project):
    with pytest.raises(ModelError, match="expected GlobalConfig. Received: Engine"):
        project.replace_section("config", cfg.Engine())
    with pytest.raises(ModelError, match=r"optimizers: no item #3 \(there are 1\)"):
        project.section(("optimizers", 3))
    with pytest.raises(ModelError, match="no settings collection 'layers'"):
        project.insert_item("layers", 0, cfg.Monitor())
    with pytest.raises(ModelError, match=r"monitors: cannot insert at #5 \(there are 2\)"):
        project.insert_item("monitors", 5, cfg.Monitor())
    with pytest.raises(ModelError, match="monitors: expected Monitor"):
        project.insert_item("monitors", 0, cfg.Executor())


def test_description(project, log):
    assert project.set_description("two\nlines") == ""
    project.set_description("two\nlines")
    assert project.description == "two\nlines"
    assert [(e.kind, e.old, e.new) for e in log] == [("description_changed", "", "two\nlines")]


def test_equality_ignores_layout_hints_but_not_content(project):
    other = Project.new()
    assert other != project
    same = Project(
        [Network("Main", project.network("Main").layers, project.network("Main").links)],
        hints=SdcprojHints(newline="\n", bom=True),
        **{name: project.section(name) for name in cfg.SINGLETONS},
        **{name: getattr(project, name) for name in cfg.COLLECTIONS},
    )
    assert same == project
    same.network("Main").move_layer("Input", (0, 0))
    assert same != project
