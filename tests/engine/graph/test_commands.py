"""Undo commands: every edit kind undoes and redoes exactly; merge, no-op guard, clean mark."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nnc_samples import SAMPLES_DIR

from engine.formats.native import to_dict
from engine.formats.sdcproj import read_sdcproj
from engine.graph import commands as C
from engine.graph import config as cfg
from engine.graph.project import Layer, Link, ModelError, Network, Project

SAMPLES = SAMPLES_DIR
LENET = SAMPLES / "image_recognition/MNIST/LeNet.sdcproj"


@pytest.fixture()
def project():
    return read_sdcproj(LENET)


def check_round_trip(project, command):
    """do -> undo restores the original exactly; redo gives the same state as do."""
    stack = C.UndoStack()
    before = to_dict(project)
    assert stack.push(command)
    after = to_dict(project)
    assert after != before
    stack.undo()
    assert to_dict(project) == before
    stack.redo()
    assert to_dict(project) == after
    stack.undo()
    assert to_dict(project) == before


def test_every_command_kind_round_trips(project):
    net = project.network("Main")
    link = net.links[3]
    commands = [
        C.AddLayer(net, net.new_layer("ReLU", (240, 72)), index=2),
        C.RemoveLayer(net, "Convolution_2"),  # has an input and an output link
        C.RenameLayer(net, "Affine", "Hidden"),
        C.SetProperty(net, "Convolution", "KernelShape", "5,5"),
        C.SetProperty(net, "Convolution", "Group", "2"),  # absent before
        C.SetProperty(net, "Convolution", "W.File", None),  # removed
        C.MoveLayers(net, {"Input": (48, 24), "Convolution": (48, 72)}),
        C.Connect(net, Link("Input", "Affine", dest_pin=1), index=0),
        C.Disconnect(net, link),
        C.AddNetwork(project, Network("Unit", [Layer("Arg", "Argument")]), index=0),
        C.RemoveNetwork(project, "Main"),
        C.RenameNetwork(project, "Main", "Net"),
        C.SetSectionValue(project, "config", "MaxEpoch", "3"),
        C.SetSectionValue(project, ("optimizers", 0), "SolverName", "Sgd"),
        C.ReplaceSection(project, ("optimizers", 0), project.optimizers[0].with_solver("Momentum")),
        C.InsertItem(project, "executors", cfg.Executor.new(Executor_Name="Second"), 0),
        C.RemoveItem(project, "datasets", 0),
        C.SetDescription(project, "new\ntext"),
        C.Compound("Delete 2", [C.RemoveLayer(net, "ReLU"), C.RemoveLayer(net, "Tanh_2")]),
    ]
    for command in commands:
        check_round_trip(project, command)


def test_remove_layer_restores_links_at_their_positions(project):
    net = project.network("Main")
    before = net.links
    stack = C.UndoStack()
    stack.push(C.RemoveLayer(net, "MaxPooling"))
    assert len(net.links) == len(before) - 2
    stack.undo()
    assert net.links == before


def test_noop_commands_are_not_pushed(project):
    net = project.network("Main")
    stack = C.UndoStack()
    kernel = net.layer("Convolution").properties["KernelShape"]
    assert not stack.push(C.SetProperty(net, "Convolution", "KernelShape", kernel))
    assert not stack.push(C.MoveLayers(net, {"Input": net.layer("Input").position}))
    assert not stack.push(C.RenameLayer(net, "Input", "Input"))
    assert not stack.push(
        C.SetSectionValue(project, "config", "MaxEpoch", project.config.raw("MaxEpoch"))
    )
    assert not stack.push(C.SetDescription(project, project.description))
    assert (len(stack), stack.can_undo(), stack.is_clean()) == (0, False, True)


def test_typing_in_one_field_merges_into_one_step(project):
    net = project.network("Main")
    stack = C.UndoStack()
    assert net.layer("Affine").properties["OutShape"] == "150"
    for text in ("1", "12", "128"):
        stack.push(C.SetProperty(net, "Affine", "OutShape", text))
    stack.push(C.SetProperty(net, "Affine_2", "OutShape", "7"))  # another field: new step
    assert len(stack) == 2
    assert stack.undo_text() == "Set Affine_2.OutShape"
    stack.undo()
    assert net.layer("Affine").properties["OutShape"] == "128"
    stack.undo()
    assert net.layer("Affine").properties["OutShape"] == "150"


def test_merge_back_to_the_start_removes_the_step(project):
    stack = C.UndoStack()
    stack.push(C.SetSectionValue(project, "config", "MaxEpoch", "1"))
    stack.push(C.SetSectionValue(project, "config", "MaxEpoch", "10"))
    assert (len(stack), stack.is_clean(), project.config.max_epoch) == (0, True, 10)


def test_drags_merge_but_not_across_a_save(project):
    net = project.network("Main")
    stack = C.UndoStack()
    stack.push(C.MoveLayers(net, {"Input": (48, 24)}))
    stack.push(C.MoveLayers(net, {"Input": (72, 24)}))
    assert len(stack) == 1
    stack.set_clean()
    stack.push(C.MoveLayers(net, {"Input": (96, 24)}))
    assert (len(stack), stack.is_clean()) == (2, False)
    stack.undo()
    assert stack.is_clean() and net.layer("Input").position == (72, 24)
    stack.undo()
    assert not stack.is_clean() and net.layer("Input").position == (24, 24)


def test_clean_state_unreachable_after_branching(project):
    net = project.network("Main")
    stack = C.UndoStack()
    changes = []
    stack.subscribe(lambda: changes.append(stack.is_clean()))
    stack.push(C.RenameLayer(net, "Input", "x"))
    stack.set_clean()
    stack.undo()
    stack.push(C.RenameLayer(net, "Input", "y"))  # drops the saved state from history
    stack.undo()
    assert not stack.is_clean()
    assert changes == [False, True, False, False, False]


def test_failed_command_leaves_history_and_model_unchanged(project):
    net = project.network("Main")
    stack = C.UndoStack()
    before = to_dict(project)
    with pytest.raises(ModelError, match='"Affine" already exists'):
        stack.push(C.RenameLayer(net, "Input", "Affine"))
    bad = C.Compound(
        "Paste", [C.AddLayer(net, Layer("P", "ReLU")), C.Connect(net, Link("P", "Ghost"))]
    )
    with pytest.raises(ModelError, match="Ghost"):
        stack.push(bad)
    assert (len(stack), to_dict(project)) == (0, before)
    with pytest.raises(ModelError, match="nothing to undo"):
        stack.undo()


def test_macro_groups_pushes(project):
    net = project.network("Main")
    stack = C.UndoStack()
    before = to_dict(project)
    with stack.macro("Paste"):
        layer = net.new_layer("ReLU", (300, 24))
        stack.push(C.AddLayer(net, layer))
        stack.push(C.Connect(net, Link("Input", layer.name)))
    assert (len(stack), stack.undo_text()) == (1, "Paste")
    stack.undo()
    assert to_dict(project) == before
    with pytest.raises(ValueError, match="boom"), stack.macro("Broken"):
        stack.push(C.RenameLayer(net, "Input", "x"))
        raise ValueError("boom")
    assert to_dict(project) == before and len(stack) == 1


def test_rename_network_everywhere_updates_references():
    project = read_sdcproj(SAMPLES / "image_recognition/ILSVRC2012/squeezenet/squeezenet11.sdcproj")
    units = [
        (n.name, la.name)
        for n in project.networks
        for la in n.layers
        if la.type == "Unit" and la.properties.get("Network") == "FireModule"
    ]
    assert len(units) == 8
    before = to_dict(project)
    stack = C.UndoStack()
    stack.push(C.rename_network_everywhere(project, "FireModule", "Fire"))
    assert all(project.network(n).layer(la).properties["Network"] == "Fire" for n, la in units)
    assert "FireModule" not in project.network_names
    stack.undo()
    assert to_dict(project) == before

    lenet = read_sdcproj(LENET)
    stack.push(C.rename_network_everywhere(lenet, "Main", "Net"))
    assert lenet.optimizers[0].network == "Net"
    assert [m.network for m in lenet.monitors] == ["NetValidation", "NetValidation"]
    assert lenet.executors[0].network == "NetRuntime"


# -- random edit sequences -----------------------------------------------------------------
TYPES = ("ReLU", "Affine", "Convolution", "Add2", "Concatenate", "Mystery")
KEYS = ("OutShape", "KernelShape", "Mystery", "WithBias")
VALUES = (None, "1", "3,3", "True", "0,r", "*Name", "")
NAMES = ("A", "B", "Input", "Affine", "Net", "Main")


def random_command(data, project):
    draw = data.draw
    networks = project.networks
    net = draw(st.sampled_from(networks)) if networks else None
    names = list(net.layer_names) if net else []
    kind = draw(st.integers(0, 12))
    if net is None or kind == 0:
        return C.AddNetwork(
            project, Network(draw(st.sampled_from(NAMES))), draw(st.sampled_from([None, 0]))
        )
    if kind == 1:
        return C.AddLayer(
            net, net.new_layer(draw(st.sampled_from(TYPES)), (draw(st.integers(0, 9)) * 24, 0))
        )
    if not names:
        return C.RemoveNetwork(project, net.name)
    layer = draw(st.sampled_from(names))
    if kind == 2:
        return C.RemoveLayer(net, layer)
    if kind == 3:
        return C.RenameLayer(net, layer, draw(st.sampled_from(NAMES)))
    if kind == 4:
        return C.SetProperty(net, layer, draw(st.sampled_from(KEYS)), draw(st.sampled_from(VALUES)))
    if kind == 5:
        chosen = draw(st.lists(st.sampled_from(names), min_size=1, max_size=3, unique=True))
        return C.MoveLayers(net, {n: (draw(st.integers(0, 5)) * 24, 48) for n in chosen})
    if kind == 6:
        other = draw(st.sampled_from(names))
        return C.Connect(
            net,
            Link(layer, other, dest_pin=draw(st.integers(0, 2))),
            draw(st.sampled_from([None, 0])),
        )
    if kind == 7 and net.links:
        return C.Disconnect(net, draw(st.sampled_from(net.links)))
    if kind == 8:
        return C.RenameNetwork(project, net.name, draw(st.sampled_from(NAMES)))
    if kind == 9:
        return C.SetSectionValue(
            project,
            "config",
            draw(st.sampled_from(("MaxEpoch", "Foo"))),
            draw(st.sampled_from(VALUES)),
        )
    if kind == 10 and project.monitors:
        return C.RemoveItem(project, "monitors", draw(st.integers(0, len(project.monitors) - 1)))
    if kind == 11:
        return C.SetDescription(project, draw(st.sampled_from(("", "a", "ab\nc"))))
    return C.Compound(
        "Pair", [C.RemoveLayer(net, layer), C.AddLayer(net, Layer(layer + "_x", "ReLU"))]
    )


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.data())
def test_random_edits_undo_and_redo_exactly(data):
    project = read_sdcproj(LENET)
    stack = C.UndoStack()
    states = {0: to_dict(project)}
    for _ in range(data.draw(st.integers(1, 25))):
        action = data.draw(st.sampled_from(["push"] * 6 + ["undo", "redo", "clean"]))
        if action == "undo" and stack.can_undo():
            stack.undo()
        elif action == "redo" and stack.can_redo():
            stack.redo()
        elif action == "clean":
            stack.set_clean()
        else:
            before = to_dict(project)
            try:
                command = random_command(data, project)
                stack.push(command)
            except ModelError:
                assert to_dict(project) == before  # a refused edit changes nothing
                continue
        states[stack.index] = to_dict(project)
        for stale in [k for k in states if k > len(stack)]:
            del states[stale]
    top = stack.index
    while stack.can_undo():
        stack.undo()
        assert to_dict(project) == states[stack.index]
    assert to_dict(project) == states[0]
    while stack.index < top:
        stack.redo()
        assert to_dict(project) == states[stack.index]


def test_project_new_has_one_clean_stack():
    stack = C.UndoStack()
    project = Project.new()
    stack.push(C.AddLayer(project.network("Main"), Layer("x", "Input")))
    stack.clear()
    assert (len(stack), stack.is_clean(), stack.can_redo(), stack.redo_text()) == (
        0,
        True,
        False,
        "",
    )
