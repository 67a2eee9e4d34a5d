"""NNP export and import: nnabla's archive read back with an independent reader, round trips.

project -> .nnp -> import gives the same outputs (same seed, randomized normalization
statistics) and the same statistics as the original.
"""

from __future__ import annotations

import io
import zipfile
from collections import Counter

import numpy as np
import pytest
from model_kit import (
    PROJECTS,
    nested_loops_project,
    outputs,
    randomized,
    sample_inputs,
    save,
    working_memory_project,
)
from nnc_samples import LENET, LOOP_SAMPLES, SAMPLES_DIR

from engine.cli import main
from engine.export import Source, export_nnp
from engine.formats import load_project
from engine.graph import derive
from engine.graph.project_inference import ProjectInference
from engine.graph.statistics import network_statistics
from engine.model_import import ImportError_, parameters_path, read_model
from engine.runtime.compiler import compile_network


def _stats(project, names) -> dict[str, dict[str, int]]:
    """The totals of the drawn networks ``names`` (those the original project draws)."""
    inference = ProjectInference(project, follow=False)
    return {n: network_statistics(inference.network(n)).totals for n in names}


def _has_units(project) -> bool:
    return any(layer.type == "Unit" for net in project.networks for layer in net.layers)


def _loop_layers(project, names) -> Counter:
    kinds = {"RepeatStart", "RepeatEnd", "RecurrentInput", "RecurrentOutput", "Delay", "LSTM"}
    return Counter(layer.type for n in names for layer in project.network(n).layers
                   if layer.type in kinds)  # fmt: skip


VAE = LENET.parents[2] / "image_generation" / "mnist_vae.sdcproj"  # Normal generator input
ROUND_TRIP = [*PROJECTS, LENET, VAE, *LOOP_SAMPLES]


@pytest.mark.parametrize("path", [*ROUND_TRIP, None], ids=lambda p: p.stem if p else "nested")
def test_project_nnp_import_round_trip(path, tmp_path):
    project = load_project(path) if path else nested_loops_project()
    network = project.executors[0].network
    program = compile_network(project, network)
    values = randomized(program)
    source = Source(project, "model", network, save(values, tmp_path / "p.npz"), True)
    nnp = export_nnp(source, tmp_path / "model.nnp")
    imported = read_model(nnp)
    x = sample_inputs(program)
    expected = outputs(project, network, values, x)
    got = outputs(imported.project, network, imported.parameters, x)
    for a, b in zip(got, expected, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-5, rtol=1e-5)
    drawn = [n for n in project.network_names if n in imported.project.network_names]
    assert drawn, "no network kept its name"  # unit networks are expanded, not imported
    before, after = _stats(project, drawn), _stats(imported.project, drawn)
    # A Unit layer counts its output once, expanded each layer does; mnist_vae draws two Input
    # layers reading x, nnabla has one variable x, so the import has one Input layer.
    if _has_units(project) or path == VAE:
        for stats in (*before.values(), *after.values()):
            stats.pop("Output")
    assert after == before
    # loops come back as loop layers (not one copy per time step or iteration)
    assert _loop_layers(imported.project, drawn) == _loop_layers(project, drawn)
    config = imported.project.config
    assert (config.max_epoch, config.batch_size) == (project.config.max_epoch,
                                                     project.config.batch_size)  # fmt: skip
    assert [o.raw("SolverName") for o in imported.project.optimizers] == [
        o.raw("SolverName") or "Adam" for o in project.optimizers]  # fmt: skip
    for name in drawn:
        assert compile_network(imported.project, name).generators == compile_network(
            project, name).generators  # fmt: skip


