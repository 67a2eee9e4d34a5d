"""``neurocanvas export``: a trained job's Python export predicts as ``neurocanvas forward``.

The LeNet sample trains one epoch on the first rows of the built-in digits (as
tests/test_sample_projects.py does); the exported script then runs in a fresh interpreter on
image files of the validation set.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import engine.nn as nn
from engine.cli import main
from engine.data import builtin
from engine.export import open_source
from engine.formats import load_project, save_project
from engine.runtime.datasets import BUILTIN_SCHEME

ROOT = Path(__file__).resolve().parents[3]
LENET = ROOT / "projects" / "lenet_digits.ncproj"


def _subset(uri: str, rows: int, folder: Path, cache: Path) -> tuple[Path, list[str]]:
    """The first ``rows`` rows of a built-in split with absolute paths, and those paths."""
    name, _, split = uri.removeprefix(BUILTIN_SCHEME).partition("/")
    source = builtin.ensure(name, root=cache)[split]
    with open(source, newline="", encoding="utf-8") as f:
        table = list(csv.reader(f))
    out, files = folder / f"{name}-{split}.csv", []
    with open(out, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(table[0])
        for row in table[1 : rows + 1]:
            row = [str(source.parent / c) if c.startswith("./") else c for c in row]
            files.append(row[0])
            writer.writerow(row)
    return out, files


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("export-job")
    mp = pytest.MonkeyPatch()
    mp.setenv("NEUROCANVAS_CACHE", str(tmp / "cache"))
    project = load_project(LENET)
    files = []
    for i, dataset in enumerate(project.datasets):
        subset, files = _subset(dataset.uri, 2 * project.config.batch_size, tmp, tmp / "cache")
        project.replace_section(("datasets", i), dataset.with_value("URI", str(subset)))
    save_project(project, tmp / "lenet.ncproj")
    assert main(["train", str(tmp / "lenet.ncproj"), "-o", str(tmp / "job"), "--epochs", "1",
                 "--seed", "0"]) == 0  # fmt: skip
    nn.clear_parameters()
    yield tmp, files[:6]
    mp.undo()


def test_job_export_predicts_like_forward(job, capsys):
    tmp, images = job
    out = tmp / "lenet_export.py"
    assert main(["export", "python", str(tmp / "job"), "-o", str(out)]) == 0
    assert (tmp / "lenet_export_parameters.npz").is_file()
    capsys.readouterr()
    assert main(["forward", str(tmp / "job"), "--input", *images, "--json"]) == 0
    expected = [r["outputs"]["y'"]["class"] for r in json.loads(capsys.readouterr().out)]
    done = subprocess.run([sys.executable, str(out), *images], capture_output=True, text=True,
                          cwd=tmp, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    got = [int(m) for m in re.findall(r"\ty' class (\d+)\t", done.stdout)]
    assert got == expected and len(got) == len(images)


def test_a_project_export_run_says_where_trained_parameters_come_from(job, capsys):
    """Exported from a project (no parameters), the file used to define its networks and exit 0
    doing nothing when run (issue 35, item 20). It now has the same main: one line on how to
    get trained parameters; with a job's parameters put beside it, it predicts as the job's."""
    tmp, images = job
    out = tmp / "from_project.py"
    assert main(["export", "python", str(tmp / "lenet.ncproj"), "-o", str(out)]) == 0
    assert not (tmp / "from_project_parameters.npz").exists()
    done = subprocess.run([sys.executable, str(out), *images[:2]], capture_output=True, text=True,
                          cwd=tmp, timeout=120)  # fmt: skip
    assert done.returncode == 1 and not done.stdout
    assert done.stderr.strip().splitlines() == [
        "from_project.py: no trained parameters beside it (from_project_parameters.npz). Export "
        "a trained job to get them: neurocanvas export python JOB_FOLDER -o from_project.py, or "
        "in the app right-click the job in TRAINING > Export Python code..."
    ]
    capsys.readouterr()
    assert main(["forward", str(tmp / "job"), "--input", *images, "--json"]) == 0
    expected = [r["outputs"]["y'"]["class"] for r in json.loads(capsys.readouterr().out)]
    trained = open_source(tmp / "job").parameters  # the best checkpoint's, as export takes
    (tmp / "from_project_parameters.npz").write_bytes(trained.read_bytes())
    done = subprocess.run([sys.executable, str(out), *images], capture_output=True, text=True,
                          cwd=tmp, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert [int(m) for m in re.findall(r"\ty' class (\d+)\t", done.stdout)] == expected


def test_a_missing_or_unreadable_input_gives_one_line_naming_it(job):
    """The exported script printed a traceback ending in FileLoadError for a missing image; now
    one line naming the file, as for missing parameters, and exit status 1."""
    tmp, images = job
    out = tmp / "lenet_inputs.py"
    assert main(["export", "python", str(tmp / "job"), "-o", str(out)]) == 0
    (tmp / "notes.txt").write_text("not an image", encoding="utf-8")
    (tmp / "broken.png").write_bytes(b"not a png")
    missing = str(tmp / "no_such.png")
    for path, line in (
        (missing, f"lenet_inputs.py: input file not found: {missing}"),
        ("notes.txt", "lenet_inputs.py: notes.txt: unsupported file type '.txt'; supported: "),
        ("broken.png", "lenet_inputs.py: not a readable image: broken.png"),
    ):
        done = subprocess.run([sys.executable, str(out), images[0], path], capture_output=True,
                              text=True, cwd=tmp, timeout=120)  # fmt: skip
        assert done.returncode == 1 and not done.stdout, done.stderr[-2000:]
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(line), done.stderr[-2000:]


@pytest.mark.skipif(
    not os.environ.get("NNABLA_PYTHON"),
    reason="NNABLA_PYTHON is not set (a Python 3.10 with nnabla 1.39; see docs/export.md §6)",
)
def test_job_nnabla_export_predicts_like_forward(job, capsys):
    """``--target nnabla``: the script runs on nnabla itself with the .h5 parameters."""
    tmp, images = job
    out = tmp / "lenet_nnabla.py"
    assert main(["export", "python", str(tmp / "job"), "-o", str(out), "--target", "nnabla"]) == 0
    assert (tmp / "lenet_nnabla_parameters.h5").is_file()
    assert "import nnabla as nn" in out.read_text() and "engine" not in out.read_text()
    capsys.readouterr()
    assert main(["forward", str(tmp / "job"), "--input", *images, "--json"]) == 0
    forward = json.loads(capsys.readouterr().out)
    done = subprocess.run([os.environ["NNABLA_PYTHON"], str(out), *images], capture_output=True,
                          text=True, cwd=tmp, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    rows = re.findall(r"\ty' class (\d+)\t([^\n]*)", done.stdout)
    assert [int(c) for c, _ in rows] == [r["outputs"]["y'"]["class"] for r in forward]
    for (_, values), result in zip(rows, forward, strict=True):
        got = [float(v) for v in values.split()]
        assert max(abs(a - b) for a, b in zip(got, result["outputs"]["y'"]["values"],
                                              strict=True)) <= 1e-5  # fmt: skip


def test_hostile_names_stay_data(tmp_path):
    """A layer name and a property value crafted as code end up as escaped text only."""
    project = load_project(LENET)
    main_net = project.network("Main")
    evil = 'Affine"); import os; os.system("echo pwned") #'
    layer = next(layer for layer in main_net.layers if layer.type == "Affine")
    main_net.rename_layer(layer.name, evil)
    main_net.set_property(evil, "ParameterScope", "x'); import os #")
    save_project(project, tmp_path / "evil.ncproj")
    out = tmp_path / "evil.py"
    assert main(["export", "python", str(tmp_path / "evil.ncproj"), "-o", str(out)]) == 0
    text = out.read_text()
    compile(text, str(out), "exec")
    assert "import os;" not in re.sub(r"'[^'\n]*'|\"[^\"\n]*\"|#.*", "", text)
    done = subprocess.run([sys.executable, "-c", f"import runpy; runpy.run_path({str(out)!r})"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)  # fmt: skip
    assert done.returncode == 0 and "pwned" not in done.stdout, done.stderr[-2000:]


def test_export_errors(tmp_path, capsys):
    assert main(["export", "python", str(tmp_path / "missing.ncproj"), "-o", "x.py"]) == 2
    assert "missing.ncproj" in capsys.readouterr().err
    assert main(["export", "python", str(LENET), "-o", "x.py", "--opset", "13"]) == 2
    assert "--opset applies to onnx only" in capsys.readouterr().err
    assert main(["export", "onnx", str(LENET), "-o", "x.onnx", "--target", "nnabla"]) == 2
    assert "--target applies to python only" in capsys.readouterr().err


def test_job_onnx_export_predicts_like_forward(job, capsys):
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime not installed")
    import numpy as np

    from engine.runtime.inference import _load  # forward's own preprocessing

    tmp, images = job
    out = tmp / "lenet.onnx"
    assert main(["export", "onnx", str(tmp / "job"), "-o", str(out), "--opset", "17"]) == 0
    capsys.readouterr()
    assert main(["forward", str(tmp / "job"), "--input", *images, "--json"]) == 0
    forward = json.loads(capsys.readouterr().out)
    session = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    batch = np.stack([_load(path, True) for path in images])
    (probs,) = session.run(None, {"x": batch})
    assert probs.argmax(axis=1).tolist() == [r["outputs"]["y'"]["class"] for r in forward]
    for row, result in zip(probs, forward, strict=True):
        assert np.abs(row - np.array(result["outputs"]["y'"]["values"])).max() <= 1e-4


DCGAN = ROOT / "tests" / "fixtures" / "nnc-samples" / "image_generation" / "mnist_dcgan.sdcproj"
DCGAN_LABEL = DCGAN.with_name("mnist_dcgan_with_label.sdcproj")


def _on_digits(sample: Path, rows: int, tmp_path: Path) -> Path:
    """``sample`` saved as an .ncproj whose two datasets are the first ``rows`` digits."""
    project = load_project(sample)
    for i, (dataset, split) in enumerate(
        zip(project.datasets, ("training", "validation"), strict=True)
    ):
        subset, _ = _subset(f"builtin:digits/{split}", rows, tmp_path, tmp_path / "cache")
        project.replace_section(("datasets", i), dataset.with_value("URI", str(subset)))
    path = tmp_path / f"{sample.stem}.ncproj"
    save_project(project, path)
    return path


def test_nncs_dcgan_with_label_trains_and_exports(tmp_path, monkeypatch):
    """NNC's conditional DCGAN: its OneHot reads the label column (floats, cast as nnabla casts)
    and its losses' targets are Constant generators beside T.Dataset = dg, a variable the
    dataset does not have (the generator wins). Before, training ended in a traceback."""
    monkeypatch.setenv("NEUROCANVAS_CACHE", str(tmp_path / "cache"))
    project = _on_digits(DCGAN_LABEL, 64, tmp_path)
    job = tmp_path / "job"
    assert main(["train", str(project), "-o", str(job), "--epochs", "1", "--seed", "0"]) == 0
    status = json.loads((job / "status.json").read_text())
    assert status["status"] == "finished"
    out = tmp_path / "label_gan.py"
    assert main(["export", "python", str(job), "-o", str(out)]) == 0
    compile(out.read_text(), str(out), "exec")


SAMPLE_ROW = re.compile(r"sample (\d+)\tSigmoid\t([^\n]*) \.\.\.")


@pytest.mark.slow
def test_a_trained_dcgan_exports_a_script_that_generates_the_engines_images(tmp_path):
    """NNC's DCGAN (its noise z a Normal generator input) trained for one epoch on 128 digits:
    the export's main makes COUNT images with network_runtime(batch_size=COUNT), and run in a
    fresh interpreter with nn.seed(5) it prints the engine's images for that seed."""
    import numpy as np

    from engine.runtime.compiler import compile_network

    mp = pytest.MonkeyPatch()
    mp.setenv("NEUROCANVAS_CACHE", str(tmp_path / "cache"))
    project = load_project(DCGAN)
    for i, (dataset, split) in enumerate(
        zip(project.datasets, ("training", "validation"), strict=True)
    ):
        subset, _ = _subset(f"builtin:digits/{split}", 128, tmp_path, tmp_path / "cache")
        project.replace_section(("datasets", i), dataset.with_value("URI", str(subset)))
    save_project(project, tmp_path / "dcgan.ncproj")
    try:
        assert main(["train", str(tmp_path / "dcgan.ncproj"), "-o", str(tmp_path / "job"),
                     "--epochs", "1", "--seed", "0"]) == 0  # fmt: skip
        out = tmp_path / "dcgan_export.py"
        assert main(["export", "python", str(tmp_path / "job"), "-o", str(out)]) == 0
        assert "def network_runtime(batch_size=64, test=False):" in out.read_text()
        run = (
            "import runpy, sys; import engine.nn as nn; nn.seed(5); "
            f"sys.argv = [{str(out)!r}, '3']; runpy.run_path(sys.argv[0], run_name='__main__')"
        )
        done = subprocess.run([sys.executable, "-c", run], capture_output=True, text=True,
                              cwd=ROOT, timeout=120)  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        rows = SAMPLE_ROW.findall(done.stdout)
        program = compile_network(load_project(tmp_path / "job" / "network.ncproj"), "Runtime",
                                  test_mode=True)  # fmt: skip
        nn.clear_parameters()
        nn.load_parameters(open_source(tmp_path / "job").parameters)
        params = program.create_parameters()
        nn.seed(5)
        with nn.no_grad():
            acts = program.forward({"unread": np.zeros((3, 1), np.float32)}, params)
        images = np.asarray(program.output(acts, "Sigmoid").data).reshape(3, -1)
        assert [int(i) for i, _ in rows] == [0, 1, 2]
        got = np.array([[float(v) for v in values.split()] for _, values in rows])
        assert np.abs(got - images[:, :16]).max() <= 1e-5 * max(1.0, np.abs(images).max())
        assert np.abs(images[0] - images[1]).max() > 0.01  # the noise differs per sample
    finally:
        nn.clear_parameters()
        mp.undo()


