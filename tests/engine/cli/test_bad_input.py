"""Bad input through the CLI: one line naming the place, exit 2, nothing written (issue 13)."""

from __future__ import annotations

import os
import re
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest
import runtime_kit as kit

from engine.cli import main
from engine.formats import save_project

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def project(tmp_path, monkeypatch):
    """The MLP project on the blobs dataset, as an .sdcproj (the text a user would edit)."""
    monkeypatch.setenv("NEUROCANVAS_CACHE", str(tmp_path / "cache"))
    train_csv, valid_csv = kit.blobs(tmp_path, rows=24)
    path = tmp_path / "p.sdcproj"
    save_project(kit.mlp_project(train_csv, valid_csv, batch=8), path)
    return path


def edit(path: Path, old: str, new: str) -> Path:
    """Replace the first line matching ``old`` (a regular expression) in the file."""
    text = path.read_text()
    assert re.search(old, text, re.M), old
    path.write_text(re.sub(old, new, text, count=1, flags=re.M))
    return path


def one_line_error(capsys, *argv: str) -> str:
    """Run the CLI; it must exit 2 with exactly one line on stderr, which is returned."""
    code = main(list(argv))
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


# -- defect 9 and the export parts of defect 4 ------------------------------------------------


def test_export_refuses_to_overwrite_without_force(project, tmp_path, capsys):
    out = tmp_path / "net.py"
    out.write_text("# mine\n")
    err = one_line_error(capsys, "export", "python", str(project), "-o", str(out))
    assert f"{out} exists; pass --force" in err
    assert out.read_text() == "# mine\n"
    assert main(["export", "python", str(project), "-o", str(out), "--force"]) == 0
    compile(out.read_text(), str(out), "exec")
    assert "# mine" not in out.read_text()


def test_export_names_a_bad_source_once(project, tmp_path, capsys):
    missing = tmp_path / "nothere.ncproj"
    err = one_line_error(capsys, "export", "python", str(missing), "-o", str(tmp_path / "x.py"))
    assert err.count(str(missing)) == 1 and "No such file" in err, err
    edit(project, r"^SourceLayerID=\d+$", "SourceLayerID=77")  # a dangling link
    err = one_line_error(capsys, "export", "onnx", str(project), "-o", str(tmp_path / "x.onnx"))
    assert err.count(str(project)) == 1 and "SourceLayerID=77 names no layer" in err, err
    assert sorted(p.name for p in tmp_path.glob("x.*")) == []


def test_export_to_a_folder_or_a_missing_folder(project, tmp_path, capsys):
    folder = tmp_path / "existing"
    folder.mkdir()
    assert "is a folder" in one_line_error(capsys, "export", "python", str(project), "-o",
                                           str(folder))  # fmt: skip
    missing = tmp_path / "missing" / "x.py"
    err = one_line_error(capsys, "export", "python", str(project), "-o", str(missing))
    assert "does not exist" in err and str(missing.parent) in err
    assert sorted(p.name for p in folder.iterdir()) == []
    assert not any(p.name.endswith(".tmp") for p in tmp_path.rglob("*"))


# -- defects 4 and 7: settings and properties NNC's editor would refuse --------------------------
# (old line of the .sdcproj, new text, words the one-line error must hold)
AFFINE = r"^Property_1_Value=8\nNumProperty=2"
LOSS = r"^Property_1_Value=y\nNumProperty=2"


def _extra(anchor: str, value: str, name: str, text: str) -> tuple[str, str]:
    """A third property on the layer whose second property is ``value``."""
    return (
        anchor,
        f"Property_1_Value={value}\nNumProperty=3\nProperty_2_Name={name}\nProperty_2_Value={text}",
    )