def test_the_archive_holds_nnablas_files(tmp_path):
    """Read with zipfile and protobuf's own text parser: names, shapes and values as NNC's."""
    from google.protobuf import text_format

    from engine.formats.nnabla.schema import message_class

    path = PROJECTS[0].parent / "lenet_digits.ncproj"
    project = load_project(path)
    values = randomized(compile_network(project, "MainRuntime"))
    nnp = export_nnp(Source(project, "lenet", "MainRuntime", save(values, tmp_path / "p.npz"),
                            True), tmp_path / "lenet.nnp")  # fmt: skip
    with zipfile.ZipFile(nnp) as archive:
        assert archive.read("nnp_version.txt") == b"0.1\n"
        proto = text_format.Parse(archive.read("network.nntxt").decode(), message_class()())
        params = message_class()()
        params.ParseFromString(archive.read("parameter.protobuf"))
    assert [n.name for n in proto.network] == ["Main", "MainValidation", "MainRuntime"]
    runtime = proto.network[2]
    conv = next(f for f in runtime.function if f.type == "Convolution")
    assert list(conv.input) == ["x", "Convolution/conv/W", "Convolution/conv/b"]
    assert list(conv.convolution_param.stride.dim) == [1, 1]
    assert [f.type for f in proto.network[0].function][-1] == "CategoricalCrossEntropy"
    assert proto.executor[0].output_variable[0].data_name == "y'"
    stored = {p.variable_name: np.array(p.data).reshape(p.shape.dim) for p in params.parameter}
    assert stored.keys() == values.keys()
    for name, value in values.items():
        np.testing.assert_array_equal(stored[name], value.astype(np.float32))


def test_nntxt_import_reads_the_network_definition_alone(tmp_path):
    project = load_project(PROJECTS[0].parent / "lenet_digits.ncproj")
    nnp = export_nnp(Source(project, "lenet", "MainRuntime", None, True), tmp_path / "l.nnp")
    text = zipfile.ZipFile(nnp).read("network.nntxt")
    (tmp_path / "net.nntxt").write_bytes(text)
    out = tmp_path / "net.ncproj"
    assert main(["import", str(tmp_path / "net.nntxt"), "-o", str(out)]) == 0
    imported = load_project(out)
    # MainRuntime is Main without its loss: the import keeps Main and derives it, as drawn.
    assert "MainRuntime" not in imported.network_names
    runtime = derive.network_for(imported, "MainRuntime").network
    assert [layer.type for layer in runtime.layers] == [
        "Input", "Convolution", "ReLU", "MaxPooling", "Convolution", "MaxPooling", "Tanh",
        "Affine", "ReLU", "Affine", "Softmax"]  # fmt: skip
    assert _stats(imported, ["Main"]) == _stats(project, ["Main"])


def _network_text(nnp) -> tuple[object, dict[str, np.ndarray]]:
    """The nntxt and the stored parameters, read with protobuf's own parsers."""
    from google.protobuf import text_format

    from engine.formats.nnabla.schema import message_class

    with zipfile.ZipFile(nnp) as archive:
        proto = text_format.Parse(archive.read("network.nntxt").decode(), message_class()())
        params = message_class()()
        params.ParseFromString(archive.read("parameter.protobuf"))
    return proto, {p.variable_name: np.array(p.data) for p in params.parameter}


def test_recurrent_loops_are_written_folded_as_nnc_writes_them(tmp_path):
    """elman_4or9: one RecurrentInput ... RecurrentOutput loop over 28 rows with a Delay."""
    project = load_project(next(p for p in PROJECTS if p.stem == "elman_4or9"))
    nnp = export_nnp(Source(project, "elman", "MainRuntime", None, True), tmp_path / "e.nnp")
    proto, _ = _network_text(nnp)
    net = next(n for n in proto.network if n.name == "MainRuntime")
    assert [(r.id, r.times) for r in net.repeat_info] == [("RecurrentInput", 28)]
    functions = {f.name: f for f in net.function}
    assert len(net.function) == len(functions) == 9  # not 28 copies of the loop body
    split, delay = functions["RecurrentInput"], functions["Delay"]
    assert (split.recurrent_param.repeat_id, split.recurrent_param.axis) == ("RecurrentInput", 2)
    assert list(split.repeat_id) == list(delay.repeat_id) == ["RecurrentInput"]
    assert list(delay.input) == ["Tanh", "Generator_0"]  # previous step, initial value
    stack = functions["RecurrentOutput"]
    assert (list(stack.repeat_id), stack.recurrent_param.length) == ([], 28)
    shared = next(v for v in net.variable if v.name == "Affine_2/affine/W")
    assert list(shared.repeat_id) == []  # one weight for every time step
    generator = proto.executor[0].generator_variable[0]
    assert (generator.variable_name, generator.type, generator.multiplier) == (
        "Generator_0", "Constant", 0.0)  # fmt: skip


RESIDUAL = SAMPLES_DIR / "tutorial" / "basics" / "12_residual_learning.sdcproj"


