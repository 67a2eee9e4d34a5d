"""Installed as users install it, from a wheel (not editable), NeuroCanvas has its samples
and its resources (icon, launcher entry).

Issue 35, item 21: ``projects/`` lies outside the packages, so an installed NeuroCanvas had no
sample to open and the README's tour had none to train. The wheel now carries them as the
package ``neurocanvas_samples``; ``neurocanvas samples`` lists and copies them. This test builds
the wheel from this checkout, installs it into a fresh virtual environment (the dependencies
come from the running interpreter's site-packages; the wheel itself with ``--no-deps``), and
from a folder outside the checkout, with no PYTHONPATH, lists the samples, copies one and trains
and evaluates it.
"""

from __future__ import annotations

import os
import site
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest
from pptx import Presentation

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow


def _run(args, cwd, env, timeout=300) -> subprocess.CompletedProcess:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, (args, done.stdout[-2000:], done.stderr[-3000:])
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(python, neurocanvas, environment) of a fresh venv with the wheel installed."""
    tmp = tmp_path_factory.mktemp("wheel")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    dist = tmp / "dist"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(ROOT)],
        capture_output=True, text=True, timeout=600, env=env,
    )  # fmt: skip
    assert build.returncode == 0, build.stderr[-3000:]
    (wheel,) = (tmp / "dist").glob("neurocanvas-*.whl")
    venv.create(tmp / "venv", system_site_packages=True, with_pip=True)
    python = tmp / "venv" / ("Scripts" if os.name == "nt" else "bin") / "python"
    _run([str(python), "-m", "pip", "install", "-q", "--no-deps", str(wheel)], tmp, env)
    # The dependencies come from this test run's environment (a path in a .pth file: the
    # venv's own site-packages, the wheel's, stay first, and that environment's .pth files,
    # the checkout's editable install among them, are not run), not from the base Python,
    # which on a fresh machine has none of them (Pillow was missing there).
    own = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
               tmp, env).stdout.strip()  # fmt: skip
    Path(own, "test-run-dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    return wheel, python, env, tmp


def test_the_wheel_holds_every_sample_project(installed):
    wheel = installed[0]
    names = {Path(n).name for n in zipfile.ZipFile(wheel).namelist()
             if n.startswith("neurocanvas_samples/")}  # fmt: skip
    assert names == {p.name for p in (ROOT / "projects").glob("*.ncproj")} and len(names) == 15
    resources = {n for n in zipfile.ZipFile(wheel).namelist() if n.startswith("neurocanvas_res")}
    assert resources == {"neurocanvas_resources/neurocanvas.svg",
                         "neurocanvas_resources/neurocanvas.desktop",
                         "neurocanvas_resources/i18n/neurocanvas_ja.ts",
                         "neurocanvas_resources/help/tour.ja.md"}  # fmt: skip


def test_an_installed_neurocanvas_lists_copies_and_trains_a_sample(installed):
    _, python, env, tmp = installed
    work = tmp / "elsewhere"
    work.mkdir()
    env = {**env, "NEUROCANVAS_CACHE": str(tmp / "cache"), "NEUROCANVAS_DEVICE": "cpu"}
    where = _run([str(python), "-c", "import engine; print(engine.__file__)"], work, env)
    assert Path(where.stdout.strip()).is_relative_to(tmp / "venv"), where.stdout  # not the checkout
    cli = [str(python), "-m", "engine.cli"]
    listed = _run([*cli, "samples"], work, env).stdout.splitlines()
    assert listed[0].startswith("15 sample projects in ") and str(tmp / "venv") in listed[0]
    assert "  lenet_digits" in listed
    _run([*cli, "samples", "lenet_digits", "mine"], work, env)
    copy = work / "mine" / "lenet_digits.ncproj"
    assert copy.read_bytes() == (ROOT / "projects" / "lenet_digits.ncproj").read_bytes()
    _run([*cli, "train", str(copy), "-o", str(work / "job"), "--epochs", "1", "--seed", "0"],
         work, env)  # fmt: skip
    out = _run([*cli, "evaluate", str(work / "job")], work, env).stdout
    accuracy = float(out.split("accuracy ")[1].split(",")[0])
    assert accuracy > 0.5, out  # one epoch of LeNet on the digits: about 0.9
    assert not list((tmp / "venv").rglob("lenet_digits.files"))  # nothing written in the install
    # The Japanese report reads the installed catalogue.
    deck = work / "ja.pptx"
    _run([*cli, "report", str(work / "job"), "-o", str(deck), "--lang", "ja"], work, env)
    titles = [s.shapes.title.text for s in Presentation(str(deck)).slides]
    assert "実験結果 : 学習曲線" in titles, titles
    # The launcher entry comes from the installed resources, not the checkout's.
    desktop = _run([*cli, "desktop"], work, {**env, "XDG_DATA_HOME": str(tmp / "xdg")}).stdout
    assert "neurocanvas.desktop" in desktop and (tmp / "xdg" / "applications").is_dir()
