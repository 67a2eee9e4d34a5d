"""A tiny trainable project (the iris sample, few epochs) in a temporary folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

IRIS = Path(__file__).resolve().parents[3] / "projects" / "iris.ncproj"


@pytest.fixture
def iris_document(tmp_path):
    from console_app.document import Document
    from engine.graph import commands as C

    target = tmp_path / "iris.ncproj"
    shutil.copyfile(IRIS, target)
    document = Document.open(target)
    document.push(C.SetSectionValue(document.project, "config", "MaxEpoch", "3"))
    document.save()
    yield document
    document.close()


@pytest.fixture
def training_tab(qtbot, iris_document, tmp_path):
    from console_app.tabs.training_tab import TrainingTab

    tab = TrainingTab(iris_document, tmp_path / "jobs")
    qtbot.addWidget(tab)
    yield tab
    tab.runner.kill()
