"""Help's pages: the README's tour as a local page, the keyboard shortcuts, About with versions.

Nothing here is a second copy: the tour is the README's own "Tour" section (from the installed
package's metadata, whose long description is the README, or from the checkout's README.md), and
the shortcuts are read from the window's actions. :mod:`console_app.help_menu` loads this module
when a page is first opened.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import platform
import re
from pathlib import Path
from typing import Any

import numpy
import PySide6
from PySide6.QtCore import Qt, qVersion
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
)

from console_app.language import current, translate
from engine.package_data import data_folder

__all__ = ["show_about", "show_shortcuts", "show_tour", "tour_markdown"]

_CHECKOUT_README = Path(__file__).resolve().parents[1] / "README.md"


def _readme() -> str:
    if _CHECKOUT_README.is_file():  # a checkout: the file being edited, not a stale install
        return _CHECKOUT_README.read_text(encoding="utf-8")
    try:
        meta = importlib.metadata.metadata("neurocanvas")
    except importlib.metadata.PackageNotFoundError:
        return ""
    return meta.get_payload() or meta.get("Description") or ""  # type: ignore[attr-defined]


def tour_markdown() -> str:
    """The tour in the interface's language: ``resources/help/tour.<lang>.md`` where one is
    written (a tour of the app in that language), else the README's "Tour" section (Markdown),
    else a line saying where to find it."""
    folder = data_folder("neurocanvas_resources", "resources")
    translated = folder / "help" / f"tour.{current()}.md" if folder else None
    if translated is not None and translated.is_file():
        return translated.read_text(encoding="utf-8")
    match = re.search(r"^## Tour\n(.*?)(?=^## )", _readme(), re.MULTILINE | re.DOTALL)
    if match is None:
        return "The tour is in the README: https://pypi.org/project/neurocanvas/"
    return "# Tour\n" + match.group(1)


def _versions() -> list[tuple[str, str]]:
    try:
        version = importlib.metadata.version("neurocanvas")
    except importlib.metadata.PackageNotFoundError:
        version = "not installed (source checkout)"
    return [
        ("NeuroCanvas", version),
        ("Python", platform.python_version()),
        ("Qt", f"{qVersion()} (PySide6 {PySide6.__version__})"),
        ("NumPy", numpy.__version__),
        # Not probed here: the app's own process never touches the GPU (its trainers do).
        (
            "GPU training",
            "CuPy installed"
            if importlib.util.find_spec("cupy")
            else "not available (CuPy not installed: pip install 'neurocanvas[gpu]')",
        ),
        ("System", platform.platform()),
    ]


class _Page(QDialog):
    """A closable dialog around one widget."""

    def __init__(self, parent: Any, title: str, body: Any, size: tuple[int, int]) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.body = body
        layout = QVBoxLayout(self)
        layout.addWidget(body)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(*size)


def show_tour(window: Any) -> _Page:
    browser = QTextBrowser()
    browser.setOpenExternalLinks(True)
    browser.setSearchPaths([str(_CHECKOUT_README.parent)])  # the README's screenshots
    browser.setMarkdown(tour_markdown())
    return _open(
        window, _Page(window, translate("HelpMenu", "NeuroCanvas Tour"), browser, (900, 700))
    )


def _plain(text: str) -> str:
    """A menu text without its mnemonic: ``&Copy`` -> ``Copy``, ``コピー(&C)`` -> ``コピー``."""
    return re.sub(r"\(&\w\)", "", text).replace("&", "").strip()


def show_shortcuts(window: Any) -> _Page:
    rows = sorted(
        (_plain(action.text()), action.shortcut().toString())
        for action in window.actions_by_name.values()
        if not action.shortcut().isEmpty()
    )
    table = QTableWidget(len(rows), 2)
    table.setHorizontalHeaderLabels(
        [
            translate("HelpMenu", "Command"),
            translate("HelpMenu", "Shortcut"),
        ]
    )
    table.verticalHeader().hide()
    for r, (text, keys) in enumerate(rows):
        table.setItem(r, 0, QTableWidgetItem(text))
        table.setItem(r, 1, QTableWidgetItem(keys))
    table.resizeColumnsToContents()
    table.horizontalHeader().setStretchLastSection(True)
    return _open(
        window, _Page(window, translate("HelpMenu", "Keyboard Shortcuts"), table, (460, 520))
    )


def show_about(window: Any) -> _Page:
    rows = "".join(f"<tr><td><b>{k}</b></td><td>{v}</td></tr>" for k, v in _versions())
    browser = QTextBrowser()
    browser.setHtml(
        translate(
            "HelpMenu",
            "<h2>NeuroCanvas</h2><p>An open-source, cross-platform Neural Network "
            "Console: draw networks, train and evaluate them, export and report. "
            "Apache-2.0.</p><table cellpadding='3'>{rows}</table>",
        ).format(rows=rows)
    )
    return _open(
        window, _Page(window, translate("HelpMenu", "About NeuroCanvas"), browser, (560, 360))
    )


def _open(window: Any, page: _Page) -> _Page:
    page.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    window.help_page = page  # what is shown (tests read it)
    page.open()
    return page
