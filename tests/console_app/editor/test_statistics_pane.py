"""The statistics pane shows NNC's float32 totals; the tooltip of each gives the exact count."""

from __future__ import annotations

import shutil

import pytest
from nnc_samples import SAMPLES_DIR
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QHelpEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QToolTip

pytestmark = pytest.mark.gui

ALEXNET = SAMPLES_DIR / "image_recognition" / "ILSVRC2012" / "alexnet.sdcproj"


def test_alexnet_total_is_nncs_with_the_exact_count_in_the_tooltip(make_window, tmp_path):
    shutil.copyfile(ALEXNET, tmp_path / "alexnet.sdcproj")
    window = make_window(tmp_path / "alexnet.sdcproj")
    window.show()
    tab = window.edit_tab
    bar = tab.networks.tabBar()
    index = next(i for i in range(bar.count()) if bar.tabText(i) == "Training")
    QTest.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(index).center())
    assert tab.current_network() == "Training"
    pane = tab.statistics
    assert pane.value("CostMultiplyAdd") == "691,487,232"  # NNC's number
    # Hovering the value shows both numbers.
    cell = pane.visualItemRect(pane.item(4, 1)).center()
    QTest.mouseMove(pane.viewport(), cell)
    help_event = QHelpEvent(QEvent.Type.ToolTip, cell, pane.viewport().mapToGlobal(cell))
    QApplication.sendEvent(pane.viewport(), help_event)
    tip = QToolTip.text()
    assert "NNC's value: 691,487,232" in tip and "Exact count: 691,487,264" in tip
    assert pane.item(1, 1).toolTip() == "Exact count: 60,667,176 (NNC shows the same)"
    assert pane.value("FLOPs") == f"{2 * 691487264:,}"  # FLOPs count the exact multiply-adds
