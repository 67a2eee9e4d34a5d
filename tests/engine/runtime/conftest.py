"""Runtime tests: a private cache folder and thread-choice memory per test, and ``kit``,
the shared project helpers."""

from __future__ import annotations

import pytest
import runtime_kit

from engine.runtime import inference_threads


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    """A private cache folder for every test, and no thread choice remembered from another
    test's plans (engine/runtime/inference_threads.py)."""
    monkeypatch.setenv("NEUROCANVAS_CACHE", str(tmp_path / "user-cache"))
    monkeypatch.setattr(inference_threads, "_MEMORY", {})


@pytest.fixture
def kit():
    """``kit.layer(...)``, ``kit.mlp_project(...)``: see tests/runtime_kit.py."""
    return runtime_kit
