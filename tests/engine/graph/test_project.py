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


def test_layers_get_fresh_ids_and_keep_given_unique_ones():
    net = Network("N", [Layer("A", "Input", id=7), Layer("B", "ReLU"), Layer("C", "ReLU", id=7)])
    assert [la.id for la in net.layers] == [7, 8, 9]
    link = net.connect(Link("A", "B", id=3))
    assert link.id == 3
    assert net.connect(Link("B", "C")).id == 4


def test_add_layer_at_index_and_events(project, log):
    net = project.network("Main")
    layer = net.add_layer(Layer("ReLU", "ReLU"), index=1)
    assert net.layer_names == ("Input", "ReLU", "Affine", "Softmax")
    assert layer.id == 3
    assert [(e.kind, e.network, e.index) for e in log] == [("layer_added", "Main", 1)]
    assert log[0].layer == layer


def test_remove_layer_removes_its_links_and_reports_them(project, log):
    net = project.network("Main")
    layer, index, links = net.remove_layer("Affine")
    assert (layer.name, index) == ("Affine", 1)
    assert [(i, k.source, k.destination) for i, k in links] == [
        (0, "Input", "Affine"),
        (1, "Affine", "Softmax"),
    ]
    assert net.links == ()
    # links go first (highest index first), then the layer
    assert [(e.kind, getattr(e, "index", None)) for e in log] == [
        ("link_removed", 1),
        ("link_removed", 0),
        ("layer_removed", 1),
    ]


def test_rename_layer_updates_links_and_keeps_position(project, log):
    net = project.network("Main")
    net.rename_layer("Affine", "Fc")
    assert net.layer_names == ("Input", "Fc", "Softmax")
    assert [(k.source, k.destination) for k in net.links] == [("Input", "Fc"), ("Fc", "Softmax")]
    assert net.layer("Fc").properties == {"OutShape": "10"}
    assert [(e.kind, e.old, e.new) for e in log] == [("layer_renamed", "Affine", "Fc")]


@pytest.mark.parametrize("bad", ["Input", "", "  ", "a\nb"])
def test_rename_rejects_taken_or_empty_names(project, bad):
    with pytest.raises(ModelError, match='network "Main"'):
        project.network("Main").rename_layer("Affine", bad)
    assert project.network("Main").has_layer("Affine")


def test_set_property_and_removal_emit_old_and_new(project, log):
    net = project.network("Main")
    assert net.set_property("Affine", "OutShape", "5") == "10"
    assert net.set_property("Affine", "WithBias", "False") is None
    assert net.set_property("Affine", "OutShape", None) == "5"
    assert net.set_property("Affine", "WithBias", "False") == "False"  # unchanged: no event
    assert net.layer("Affine").properties == {"WithBias": "False"}
    assert [(e.key, e.old, e.new) for e in log] == [
        ("OutShape", "10", "5"),
        ("WithBias", None, "False"),
        ("OutShape", "5", None),
    ]


def test_set_property_rejects_name_and_non_strings(project):
    net = project.network("Main")
    with pytest.raises(ModelError, match="renaming"):
        net.set_property("Affine", "Name", "X")
    with pytest.raises(ModelError, match=r'layer "Affine", property OutShape: expected a string'):
        net.set_property("Affine", "OutShape", 10)
    with pytest.raises(ModelError, match='no layer "Nope"'):
        net.set_property("Nope", "OutShape", "1")


def test_move_layer(project, log):
    net = project.network("Main")
    assert net.move_layer("Softmax", (48, 168)) == (24, 120)
    assert net.move_layer("Softmax", (48, 168)) == (48, 168)
    assert net.layer("Softmax").position == (48, 168)
    assert [(e.kind, e.old, e.new) for e in log] == [("layer_moved", (24, 120), (48, 168))]


def test_connect_order_and_inputs_of(project):
    net = project.network("Main")
    net.add_layer(Layer("Concat", "Concatenate"))
    net.connect(Link("Softmax", "Concat"))
    net.connect(Link("Input", "Concat"), index=0)
    assert [k.source for k in net.inputs_of("Concat")] == ["Input", "Softmax"]
    assert [k.destination for k in net.outputs_of("Input")] == ["Concat", "Affine"]


def test_connect_checks_layers_and_pins(project):
    net = project.network("Main")
    with pytest.raises(ModelError, match='names a missing layer "Ghost"'):
        net.connect(Link("Ghost", "Affine"))
    with pytest.raises(ModelError, match="negative pin"):
        net.connect(Link("Input", "Affine", dest_pin=-1))


def test_disconnect_by_value_or_index(project, log):
    net = project.network("Main")
    link = net.links[1]
    assert net.disconnect(link) == (link, 1)
    assert net.disconnect(0)[1] == 0
    assert net.links == ()
    with pytest.raises(ModelError, match="no link #0"):
        net.disconnect(0)
    with pytest.raises(ModelError, match="no link Input -> Affine"):
        net.disconnect(Link("Input", "Affine"))
    assert [e.kind for e in log] == ["link_removed", "link_removed"]


def test_duplicate_and_parallel_links_are_distinct_by_id():
    net = Network("N", [Layer("x", "Input"), Layer("m", "Mul2")])
    first = net.connect(Link("x", "m"))
    second = net.connect(Link("x", "m"))  # x * x
    assert (first.id, second.id) == (0, 1)
    net.disconnect(second)
    assert net.links == (first,)


def test_unique_name_follows_nnc():
    net = Network("N", [Layer("Convolution", "Convolution"), Layer("Convolution_2", "Convolution")])
    assert net.unique_name("Convolution") == "Convolution_3"
    assert net.unique_name("ReLU") == "ReLU"


def test_layer_rejects_name_in_properties_and_duplicates():
    with pytest.raises(ModelError, match="Name belongs in Layer.name"):
        Network("N", [Layer("A", "ReLU", {"Name": "A"})])
    with pytest.raises(ModelError, match='duplicate layer name "A"'):
        Network("N", [Layer("A", "ReLU"), Layer("A", "Tanh")])


def test_new_layer_takes_catalogue_defaults_without_computed_properties(project):
    net = project.network("Main")
    layer = net.new_layer("Affine", (48, 96))
    assert layer.name == "Affine_2"
    assert layer.position == (48, 96)
    assert layer.properties["OutShape"] == "100"
    assert layer.properties["ParameterScope"] == "*Name"
    assert not {"Name", "Input", "Output"} & set(layer.properties)
    unknown = net.new_layer("NoSuchLayer")
    assert (unknown.name, unknown.type, unknown.properties) == ("NoSuchLayer", "NoSuchLayer", {})


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
