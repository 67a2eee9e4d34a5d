"""Runtime tests: a private cache folder per test, and ``kit``, the shared project helpers."""

from __future__ import annotations

import pytest
import runtime_kit


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    """A private cache folder for every test."""
    monkeypatch.setenv("NEUROCANVAS_CACHE", str(tmp_path / "user-cache"))


@pytest.fixture
def kit():
    """``kit.layer(...)``, ``kit.mlp_project(...)``: see tests/runtime_kit.py."""
    return runtime_kit
