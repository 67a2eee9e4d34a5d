import pytest

pytest.importorskip("pytestqt", reason="pytest-qt is part of the test extra")

from console_app.main_window import TABS, MainWindow  # noqa: E402


@pytest.mark.gui
def test_main_window_has_nnc_tabs(qtbot):
    window = MainWindow()
    qtbot.addWidget(window)
    assert [window.tabs.tabText(i) for i in range(window.tabs.count())] == list(TABS)