BAD_SETTINGS = [
    ("SolverName=nan", r"^SolverName=Adam", "SolverName=nan", ["[Optimizer_0]", "SolverName"]),
    ("TypeConfig=Double", r"^TypeConfig=Float", "TypeConfig=Double", ["[Config] TypeConfig"]),
    ("Beta2=1e9", r"^SolverParameter_2=0.999", "SolverParameter_2=1e9",
     ["Beta2", "a value >= 0 and < 1", "Beta2=1e9"]),
    ("MonitorInterval=0", r"^MonitorInterval=10", "MonitorInterval=0",
     ["MonitorInterval", "a value >= 1"]),
    ("MonitorInterval=-10", r"^MonitorInterval=10", "MonitorInterval=-10", ["MonitorInterval"]),
    ("SaveBest=x", r"^SaveBest=1", "SaveBest=x", ["[Config] SaveBest", "1 or 0"]),
    ("Shuffle=nan", r"^Shuffle=1", "Shuffle=nan", ['[Dataset_0] "Training" Shuffle']),
    ("NumData=-5", r"^NumData=0", "NumData=-5", ["NumData", "a value >= 0"]),
    ("ImageNormalization=2", r"^ImageNormalization=1", "ImageNormalization=2",
     ["ImageNormalization"]),
    ("LearningRateMultiplier=-1", r"^LearningRateMultiplier=1", "LearningRateMultiplier=-1",
     ["LearningRateMultiplier", "a value >= 0"]),
    ("MaxEpoch=1_000", r"^MaxEpoch=2", "MaxEpoch=1_000", ["MaxEpoch", "an integer"]),
    ("W.LRateMultiplier=-7", *_extra(AFFINE, "8", "W.LRateMultiplier", "-7"),
     ['layer "Affine"', "W.LRateMultiplier"]),
    ("W.LRateMultiplier=1e309", *_extra(AFFINE, "8", "W.LRateMultiplier", "1e309"),
     ["W.LRateMultiplier", "finite"]),
    ("ParameterScope=**Nope", *_extra(AFFINE, "8", "ParameterScope", "*Calc +*Input:**Nope"),
     ['layer "Affine"', "ParameterScope"]),
    ("T.Generator=Bogus", *_extra(LOSS, "y", "T.Generator", "Bogus"), ["T.Generator"]),
    ("T.GeneratorMultiplier=1_000", *_extra(LOSS, "y", "T.GeneratorMultiplier", "1_000"),
     ["T.GeneratorMultiplier"]),
    ("OutShape of 5000 digits", r"^Property_1_Value=8$", "Property_1_Value=" + "9" * 5000,
     ['layer "Affine"', "OutShape", "5000"]),
    ("OutShape=1e21", r"^Property_1_Value=8$", "Property_1_Value=1e21", ["OutShape", "at most"]),
    ("OutShape=1e300", r"^Property_1_Value=8$", "Property_1_Value=1e300", ["OutShape", "at most"]),
    # names CONFIG holds that nothing answers: the setting named, not the compiler's guess
    ("Optimizer_NetworkName=Nope", r"^Optimizer_NetworkName=Main", "Optimizer_NetworkName=Nope",
     ['optimizer "Optimizer": no network "Nope"']),
    ("Monitor_NetworkName=Nope", r"^Monitor_NetworkName=MainValidation",
     "Monitor_NetworkName=Nope", ['monitor "train_error": no network "Nope"']),
    ("Executor_DatasetName=Nope", r"^Executor_DatasetName=Validation",
     "Executor_DatasetName=Nope", ['executor "Executor": no dataset "Nope"']),
    ("URI=builtin:nope", r"^URI=.*train.csv$", "URI=builtin:nope/training",
     ['dataset "Training": URI builtin:nope/training', "unknown built-in dataset 'nope'"]),
]  # fmt: skip


@pytest.mark.parametrize(("old", "new", "words"), [c[1:] for c in BAD_SETTINGS],
                         ids=[c[0] for c in BAD_SETTINGS])  # fmt: skip
def test_train_refuses_bad_settings_in_one_line(project, tmp_path, capsys, old, new, words):
    edit(project, old, new)
    err = one_line_error(capsys, "train", str(project), "-o", str(tmp_path / "job"))
    assert all(w in err for w in words), err
    assert len(err) < 400, err
    assert not (tmp_path / "job").exists()  # refused before the job folder is made


def test_a_layer_error_comes_before_a_dataset_download(project, tmp_path, capsys, monkeypatch):
    from engine.data import downloads

    def offline(url):
        raise AssertionError(f"downloaded {url} before checking the network")

    monkeypatch.setattr(downloads, "_open_url", offline)
    edit(project, r"^URI=.*train.csv$", "URI=builtin:mnist/training")
    edit(project, r"^Property_1_Value=8$", "Property_1_Value=0")  # Affine OutShape
    err = one_line_error(capsys, "train", str(project), "-o", str(tmp_path / "job"))
    assert 'layer "Affine"' in err and "OutShape" in err, err
    assert not (tmp_path / "job").exists()


def test_parameters_larger_than_the_memory_left_are_refused_before_allocating(
    project, tmp_path, capsys, monkeypatch
):
    """Defect 4: ``OutShape=1000000000`` tried to allocate 14.9 GiB. Here (4 + 1 + 3) x 1e8
    float32 values = 2.98 GiB."""
    from engine.runtime import program

    monkeypatch.setattr(program, "available_memory", lambda: 2**30)  # as if 1 GiB were free
    edit(project, r"^Property_1_Value=8$", "Property_1_Value=100000000")
    err = one_line_error(capsys, "train", str(project), "-o", str(tmp_path / "job"))
    assert "parameters need 3.0 GiB, more than the 1.0 GiB of memory available" in err
    assert 'Affine/affine/W of layer "Affine", shape (4, 100000000)' in err


