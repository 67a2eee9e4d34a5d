"""Help: the menu (its pages are :mod:`console_app.help_pages`, loaded when one is first opened);
the app icon and the category icons of the palette.

The category icons are drawn in the colours the canvas and the report use
(``engine.report.layout.color_of``).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import QMenu

from console_app.language import translate
from engine.core import optional
from engine.package_data import data_folder

help_pages = optional.lazy("console_app.help_pages")  # when a page is first opened

__all__ = ["add_help_menu", "app_icon", "category_icon"]


def app_icon() -> QIcon:
    """NeuroCanvas's icon (``resources/neurocanvas.svg``); an empty icon if it is missing."""
    folder = data_folder("neurocanvas_resources", "resources")
    path = folder / "neurocanvas.svg" if folder else None
    return QIcon(str(path)) if path and path.is_file() else QIcon()


def category_icon(color: str, category: str, size: int = 16) -> QIcon:
    """A rounded square in the category's colour with its initial, for the palette."""
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setBrush(QColor(color))
    painter.setPen(QColor(color).darker(140))
    painter.drawRoundedRect(QRectF(0.5, 0.5, size - 1, size - 1), 3, 3)
    font = QFont()
    font.setPixelSize(int(size * 0.7))
    font.setBold(True)
    painter.setFont(font)
    painter.setPen(QColor("white"))
    painter.drawText(QRectF(0, 0, size, size), Qt.AlignmentFlag.AlignCenter, category[:1])
    painter.end()
    return QIcon(pixmap)


def add_help_menu(window: Any) -> QMenu:
    """The Help menu at the end of ``window``'s menu bar."""
    menu = window.menuBar().addMenu(translate("HelpMenu", "&Help"))
    menu.addAction(translate("HelpMenu", "&Tour"), lambda: help_pages.show_tour(window))
    menu.addAction(
        translate("HelpMenu", "&Keyboard Shortcuts"), lambda: help_pages.show_shortcuts(window)
    )
    menu.addSeparator()
    menu.addAction(
        translate("HelpMenu", "&About NeuroCanvas"), lambda: help_pages.show_about(window)
    )
    return menu
