import pytest

from console_app.main_window import TABS, MainWindow


@pytest.mark.gui
def test_main_window_has_nnc_tabs(qtbot):
    window = MainWindow()
    qtbot.addWidget(window)
    assert [window.tabs.tabText(i) for i in range(window.tabs.count())] == list(TABS)