# -- defect 2: units that fan out -----------------------------------------------------------------


@pytest.mark.parametrize(("depth", "calls"), [(20, 2), (30, 3), (40, 2)])
@pytest.mark.parametrize("command", ["cost", "train"])
def test_units_that_fan_out_are_refused_quickly_naming_the_chain(tmp_path, command, depth, calls):
    """Before: 20 x 2 took 5 s and 1.1 GB in cost and > 120 s in train; 40 deep MemoryError."""
    path = kit.fan_out_project(tmp_path, depth, calls)
    assert path.stat().st_size < 40_000
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NEUROCANVAS_CACHE": str(tmp_path / "c")}
    done = subprocess.run([sys.executable, "-m", "engine.cli", command, str(path)], env=env,
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)  # fmt: skip
    assert done.returncode != 0 and "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    if command == "train":
        assert len(lines) == 1, done.stderr
    else:  # cost reports every network that fails, one line each, Main first
        assert all(line.startswith(f"neurocanvas cost: error: {path}: network ") for line in lines)
        assert lines[0].startswith(f'neurocanvas cost: error: {path}: network "Main"')
    assert "the units expand to more than 100,000 layers" in lines[0]
    assert f"U0 -> U1 x{calls} -> U2 x{calls} -> " in lines[0]  # the chain, how often called


def test_expanded_sizes_count_every_call(tmp_path):
    from engine.formats import load_project
    from engine.graph import unit_graph

    project = load_project(kit.fan_out_project(tmp_path, 3, 2))
    # U3: Input, Affine = 2; Uk = Input + 2 x U(k+1); Main: 5 own layers + U0
    assert unit_graph.expanded_sizes(project) == {"U3": 2, "U2": 5, "U1": 11, "U0": 23, "Main": 28}
    assert unit_graph.expansion_problem(project, "Main") is None


# -- defect 3: labels -----------------------------------------------------------------------------


@pytest.mark.parametrize("label", ["3", "7", "nan", "inf", "1e20", "2.5", "-inf"])
def test_labels_outside_the_classes_stop_before_training(project, tmp_path, capsys, label):
    """Before: 3 failed at iteration 7 with a bare ValueError; NaN, inf, 1e20 were silently
    ignored; 2.5 became class 2. The loss has 3 classes (Affine_2 OutShape=3)."""
    csv = tmp_path / "train.csv"
    lines = csv.read_text().splitlines()
    lines[6] = lines[6].rsplit(",", 1)[0] + "," + label  # data row 6 is on line 7
    csv.write_text("\n".join(lines) + "\n")
    err = one_line_error(capsys, "train", str(project), "-o", str(tmp_path / "job"))
    assert f'"{csv}", line 7, column 5 (y:label)' in err, err
    assert 'layer "CategoricalCrossEntropy"' in err and "from 0 to 2" in err
    assert f"Received: {label!r}" in err
    assert not (tmp_path / "job").exists()


# -- defect 4: an image whose header claims 60000 x 60000 pixels ----------------------------------


