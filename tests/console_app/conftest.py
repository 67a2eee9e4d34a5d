"""GUI test setup: settings and autosaves in a temporary folder, a main window factory."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from gui_driver import forget_pending_answers
from nnc_samples import SAMPLES_DIR
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

SAMPLES = SAMPLES_DIR
LENET = SAMPLES / "image_recognition" / "MNIST" / "LeNet.sdcproj"
# pytest-qt's waits give up after 5 s unless a test says otherwise; on a loaded machine (load
# 7-10 on two cores) a window took seconds to become active. A wait returns as soon as its
# condition holds, so a generous bound costs nothing when things go well.
WAIT_MS = 120000


@pytest.fixture(autouse=True)
def _temporary_settings(tmp_path, monkeypatch):
    """Nothing a test does may touch the user's real settings."""
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path / "qs"))
    yield


@pytest.fixture(autouse=True)
def _generous_waits(monkeypatch):
    """``qtbot.waitUntil``, ``waitSignal``, ``waitExposed``... without a ``timeout``: WAIT_MS."""
    for name in ("waitUntil", "waitExposed", "waitActive", "waitSignal", "waitSignals",
                 "waitCallback"):  # fmt: skip
        method = getattr(QtBot, name)
        monkeypatch.setattr(method, "__kwdefaults__", {**method.__kwdefaults__, "timeout": WAIT_MS})


@pytest.fixture(autouse=True)
def _no_answer_outlives_its_test():
    """A dialog answer still polling when its test ends must not answer the next test's."""
    yield
    forget_pending_answers()


@pytest.fixture
def settings(tmp_path):
    from console_app.settings import AppSettings

    return AppSettings(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))


@pytest.fixture
def lenet_copy(tmp_path) -> Path:
    target = tmp_path / "LeNet.sdcproj"
    shutil.copyfile(LENET, target)
    return target


@pytest.fixture
def make_window(qtbot, settings):
    from console_app.main_window import MainWindow

    def make(project=None, app_settings=None):
        window = MainWindow(str(project) if project else None, settings=app_settings or settings)
        window.ask_save_changes = lambda: "discard"  # tests that care replace it
        window.ask_stop_children = lambda text: True  # closing at teardown stops what runs
        qtbot.addWidget(window)
        return window

    return make


@pytest.fixture
def lenet_window(make_window, lenet_copy):
    return make_window(lenet_copy)