def test_an_nntxt_with_loops_alone_imports_with_fresh_repeat_parameters(tmp_path):
    project = load_project(RESIDUAL)
    nnp = export_nnp(Source(project, "res", "MainRuntime", None, True), tmp_path / "r.nnp")
    text = zipfile.ZipFile(nnp).read("network.nntxt").decode()
    # nnabla counts iterations by repeat_info (RepeatEnd alone needs times): read it so
    start = 'type: "RepeatStart"'
    parts = text.split(start)
    parts[1:] = [p.replace("      times: 2\n", "", 1) for p in parts[1:]]
    assert text.count("times: 2") - "".join(parts).count("times: 2") == text.count(start)
    (tmp_path / "net.nntxt").write_text(start.join(parts))
    out = tmp_path / "net.ncproj"
    assert main(["import", str(tmp_path / "net.nntxt"), "-o", str(out)]) == 0
    imported = load_project(out)
    assert _loop_layers(imported, ["Main"]) == _loop_layers(project, ["Main"])
    assert _stats(imported, ["Main"]) == _stats(project, ["Main"])
    names = [p.name for p in compile_network(imported, "MainRuntime").parameters]
    assert "Convolution_5[1]/conv/W" in names  # one set per iteration, as nnabla expands it


def test_repeat_blocks_keep_their_id_in_parameter_names(tmp_path):
    project = load_project(RESIDUAL)
    values = randomized(compile_network(project, "MainRuntime"))
    nnp = export_nnp(Source(project, "res", "MainRuntime", save(values, tmp_path / "p.npz"),
                            True), tmp_path / "r.nnp")  # fmt: skip
    proto, stored = _network_text(nnp)
    net = next(n for n in proto.network if n.name == "MainRuntime")
    assert {(r.id, r.times) for r in net.repeat_info} == {("RepeatStart", 2),
                                                          ("RepeatStart_2", 2)}  # fmt: skip
    starts = [f for f in net.function if f.type == "RepeatStart"]
    assert len(starts) == 2 and all(len(f.input) == 2 for f in starts)
    weight = next(v for v in net.variable if v.name == "Convolution_5{RepeatStart}/conv/W")
    assert list(weight.repeat_id) == ["RepeatStart"]
    # stored expanded, one value per iteration, as nnabla names them when it expands the loop
    for i in range(2):
        name = f"Convolution_5[{i}]/conv/W"
        np.testing.assert_array_equal(stored[name], values[name].reshape(-1))
    assert not any("{" in name for name in stored)


def _lenet_nnp(tmp_path) -> bytes:
    project = load_project(PROJECTS[0].parent / "lenet_digits.ncproj")
    return export_nnp(Source(project, "l", "MainRuntime", None, True), tmp_path / "l.nnp")


