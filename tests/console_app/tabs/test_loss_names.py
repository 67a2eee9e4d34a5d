"""What the TRAINING tab and the quantization experiment call their numbers (issue 35)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

pytestmark = pytest.mark.gui
LEFT = Qt.MouseButton.LeftButton


def test_losses_and_error_rates_are_named_for_what_they_are(qtbot, training_tab):
    """The monitors NNC calls Training/Validation Error are losses; a sweep's "error" is
    1 - accuracy."""
    header = training_tab.table.horizontalHeaderItem
    labels = [header(c).text() for c in range(training_tab.table.columnCount())]
    assert "Training loss" in labels and "Validation loss" in labels
    assert not any("error" in text.lower() for text in labels)
    with qtbot.waitSignal(training_tab.run_ended, timeout=300000) as ended:
        qtbot.mouseClick(training_tab.run_button, LEFT)
    assert ended.args == ["finished"]
    legend = [t.get_text() for t in training_tab.curve.axes.get_legend().get_texts()]
    assert legend == ["cost", "training loss", "validation loss"]
    assert training_tab.curve.axes.get_ylabel() == "cost / loss"
    training_tab.table.selectRow(0)
    qtbot.mouseClick(training_tab.quantize_button, LEFT)
    table = training_tab.quantization_dialog.table
    sweep = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    assert "error rate" in sweep and "error" not in sweep
    training_tab.quantization_dialog.close()