def _png_claiming(path: Path, width: int, height: int) -> Path:
    """A 60-byte PNG whose IHDR claims ``width`` x ``height`` 8-bit gray pixels."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
                     + chunk(b"IDAT", zlib.compress(b"\0" * 16)) + chunk(b"IEND", b""))  # fmt: skip
    return path


@pytest.mark.parametrize("row", [0, 2])
def test_an_image_bomb_is_a_one_line_error_naming_row_and_column(tmp_path, capsys, row):
    from PIL import Image

    Image.fromarray(np.zeros((8, 8), np.uint8)).save(tmp_path / "ok.png")
    _png_claiming(tmp_path / "bomb.png", 60000, 60000)
    cells = ["ok.png"] * 4
    cells[row] = "bomb.png"
    kit.write_csv(tmp_path / "d.csv", ["x:image", "y:label"], [[c, 0] for c in cells])
    err = one_line_error(capsys, "dataset", "info", str(tmp_path / "d.csv"), "--check")
    assert f'd.csv", line {row + 2}, column 1 (x:image)' in err
    assert "image too large to decode" in err and "bomb.png" in err


# -- defect 6: a relative W.File is relative to the project's folder ------------------------------


def test_relative_parameter_file_resolves_against_the_project_folder(project, tmp_path):
    """Run from another folder (as the app's child process is): the frozen W is the file's."""
    weights = np.arange(32, dtype=np.float32).reshape(4, 8) / 32
    (tmp_path / "init").mkdir()
    np.save(tmp_path / "init" / "w.npy", weights)
    anchor = r"^Property_1_Value=8\nNumProperty=2"
    edit(
        project,
        anchor,
        "Property_1_Value=8\nNumProperty=4\nProperty_2_Name=W.File\n"
        "Property_2_Value=init/w.npy\nProperty_3_Name=W.LRateMultiplier\nProperty_3_Value=0",
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NEUROCANVAS_CACHE": str(tmp_path / "c")}
    for argv in (["train", str(project), "-o", str(tmp_path / "job"), "--epochs", "1"],
                 ["evaluate", str(tmp_path / "job")]):  # fmt: skip
        done = subprocess.run([sys.executable, "-m", "engine.cli", *argv], env=env, cwd=elsewhere,
                              capture_output=True, text=True, timeout=120)  # fmt: skip
        assert done.returncode == 0, done.stderr
    from engine.nn.parameter_file import load_arrays

    arrays, meta = load_arrays(tmp_path / "job" / "checkpoints" / "last" / "parameters.npz")
    keys = {entry["name"]: entry["key"] for entry in meta["parameters"]}  # type: ignore[index]
    np.testing.assert_array_equal(arrays[keys["Affine/affine/W"]], weights)


@pytest.mark.parametrize(("size", "shown"), [("100000,100000,100000", "1e+15"),
                                              ("2147483647,2147483647", "4.61e+18")])  # fmt: skip
def test_shapes_no_machine_can_hold_give_no_statistics(project, capsys, size, shown):
    """Defect 4: statistics with 20 or 300 digits were printed as success."""
    edit(project, r"^Property_1_Name=Size\nProperty_1_Value=4$",
         f"Property_1_Name=Size\nProperty_1_Value={size}")  # fmt: skip
    assert main(["cost", str(project)]) == 1
    out, err = capsys.readouterr()
    assert err.strip().splitlines()[0] == (
        f'neurocanvas cost: error: {project}: network "Main", layer "Input": the output holds '
        f"{shown} values per "
        f"sample (shape {size}), more than any machine can hold"
    )
    assert all(len(word) < 16 for word in out.replace(",", "").split() if word.isdigit())


def test_a_bad_parameter_scope_on_a_unit_layer(tmp_path, capsys):
    """Defect 4: ``ParameterScope=*Calc +*Input:**Nope`` on a Unit layer raised InferenceError
    out of ``cost`` and ``train``."""
    from engine.formats import load_project

    path = kit.fan_out_project(tmp_path, 2, 2)
    project = load_project(path)
    project.network("Main").set_property("ReLU", "ParameterScope", "*Calc +*Input:**Nope")
    save_project(project, path)
    assert main(["cost", str(path)]) == 1  # the error train refuses
    err = capsys.readouterr().err.strip()
    assert err == (
        f'neurocanvas cost: error: {path}: network "Main", layer "ReLU", property ParameterScope: '
        "unknown macro *Nope. Received: ParameterScope=*Calc +*Input:**Nope"
    )
    err = one_line_error(capsys, "train", str(path), "-o", str(tmp_path / "job"))
    assert 'layer "ReLU", property ParameterScope: unknown macro *Nope' in err


@pytest.mark.parametrize(
    ("prop", "value", "reason"),
    [
        ("W.LRateMultiplier", "-7", "expected a finite number >= 0"),
        ("W.Initializer", "Bogus", "expected one of Normal, "),
        ("WithBias", "maybe", "property WithBias: expected True or False"),
    ],
)
def test_cost_fails_on_a_property_train_refuses(project, tmp_path, capsys, prop, value, reason):
    """Issue 13: ``cost`` printed the statistics and exited 0 on a property that ``train``
    refuses; now each such error is one line naming network, layer and property."""
    from engine.formats import load_project

    broken = load_project(project)
    broken.network("Main").set_property("Affine", prop, value)
    save_project(broken, project)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NEUROCANVAS_CACHE": str(tmp_path / "c")}
    done = subprocess.run([sys.executable, "-m", "engine.cli", "cost", str(project)], env=env,
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 1 and done.stdout == ""  # no table of zeros before the error
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith(
        f'neurocanvas cost: error: {project}: network "Main", layer "Affine"'
    )
    assert reason in lines[0] and f"Received: {prop}={value}" in lines[0]
    err = one_line_error(capsys, "train", str(project), "-o", str(tmp_path / "job"))
    assert reason in err  # the same reason stops the training


@pytest.mark.parametrize("extra", [[], ["--layers", "--json"]])
def test_a_reader_that_closes_stdout_early_gets_no_traceback(project, tmp_path, extra):
    """Issue 13: ``neurocanvas cost X | head -1`` printed a BrokenPipeError traceback. The
    reader here closes the pipe before anything is written: the command stops quietly with
    the status a shell shows for a command ended by SIGPIPE."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NEUROCANVAS_CACHE": str(tmp_path / "c")}
    command = [sys.executable, "-m", "engine.cli", "cost", str(project), *extra]
    child = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    child.stdout.close()  # type: ignore[union-attr]
    _, err = child.communicate(timeout=60)
    assert err.decode() == ""
    assert child.returncode == 141


