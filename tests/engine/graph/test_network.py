"""Networks: layer and link edits, their events, invariants, and errors that name the place."""

import pytest

from engine.graph.project import Layer, Link, ModelError, Network, Project


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
    with pytest.raises(
        ModelError, match=r'layer "Affine", property OutShape: expected a one-line string'
    ):
        net.set_property("Affine", "OutShape", 10)
    with pytest.raises(ModelError, match="expected a one-line string. Received: '1\\\\n2'"):
        net.set_property("Affine", "OutShape", "1\n2")
    with pytest.raises(ModelError, match="property name: expected a non-empty one-line name"):
        net.add_layer(Layer("X", "ReLU", {"": "1"}))
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
