"""Property-based fuzzing of what users hand the CLI (issue 13): real NNC ``.sdcproj`` samples,
native ``.ncproj`` sample projects and real dataset CSVs, mutated by Hypothesis.

Every outcome must be a success or a clean error: a non-zero exit with one line naming the
command (``cost`` may list one line per failing network), never an escaping exception, never a
hang (an alarm stops an example after ``LIMIT_S``), and bounded memory (training runs as on a
machine with 512 MiB free; the test's peak memory may grow by less than 1.5 GiB in all).
Examples are derandomized, so a failure reproduces; the whole module runs in about 30 s.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import resource
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cli import main
from engine.formats import load_project

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "tests" / "fixtures" / "nnc-samples"
FUZZ = ROOT / "tests" / "fixtures" / "fuzz"
SDCPROJ = [SAMPLES / p for p in (
    "tutorial/basics/01_logistic_regression.sdcproj", "tutorial/basics/11_deconvolution.sdcproj",
    "units/SqueezeAndExcitation.sdcproj", "image_recognition/MNIST/LeNet.sdcproj",
    "classification/iris/iris.sdcproj",
)]  # fmt: skip
NCPROJ = [ROOT / "projects" / p for p in ("iris.ncproj", "lenet_digits.ncproj",
                                          "residual_digits.ncproj")]  # fmt: skip
LIMIT_S = 20

# Values a careless hand or an attacker puts where a setting or a property goes.
NASTY = [
    "", " ", "0", "-1", "1", "2.5", "-0", "nan", "inf", "-inf", "1e309", "1e21", "1e300",
    "1_000", "0x10", "9" * 5000, "1000000000", "2147483648", "*Nope", "*Name", "**", "abc",
    "1,2,3", "0,0", "-3,4", "(", "((1,2)", "True", "Bogus", "Input[0]/0", "é", "\x00", "a=b",
    "../../etc/passwd", "x" * 3000,
]  # fmt: skip
JSON_NASTY = [None, True, -1, 0, 2.5, 1e308, -(2**63), 2**70, "", [], {}, [[[[[]]]]],
              {"a": {"b": {"c": None}}}, *NASTY]  # fmt: skip

fuzz_settings = settings(
    max_examples=30, deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)  # fmt: skip


# -- running the CLI --------------------------------------------------------------------------


class Hang(Exception):
    pass


@contextlib.contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    def ring(signum: int, frame: object) -> None:
        raise Hang(f"no answer after {seconds} s")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_cli(*argv: str) -> tuple[int, list[str]]:
    """Run ``neurocanvas argv``; returns the exit status and its error lines (log lines left
    out). An exception escaping the CLI fails the test, as it would show a traceback."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        with _alarm(LIMIT_S):
            code = main(list(argv))
    lines = [x for x in err.getvalue().splitlines()
             if x.strip() and not x.startswith(("INFO:", "WARNING:", "DEBUG:"))]  # fmt: skip
    return code, lines


def assert_clean(code: int, lines: list[str], command: str) -> None:
    if code == 0:
        return
    assert code in (1, 2), (code, lines)
    assert lines, "a failure without a message"
    assert all(x.startswith(f"neurocanvas {command}") for x in lines), lines
    assert all(len(x) < 3000 for x in lines), [x[:200] for x in lines]
    if command != "cost":
        assert len(lines) == 1, lines


# -- mutations --------------------------------------------------------------------------------


@st.composite
def mutated_lines(draw: st.DrawFn, text: str, sep: str) -> str:
    """1-3 edits of an INI (``sep="="``) or CSV (``sep=","``) text: a value replaced by a nasty
    one, a line deleted, duplicated or cut short, the file truncated."""
    lines = text.splitlines()
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["value", "value", "value", "delete", "duplicate", "cut", "end"]))
        if op == "value" and sep in lines[i]:
            cells = lines[i].split(sep)
            j = draw(st.integers(1 if sep == "=" else 0, len(cells) - 1)) if len(cells) > 1 else 0
            cells[j] = draw(st.sampled_from(NASTY))
            lines[i] = sep.join(cells)
        elif op == "delete" and len(lines) > 1:
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "cut":
            lines[i] = lines[i][: draw(st.integers(0, len(lines[i])))]
        elif op == "end":
            lines = lines[: i + 1]
    return "\n".join(lines) + "\n"


def _paths(value: object, path: tuple = ()) -> list[tuple]:
    found = [path]
    if isinstance(value, dict):
        for k, v in value.items():
            found += _paths(v, (*path, k))
    elif isinstance(value, list):
        for k, v in enumerate(value):
            found += _paths(v, (*path, k))
    return found


@st.composite
def mutated_json(draw: st.DrawFn, text: str) -> str:
    """A native project with 1-3 of its JSON values (anywhere) replaced, or cut short."""
    data = json.loads(text)
    paths = _paths(data)
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(paths[1:]))
        parent = data
        try:
            for key in path[:-1]:
                parent = parent[key]
            parent[path[-1]] = draw(st.sampled_from(JSON_NASTY))
        except (KeyError, IndexError, TypeError):  # an earlier edit replaced an ancestor
            continue
    out = json.dumps(data, indent=1)
    if draw(st.booleans()) and draw(st.booleans()):
        out = out[: draw(st.integers(0, len(out)))]
    return out


# -- the properties ---------------------------------------------------------------------------