# -- session 15, defects A1 to A3: what a new user met on the command line ---------------------


def cli(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess:
    """``neurocanvas ARGV`` in a child process, as a user runs it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NEUROCANVAS_CACHE": str(tmp_path / "c")}
    return subprocess.run([sys.executable, "-m", "engine.cli", *argv], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)  # fmt: skip


LENET = ROOT / "projects" / "lenet_digits.ncproj"


@pytest.mark.parametrize(
    "command",
    [["train", str(LENET), "-o", "job", "--epochz", "2"], ["cost", str(LENET), "--epochz", "2"],
     ["export", "python", str(LENET), "-o", "x.py", "--epochz", "2"],
     ["quantize", "insert", str(LENET), "-o", "q.ncproj", "--epochz", "2"]],
)  # fmt: skip
def test_a_mistyped_option_gets_the_subcommands_usage_and_error(tmp_path, command):
    """Before: ``usage: neurocanvas [-h] [--verbose] COMMAND ...`` and ``neurocanvas: error:``."""
    done = cli(tmp_path, *command)
    name = " ".join(word for word in command if word in ("train", "cost", "export", "python",
                                                         "quantize", "insert"))  # fmt: skip
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and lines[0].startswith(f"usage: neurocanvas {name} "), lines
    assert lines[-1] == f"neurocanvas {name}: error: unrecognized arguments: --epochz 2"
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_an_option_before_the_subcommand_is_the_programs_own(tmp_path):
    done = cli(tmp_path, "--epochz", "train", str(LENET))
    assert done.returncode == 2
    assert (
        done.stderr.strip().splitlines()[-1]
        == "neurocanvas: error: unrecognized arguments: --epochz"
    )


@pytest.mark.parametrize(
    ("old", "new", "reason"),
    [
        ('"OutMaps": "16"', '"OutMaps": "sixteen"',
         "property OutMaps: expected a positive integer. Received: OutMaps=sixteen"),
        ('"type": "Convolution"', '"type": "Convolutio"', "unknown layer type 'Convolutio'"),
        ('"KernelShape": "7,7"', '"KernelShape": "99,99"',
         "the output would be empty (-70,-70): kernel 99,99"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("command", ["train", "cost", "export"])
def test_an_error_in_a_project_names_its_file_first(tmp_path, old, new, reason, command):
    """Before: ``neurocanvas train: error: network "Main", layer ...`` named no file, and
    ``cost`` printed a table of zeros and then its line without ``error:``."""
    path = tmp_path / "bad3.ncproj"
    text = LENET.read_text(encoding="utf-8")
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    argv = {"train": ["train", str(path), "-o", "job", "--epochs", "1"],
            "cost": ["cost", str(path)],
            "export": ["export", "python", str(path), "-o", "x.py"]}[command]  # fmt: skip
    done = cli(tmp_path, *argv)
    assert done.returncode == (1 if command == "cost" else 2), done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f'neurocanvas {command}: error: {path}: network "Main'), lines[0]
    assert reason in lines[0] and lines[0].count(str(path)) == 1
    assert done.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad3.ncproj"]


@pytest.mark.parametrize("command", ["train", "convert"])
def test_a_json_list_is_not_a_project_not_a_broken_nnc_file(tmp_path, command):
    """Before: ``bad11.ncproj, [Network_Global]: section is missing`` (NNC's INI wording)."""
    path = tmp_path / "bad11.ncproj"
    path.write_text("[1,2,3]\n")
    argv = ["train", str(path), "-o", "job"] if command == "train" else [
        "convert", str(path), "out.sdcproj"]  # fmt: skip
    done = cli(tmp_path, *argv)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"neurocanvas {command}: error: {path}: not a NeuroCanvas project "
        '(expected "format": "neurocanvas-project")'
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad11.ncproj"]
