"""Help: the README's tour, the keyboard shortcuts and About, opened from the menu bar; the app
and palette icons (issue 35, item 19)."""

from __future__ import annotations

import platform
import re
from pathlib import Path

import numpy
import PySide6

from console_app.editor.palette import PaletteWidget
from console_app.help_menu import app_icon

ROOT = Path(__file__).resolve().parents[2]


def _open(window, qtbot, text: str):
    """Click Help, then the item: the menus as a user opens them."""
    menu = window.help_menu
    action = next(a for a in menu.actions() if a.text().replace("&", "") == text)
    action.trigger()
    qtbot.waitUntil(lambda: getattr(window, "help_page", None) is not None
                    and window.help_page.isVisible())  # fmt: skip
    return window.help_page


def test_help_is_the_last_menu_with_tour_shortcuts_and_about(make_window):
    window = make_window()
    assert window.menuBar().actions()[-1].text() == "&Help"
    texts = [a.text().replace("&", "") for a in window.help_menu.actions() if a.text()]
    assert texts == ["Tour", "Keyboard Shortcuts", "About NeuroCanvas"]


def test_tour_shows_the_readmes_tour_section(make_window, qtbot):
    window = make_window()
    page = _open(window, qtbot, "Tour")
    shown = page.body.toPlainText()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    tour = re.search(r"^## Tour\n(.*?)(?=^## )", readme, re.MULTILINE | re.DOTALL).group(1)
    headings = re.findall(r"^### (.+)$", tour, re.MULTILINE)
    assert len(headings) >= 5 and all(h.replace("`", "") in shown for h in headings)
    after = readme.split(tour, 1)[1].splitlines()  # "## Formats" and its text: not shown
    assert next(line for line in after[1:] if line.strip()) not in shown


def test_keyboard_shortcuts_lists_the_windows_own_shortcuts(make_window, qtbot):
    window = make_window()
    table = _open(window, qtbot, "Keyboard Shortcuts").body
    rows = {table.item(r, 0).text(): table.item(r, 1).text() for r in range(table.rowCount())}
    save = window.actions_by_name["save"]
    assert rows[save.text().replace("&", "")] == save.shortcut().toString() == "Ctrl+S"
    expected = sum(not a.shortcut().isEmpty() for a in window.actions_by_name.values())
    assert len(rows) == expected >= 10


def test_about_names_the_versions(make_window, qtbot):
    window = make_window()
    text = _open(window, qtbot, "About NeuroCanvas").body.toPlainText()
    assert "NeuroCanvas" in text and platform.python_version() in text
    assert numpy.__version__ in text and PySide6.__version__ in text


def test_the_app_and_the_palette_categories_have_icons(make_window):
    assert not app_icon().isNull()
    assert app_icon().pixmap(64, 64).width() == 64
    window = make_window()
    palette = window.findChild(PaletteWidget)
    top = [palette.tree.topLevelItem(i) for i in range(palette.tree.topLevelItemCount())]
    assert len(top) >= 10 and all(not item.icon(0).isNull() for item in top)