def _rewrite(nnp, name: str, change) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(nnp) as src, zipfile.ZipFile(buffer, "w") as dst:
        for item in src.namelist():
            data = src.read(item)
            dst.writestr(item, change(data) if item == name else data)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda nnp: nnp.read_bytes()[:300], "not an NNP archive"),
        (lambda nnp: _rewrite(nnp, "parameter.protobuf", lambda d: d[: len(d) // 2]),
         "parameter.protobuf: truncated or damaged parameter file"),
        (lambda nnp: _rewrite(nnp, "network.nntxt",
                              lambda d: d.replace(b'type: "Tanh"', b'type: "Frobnicate"')),
         'no NNC layer for Frobnicate (node "Tanh_2")'),
        (lambda nnp: _rewrite(nnp, "network.nntxt", lambda d: d.replace(
            b"dim: 480\n      dim: 150", b"dim: 481\n      dim: 150", 1)),
         'parameter "Affine/affine/W" has shape (480, 150), the network declares (481, 150)'),
        (lambda nnp: _rewrite(nnp, "network.nntxt", lambda d: d.replace(b"network {",
                                                                       b"network {{", 1)),
         "network.nntxt: line "),
    ],
    ids=["corrupt-zip", "truncated-protobuf", "unknown-function", "shape-mismatch", "syntax"],
)  # fmt: skip
def test_bad_nnp_files_give_one_line_and_write_nothing(damage, message, tmp_path, capsys):
    nnp = _lenet_nnp(tmp_path)
    bad = tmp_path / "bad.nnp"
    bad.write_bytes(damage(nnp))
    out = tmp_path / "out.ncproj"
    assert main(["import", str(bad), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and message in err, err
    assert not out.exists() and not parameters_path(out).exists()
    with pytest.raises(ImportError_):
        read_model(bad)


def test_cli_export_nnp_from_a_project(tmp_path, capsys):
    out = tmp_path / "m.nnp"
    assert main(["export", "nnp", str(PROJECTS[0].parent / "iris.ncproj"), "-o", str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    assert zipfile.is_zipfile(out)


def _elman_nnp(tmp_path) -> bytes:
    project = load_project(next(p for p in PROJECTS if p.stem == "elman_4or9"))
    return export_nnp(Source(project, "e", "MainRuntime", None, True), tmp_path / "e.nnp")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.replace(b'  repeat_id: "RecurrentInput"\n    input: "Concatenate"',
                             b'  repeat_id: "Elsewhere"\n    input: "Concatenate"'),
         'network "Main", function "Affine_2": repeat_id "Elsewhere" is not in the network\'s '
         "repeat_info"),
        (lambda d: d.replace(b"    times: 28\n", b""),
         'network "Main": repeat_info "RecurrentInput" has no times (a positive count)'),
        (lambda d: d.replace(b'recurrent_param {\n      repeat_id: "RecurrentInput"',
                             b'recurrent_param {\n      repeat_id: "Loop9"', 1),
         'function "RecurrentInput": repeat_id "Loop9" is not in the network\'s repeat_info'),
    ],
    ids=["unknown-repeat-id", "times-missing", "unknown-recurrent-param-id"],
)  # fmt: skip
def test_bad_loops_give_one_line_and_write_nothing(change, message, tmp_path, capsys):
    nnp = _elman_nnp(tmp_path)
    bad = tmp_path / "bad.nnp"
    bad.write_bytes(_rewrite(nnp, "network.nntxt", change))
    assert bad.read_bytes() != nnp.read_bytes()
    out = tmp_path / "out.ncproj"
    assert main(["import", str(bad), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and message in err, err
    assert not out.exists() and not parameters_path(out).exists()


def test_working_memory_goes_through_nnp_as_nnc_writes_it(tmp_path):
    """Read without input: a Buffer variable named after the layer, with its initializer and
    stored value, listed as a parameter (multiplier 0); storing: an Identity. Both come back
    as WorkingMemory layers with the same value (one row per sample), outputs and statistics."""
    project = working_memory_project(PROJECTS[0].parent / "iris.ncproj")
    program = compile_network(project, "MainRuntime")
    values = randomized(program)
    values["mem"] = np.random.default_rng(3).normal(size=(3, 4)).astype(np.float32)  # batch 3
    nnp = export_nnp(Source(project, "wm", "MainRuntime", save(values, tmp_path / "p.npz"),
                            True), tmp_path / "wm.nnp")  # fmt: skip
    proto, stored = _network_text(nnp)
    net = next(n for n in proto.network if n.name == "MainRuntime")
    mem = next(v for v in net.variable if v.name == "mem")
    assert (mem.type, list(mem.shape.dim), mem.initializer.type) == ("Buffer", [-1, 4], "Normal")
    hidden = next(f for f in net.function if f.name == "hidden")
    assert (hidden.type, list(hidden.input)) == ("Identity", ["ReLU"])
    listed = {p.variable_name: p.learning_rate_multiplier for p in proto.optimizer[0]
              .parameter_variable}  # fmt: skip
    assert listed["mem"] == listed["hidden"] == 0.0
    np.testing.assert_array_equal(stored["mem"], values["mem"].reshape(-1))
    with zipfile.ZipFile(nnp) as archive:
        from engine.formats.nnabla.schema import message_class

        params = message_class()()
        params.ParseFromString(archive.read("parameter.protobuf"))
    assert [list(p.shape.dim) for p in params.parameter if p.variable_name == "mem"] == [[3, 4]]
    imported = read_model(nnp)
    layers = {layer.name: layer.type for layer in imported.project.network("Main").layers}
    assert layers["mem"] == layers["hidden"] == "WorkingMemory"
    np.testing.assert_array_equal(imported.parameters["mem"], values["mem"])
    x = sample_inputs(program, batch=3)
    for a, b in zip(outputs(imported.project, "MainRuntime", imported.parameters, x),
                    outputs(project, "MainRuntime", values, x), strict=True):  # fmt: skip
        np.testing.assert_allclose(a, b, atol=1e-5, rtol=1e-5)
    assert _stats(imported.project, ["Main"]) == _stats(project, ["Main"])