@fuzz_settings
@given(data=st.data(), sample=st.sampled_from(SDCPROJ))
def test_mutated_nnc_samples_cost_and_convert_cleanly(data: st.DataObject, sample: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / sample.name
        path.write_text(data.draw(mutated_lines(sample.read_text(encoding="utf-8"), "=")))
        assert_clean(*run_cli("cost", str(path)), "cost")
        out = Path(tmp) / "out.ncproj"
        code, lines = run_cli("convert", str(path), str(out))
        assert_clean(code, lines, "convert")
        if code == 0:
            load_project(out)  # what was written reads back


@fuzz_settings
@given(data=st.data(), sample=st.sampled_from(NCPROJ))
def test_mutated_native_projects_cost_and_convert_cleanly(
    data: st.DataObject, sample: Path
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / sample.name
        path.write_text(data.draw(mutated_json(sample.read_text(encoding="utf-8"))))
        assert_clean(*run_cli("cost", str(path)), "cost")
        out = Path(tmp) / "out.sdcproj"
        code, lines = run_cli("convert", str(path), str(out))
        assert_clean(code, lines, "convert")
        if code == 0:
            load_project(out)


@fuzz_settings
@given(data=st.data(), name=st.sampled_from(["iris/iris_training.csv", "digits/digits.csv"]))
def test_mutated_dataset_csvs_load_cleanly(data: st.DataObject, name: str) -> None:
    source = FUZZ / name
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for file in source.parent.iterdir():  # the images beside the CSV
            (folder / file.name).write_bytes(file.read_bytes())
        path = folder / source.name
        path.write_text(data.draw(mutated_lines(source.read_text(encoding="utf-8"), ",")))
        assert_clean(*run_cli("dataset", "info", str(path), "--check"), "dataset")


@pytest.fixture
def small_machine(monkeypatch, tmp_path):
    """Training runs as on a machine with 512 MiB free, in a private cache."""
    from engine.runtime import program

    monkeypatch.setattr(program, "available_memory", lambda: 512 * 2**20)
    monkeypatch.setenv("NEUROCANVAS_CACHE", str(tmp_path / "cache"))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    yield
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak
    assert grown < 1.5 * 2**20, f"peak memory grew by {grown / 2**20:.2f} GiB"


@settings(fuzz_settings, max_examples=25)
@given(data=st.data(), what=st.sampled_from(["project", "training", "validation", "all"]))
def test_mutated_iris_trains_or_fails_cleanly(
    small_machine, data: st.DataObject, what: str
) -> None:
    """NNC's iris sample on the real iris data; the project, a CSV or all three mutated."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for part in ("training", "validation"):
            text = (FUZZ / "iris" / f"iris_{part}.csv").read_text(encoding="utf-8")
            if what in (part, "all"):
                text = data.draw(mutated_lines(text, ","))
            (folder / f"{part}.csv").write_text(text)
        project = (SAMPLES / "classification/iris/iris.sdcproj").read_text(encoding="utf-8")
        project = re.sub(r"^URI=.*_training_delo\.csv$", f"URI={folder / 'training.csv'}",
                         project, flags=re.M)  # fmt: skip
        project = re.sub(r"^URI=.*_validation_delo\.csv$", f"URI={folder / 'validation.csv'}",
                         project, flags=re.M)  # fmt: skip
        if what in ("project", "all"):
            project = data.draw(mutated_lines(project, "="))
        path = folder / "iris.sdcproj"
        path.write_text(project)
        argv = ("train", str(path), "-o", str(folder / "job"), "--epochs", "1", "--seed", "0")
        assert_clean(*run_cli(*argv), "train")


@pytest.fixture(scope="module")
def trained_iris(tmp_path_factory) -> Path:
    """A finished job of NNC's iris sample on the real iris data (1 epoch)."""
    folder = tmp_path_factory.mktemp("iris")
    project = (SAMPLES / "classification/iris/iris.sdcproj").read_text(encoding="utf-8")
    for part in ("training", "validation"):
        csv = FUZZ / "iris" / f"iris_{part}.csv"
        project = re.sub(rf"^URI=.*_{part}_delo\.csv$", f"URI={csv}", project, flags=re.M)
    (folder / "iris.sdcproj").write_text(project)
    code, lines = run_cli("train", str(folder / "iris.sdcproj"), "-o", str(folder / "job"),
                          "--epochs", "1", "--seed", "0")  # fmt: skip
    assert code == 0, lines
    return folder / "job"


JOB_FILES = ["config.json", "status.json", "network.ncproj", "checkpoints/last/state.json",
             "checkpoints/best/state.json"]  # fmt: skip


@settings(fuzz_settings, max_examples=20)
@given(data=st.data(), name=st.sampled_from(JOB_FILES),
       command=st.sampled_from(["evaluate", "resume", "export"]))  # fmt: skip
def test_mutated_job_folders_evaluate_resume_and_export_cleanly(
    small_machine, trained_iris: Path, data: st.DataObject, name: str, command: str
) -> None:
    import shutil

    with tempfile.TemporaryDirectory() as tmp:
        job = Path(tmp) / "job"
        shutil.copytree(trained_iris, job)
        target = job / name
        target.write_text(data.draw(mutated_json(target.read_text(encoding="utf-8"))))
        argv = {
            "evaluate": ("evaluate", str(job)),
            "resume": ("train", "--resume", str(job), "--epochs", "2"),
            "export": ("export", "python", str(job), "-o", str(Path(tmp) / "x.py")),
        }[command]
        assert_clean(*run_cli(*argv), argv[0])
