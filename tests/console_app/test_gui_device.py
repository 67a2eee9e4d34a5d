"""The GUI process never opens a CUDA context (DESIGN principle 4): whatever it computes itself
stays on the CPU even where the device chosen automatically would be the GPU."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from engine.core import backend

ROOT = Path(__file__).resolve().parents[2]


def test_export_onnx_from_the_menu_stays_on_the_cpu(make_window, tmp_path, monkeypatch):
    pytest.importorskip("onnx", reason="onnx not installed")
    from PySide6.QtWidgets import QFileDialog

    from engine import guard

    # The CI's GPU stand-in as the environment's device: an automatic choice would take it.
    monkeypatch.setenv("NEUROCANVAS_DEVICE", "guard")
    created = []
    original = guard.GuardArray.__init__

    def spy(self, array):
        created.append(array.shape)
        original(self, array)

    monkeypatch.setattr(guard.GuardArray, "__init__", spy)
    project = tmp_path / "lenet_digits.ncproj"
    shutil.copyfile(ROOT / "projects" / "lenet_digits.ncproj", project)
    target = tmp_path / "lenet.onnx"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    with backend.using("cpu"):  # restore this process's device after the test
        backend._state["device"] = None  # as in a fresh process: nothing selected yet
        window = make_window(project)
        action = next(a for a in window.export_menu.actions() if a.text() == "ONNX...")
        action.trigger()
        assert target.stat().st_size > 1000
        assert backend.xp() is np and backend.device() == "cpu"
    assert created == []  # no device array was ever made in the GUI process