@pytest.mark.skipif(not shutil.which("cc"), reason="no C compiler (cc) on PATH")
def test_job_c_export_predicts_like_forward(job, capsys):
    """``export c`` of the trained LeNet: ``make`` builds it with warnings as errors, and the
    program, given the images as PGM files (and one as CSV), prints the outputs of
    ``neurocanvas forward`` within 1e-5 and the same classes."""
    from PIL import Image

    from engine.runtime.inference import _load  # forward's own preprocessing

    tmp, images = job
    out = tmp / "lenet_c"
    assert main(["export", "c", str(tmp / "job"), "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    summary = json.loads((out / "export_summary.json").read_text())
    assert f"RAM (activation arena): {summary['ram_bytes']} bytes" in printed
    assert summary["flash_bytes"] == summary["nnc_statistics"]["ParameterBytes"] == 315240
    flags = "CFLAGS=-std=c99 -O2 -Wall -Wextra -Werror"
    build = (
        ["make", flags]
        if shutil.which("make")
        else ["cc", *flags[7:].split(), "-o", "model", "main.c", "model.c", "parameters.c", "-lm"]
    )
    done = subprocess.run(build, cwd=out, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    pgms = []
    for k, path in enumerate(images):
        pgm = tmp / f"digit{k}.pgm"
        Image.open(path).convert("L").save(pgm)
        pgms.append(str(pgm))
    csv_file = tmp / "digit0.csv"
    csv_file.write_text(",".join(f"{v:.9g}" for v in _load(images[0], True).reshape(-1)))
    done = subprocess.run([str(out / "model"), *pgms, str(csv_file)], capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [[float(v) for v in line.split()] for line in done.stdout.splitlines()]
    assert main(["forward", str(tmp / "job"), "--input", *images, "--json"]) == 0
    forward = [r["outputs"]["y'"] for r in json.loads(capsys.readouterr().out)]
    assert len(rows) == len(images) + 1
    for got, result in zip(rows, forward + forward[:1], strict=True):
        assert max(abs(a - b) for a, b in zip(got, result["values"], strict=True)) <= 1e-5
        assert got.index(max(got)) == result["class"]
    bad = tmp / "short.bin"
    bad.write_bytes(b"\0" * 12)
    done = subprocess.run([str(out / "model"), str(bad)], capture_output=True, text=True)
    assert done.returncode == 1 and "expected 784 float32 values" in done.stderr


def test_c_export_errors(job, tmp_path, capsys):
    tmp, _ = job
    out = tmp_path / "c"
    out.mkdir()
    assert main(["export", "c", str(tmp / "job"), "-o", str(out)]) == 2
    assert "exists; choose a new folder (--force" in capsys.readouterr().err
    assert list(out.iterdir()) == []
    lstm = ROOT / "projects" / "lstm_4or9.ncproj"
    assert main(["export", "c", str(lstm), "-o", str(tmp_path / "lstm")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and '"RecurrentInput" (RecurrentInput)' in err
    assert not (tmp_path / "lstm").exists()
    assert main(["export", "python", str(lstm), "-o", "x.py", "--network", "Main"]) == 2
    assert "--network and --params apply to c, onnx and tflite only" in capsys.readouterr().err
    assert main(["export", "onnx", str(lstm), "-o", "x.onnx", "--float"]) == 2
    assert "--float applies to c only" in capsys.readouterr().err
    assert main(["export", "c", str(lstm), "-o", str(tmp_path / "q"), "--quantized"]) == 2
    assert "--quantized applies to onnx only" in capsys.readouterr().err


@pytest.mark.skipif(not shutil.which("cc"), reason="no C compiler (cc) on PATH")
def test_quantized_job_c_export_predicts_like_forward(job, capsys):
    """The trained LeNet's 8-bit network (``quantize insert``) exported with the job's
    parameters (``--network``, ``--params``) predicts as ``neurocanvas forward`` of it."""
    tmp, images = job
    q8 = tmp / "q8.ncproj"
    assert main(["quantize", "insert", str(tmp / "job" / "network.ncproj"), "-o", str(q8),
                 "--bits", "8", "--delta", "0.0625", "--force"]) == 0  # fmt: skip
    params = tmp / "job" / "checkpoints" / "best" / "parameters.npz"
    out = tmp / "lenet_q8_c"
    assert main(["export", "c", str(q8), "--network", "Main_q8Runtime", "--params", str(params),
                 "-o", str(out)]) == 0  # fmt: skip
    assert "(FixedPointQuantize)" in (out / "model.c").read_text()
    assert "arithmetic: integer" in capsys.readouterr().out
    done = subprocess.run(["cc", "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-o", "model",
                           "main.c", "model.c", "parameters.c", "-lm"], cwd=out,
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    capsys.readouterr()
    assert main(["forward", str(q8), "--network", "Main_q8Runtime", "--params", str(params),
                 "--input", *images, "--json"]) == 0  # fmt: skip
    forward = [r["outputs"]["y'"] for r in json.loads(capsys.readouterr().out)]
    from PIL import Image

    pgms = []
    for k, path in enumerate(images):
        Image.open(path).convert("L").save(tmp / f"q{k}.pgm")
        pgms.append(str(tmp / f"q{k}.pgm"))
    done = subprocess.run([str(out / "model"), *pgms], capture_output=True, text=True, timeout=60)
    rows = [[float(v) for v in line.split()] for line in done.stdout.splitlines()]
    assert len(rows) == len(images) == len(forward)
    for got, result in zip(rows, forward, strict=True):
        assert max(abs(a - b) for a, b in zip(got, result["values"], strict=True)) <= 1e-5
        assert got.index(max(got)) == result["class"]
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime not installed")
    import numpy as np

    from engine.runtime.inference import _load

    model = tmp / "lenet_q8.onnx"
    assert main(["export", "onnx", str(q8), "--network", "Main_q8Runtime", "--params",
                 str(params), "--quantized", "-o", str(model)]) == 0  # fmt: skip
    session = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    (probs,) = session.run(None, {"x": np.stack([_load(path, True) for path in images])})
    assert probs.argmax(axis=1).tolist() == [r["class"] for r in forward]
    assert np.abs(probs - np.array([r["values"] for r in forward])).max() <= 1e-5


def test_a_quantized_network_exports_by_its_own_name_with_the_job_as_params(job, tmp_path, capsys):
    """``export c q8.ncproj --network Main_q8 --params JOB``: the training network quantize
    insert adds is written as its runtime form, with the job's best parameters; the files are
    those of the long form (``--network Main_q8Runtime --params .../parameters.npz``), whose
    program predicts as ``forward`` (test above). The ONNX export takes the same short form."""
    tmp, _ = job
    q8 = tmp_path / "q8.ncproj"
    assert main(["quantize", "insert", str(tmp / "job" / "network.ncproj"), "-o", str(q8),
                 "--bits", "8", "--delta", "0.0625"]) == 0  # fmt: skip
    params = tmp / "job" / "checkpoints" / "best" / "parameters.npz"
    long, short = tmp_path / "long", tmp_path / "short"
    assert main(["export", "c", str(q8), "--network", "Main_q8Runtime", "--params", str(params),
                 "-o", str(long)]) == 0  # fmt: skip
    capsys.readouterr()
    assert main(["export", "c", str(q8), "--network", "Main_q8", "--params", str(tmp / "job"),
                 "-o", str(short)]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert 'network "Main_q8" has a loss: exporting its runtime network Main_q8Runtime' in out
    assert "arithmetic: integer" in out
    for name in ("model.h", "model.c", "parameters.c"):
        assert (short / name).read_bytes() == (long / name).read_bytes(), name
    pytest.importorskip("onnx", reason="onnx not installed")
    long_onnx, short_onnx = tmp_path / "long.onnx", tmp_path / "short.onnx"
    assert main(["export", "onnx", str(q8), "--network", "Main_q8Runtime", "--params",
                 str(params), "--quantized", "-o", str(long_onnx)]) == 0  # fmt: skip
    assert main(["export", "onnx", str(q8), "--network", "Main_q8", "--params", str(tmp / "job"),
                 "--quantized", "-o", str(short_onnx)]) == 0  # fmt: skip
    assert short_onnx.read_bytes() == long_onnx.read_bytes()


def test_a_network_the_job_lacks_says_where_it_comes_from(job, tmp_path, capsys):
    tmp, _ = job
    out = tmp_path / "c"
    assert main(["export", "c", str(tmp / "job"), "--network", "Main_q8", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and 'no network "Main_q8" (networks: Main)' in err
    assert "quantize insert writes a quantized network into a new project" in err
    assert main(["export", "c", str(LENET), "--network", "Main", "--params", str(tmp_path),
                 "-o", str(out)]) == 2  # fmt: skip
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--params {tmp_path}:" in err and "job folder" in err
    assert main(["export", "c", str(LENET), "--params", str(tmp_path / "none.npz"), "-o",
                 str(out)]) == 2  # fmt: skip
    assert "no such file or job folder" in capsys.readouterr().err
    assert not out.exists()


def _cli(*argv: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "engine.cli", *argv], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=120)  # fmt: skip


def test_a_broken_job_folder_is_named_once(job, tmp_path):
    """Before: ``neurocanvas export: error: /tmp/jcc: /tmp/jcc: no trained parameters yet``."""
    broken = Path(shutil.copytree(job[0] / "job", tmp_path / "jcc"))
    shutil.rmtree(broken / "checkpoints")
    done = _cli("export", "python", str(broken), "-o", str(tmp_path / "x.py"))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"neurocanvas export: error: {broken}: no trained parameters yet (checkpoints/best)"
    ]
    (broken / "config.json").write_text("{bad")
    done = _cli("export", "python", str(broken), "-o", str(tmp_path / "x.py"))
    [line] = done.stderr.strip().splitlines()
    assert line.startswith(f"neurocanvas export: error: {broken / 'config.json'}: unreadable (")
    assert line.count(str(broken)) == 1
    (broken / "config.json").unlink()
    done = _cli("export", "onnx", str(broken), "-o", str(tmp_path / "x.onnx"))
    assert done.stderr.strip().splitlines() == [
        f"neurocanvas export: error: {broken}: no config.json: its training did not start or "
        "failed before its first epoch"
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["jcc"]


@pytest.mark.parametrize(
    ("fmt", "own", "others"),
    [("python", "--target", ["--opset", "--int8", "--float", "--network"]),
     ("onnx", "--opset", ["--target", "--int8", "--float"]),
     ("c", "--float", ["--target", "--opset", "--int8"]),
     ("tflite", "--int8", ["--target", "--opset", "--float"]),
     ("nnp", "--checkpoint", ["--target", "--opset", "--int8", "--float", "--network"])],
)  # fmt: skip
def test_each_format_has_its_own_help(fmt, own, others):
    """Before: ``export python --help`` printed ``export --help`` with every format's options."""
    done = _cli("export", fmt, "--help")
    assert done.returncode == 0
    assert done.stdout.startswith(f"usage: neurocanvas export {fmt} ")
    assert own in done.stdout and not [o for o in others if o in done.stdout], done.stdout
