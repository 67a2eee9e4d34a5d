"""Issue 35, item 15: networks open a little in from the top-left corner (a unit's, the new
quantized one), the Argument box clears the Input's shape, and after Edit > Quantize Network and
Zoom to Fit no wire crosses a box (the W/b chains stand above their layer)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QAction, QFontMetricsF
from PySide6.QtWidgets import QDialogButtonBox

from console_app.editor import geometry as g
from console_app.editor import layer_item
from console_app.editor.view import EDGE

pytestmark = pytest.mark.gui
ROOT = Path(__file__).resolve().parents[3]
LEFT = Qt.MouseButton.LeftButton


def _show_network(qtbot, window, name):
    bar = window.edit_tab.networks.tabBar()
    index = next(i for i in range(bar.count()) if bar.tabText(i) == name)
    qtbot.mouseClick(bar, LEFT, pos=bar.tabRect(index).center())
    assert window.edit_tab.current_network() == name
    return window.edit_tab.current_view()


def _wait_for_corner(qtbot, view):
    """The view scrolls the network flush against its corner once laid out: on the event
    loop's turns, later on a busy machine (looked at after a fixed 50 ms before)."""
    qtbot.waitUntil(lambda: _corner(view) == (EDGE, EDGE))


def _corner(view):
    point = view.mapFromScene(view.scene().itemsBoundingRect().topLeft())
    return point.x(), point.y()


def _box(item, pad: float = 0.0) -> QRectF:
    return item.mapRectToScene(QRectF(0, 0, g.BOX_W, g.BOX_H)).adjusted(pad, pad, -pad, -pad)


def _shape_text(item) -> QRectF:
    """Where the shape (the chosen statistic) is drawn beside the box."""
    width = QFontMetricsF(layer_item._TEXT_FONT).horizontalAdvance(item.stat_text)  # noqa: SLF001
    return item.mapRectToScene(QRectF(g.STAT_X, 2, width, 14))


def _chain(scene, name: str) -> bool:
    """A layer of a W/b chain: a parameter's quantizer or the Parameter feeding it."""
    item = scene.layer_items[name]
    return item.layer.type == "Parameter" or name.endswith(("_W_Quantize", "_b_Quantize"))


def _crossings(scene) -> list[tuple[str, str, str]]:
    """(link source, link destination, box crossed) for wires through other layers' boxes,
    where the wire or the box is a W/b chain's (the residual unit's own skip link runs down
    its column, as the sample draws it)."""
    found = []
    items = scene.layer_items
    for link in scene.link_items.values():
        path = link.mapToScene(link.path())
        ends = {link.link.source, link.link.destination}
        for name, item in items.items():
            if name in ends:
                continue
            box = _box(item, 2.0)
            if not any(_chain(scene, n) for n in (*ends, name)):
                continue
            if any(box.contains(path.pointAtPercent(k / 200)) for k in range(201)):
                found.append((link.link.source, link.link.destination, name))
    return found


def _overlapping_boxes(scene) -> list[tuple[str, str]]:
    items = list(scene.layer_items.items())
    return [(a, b) for i, (a, ia) in enumerate(items) for b, ib in items[i + 1 :]
            if _box(ia).intersects(_box(ib))]  # fmt: skip


def test_units_and_the_quantized_network_open_clear_of_the_edges_and_no_wire_crosses_a_box(
    qtbot, make_window, tmp_path
):
    project = tmp_path / "residual.ncproj"
    shutil.copyfile(ROOT / "projects" / "residual_digits.ncproj", project)
    window = make_window(project)
    window.resize(1366, 768)
    window.show()
    qtbot.waitExposed(window)
    _wait_for_corner(qtbot, window.edit_tab.current_view())
    unit = _show_network(qtbot, window, "ResidualBlock")
    _wait_for_corner(qtbot, unit)  # it opened flush against the corner
    scene = unit.network_scene
    maps = scene.layer_items["Maps"]
    for name, item in scene.layer_items.items():  # the Argument covered "16,28,28"
        if name != "Maps" and item.stat_text:
            assert not _box(maps).intersects(_shape_text(item)), name
    # Edit > Quantize Network, a fixed Delta: the new network's tab is shown.
    _show_network(qtbot, window, "Main")
    (action,) = [a for a in window.findChildren(QAction) if a.objectName() == "quantize_network"]
    action.trigger()
    dialog = window.quantize_dialog
    dialog.delta_mode.setCurrentIndex(dialog.delta_mode.count() - 1)  # Fixed (no job yet)
    qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), LEFT)
    assert window.edit_tab.current_network() == "Main_q8"
    view = window.edit_tab.current_view()
    _wait_for_corner(qtbot, view)  # "ock_Quantize": scrolled so names were cut
    scene = view.network_scene
    assert scene.layer_items["Convolution_W_Quantize"] and scene.layer_items["Affine_b_Quantize"]
    assert _overlapping_boxes(scene) == []
    assert _crossings(scene) == []
    (fit,) = [a for a in window.findChildren(QAction) if a.text() == "Zoom to &Fit"]
    fit.trigger()
    rect = view.mapFromScene(scene.itemsBoundingRect()).boundingRect()
    assert rect.left() >= EDGE and rect.top() >= EDGE  # a margin, not flush with the edge
    assert rect.right() <= view.viewport().width() and rect.bottom() <= view.viewport().height()
    for name in ("Main_q8_Res1", "Main_q8_Res2"):  # the quantized unit copies too
        copy = _show_network(qtbot, window, name)
        _wait_for_corner(qtbot, copy)
        assert _overlapping_boxes(copy.network_scene) == []
        assert _crossings(copy.network_scene) == [], name
