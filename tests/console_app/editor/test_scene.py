"""The canvas mirrors the model; gestures become one undo step each."""

from __future__ import annotations

import pytest
from gui_driver import drop
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QDropEvent
from PySide6.QtTest import QTest

from console_app.editor import geometry as g
from engine.graph.project import Layer, Link

pytestmark = pytest.mark.gui


def _viewport_point(view, scene_point: QPointF) -> QPoint:
    return view.mapFromScene(scene_point)


def _empty(make_window):
    window = make_window()
    window.show()
    window.new_project()
    return window, window.edit_tab.current_view(), window.edit_tab.current_scene()


def test_drag_from_palette_creates_a_layer(make_window, qtbot):
    window, view, scene = _empty(make_window)
    palette = window.edit_tab.palette
    data = palette.tree.mimeData([palette.items["Convolution"]])
    target = _viewport_point(view, QPointF(107, 83))
    drop = QDropEvent(QPointF(target), Qt.DropAction.CopyAction, data,
                      Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)  # fmt: skip
    view.dropEvent(drop)
    network = window.document.project.network("Main")
    assert network.layer_names == ("Convolution",)
    layer = network.layer("Convolution")
    assert layer.properties["OutMaps"] == "16"  # catalogue default
    assert layer.position == (120, 96)  # snapped to the 20 px grid = 24 file units
    assert scene.layer_items["Convolution"].isSelected()
    window.undo()
    assert network.layer_names == () and scene.layer_items == {}


def test_double_click_in_palette_adds_below_the_others(make_window):
    window, _view, scene = _empty(make_window)
    window.edit_tab.palette.layer_activated.emit("Input")
    window.edit_tab.palette.layer_activated.emit("Affine")
    network = window.document.project.network("Main")
    assert network.layer_names == ("Input", "Affine")
    assert network.layer("Affine").position[1] == network.layer("Input").position[1] + 48


def test_dragging_between_pins_links_and_updates_shapes(make_window, qtbot):
    window, view, scene = _empty(make_window)
    doc = window.document
    network = doc.project.network("Main")
    with doc.macro("setup"):
        doc.push(_add(network, Layer("Input", "Input", {"Size": "1,28,28"}, position=(24, 24))))
        doc.push(_add(network, Layer("Affine", "Affine", {"OutShape": "100"}, position=(24, 120))))
    assert scene.layer_items["Affine"].stat_text == "?"  # no input yet
    source = scene.layer_items["Input"].pin_pos("out")
    dest = scene.layer_items["Affine"].pin_pos("in", 0)
    QTest.mousePress(view.viewport(), Qt.MouseButton.LeftButton, pos=_viewport_point(view, source))
    QTest.mouseMove(view.viewport(), _viewport_point(view, (source + dest) / 2))
    QTest.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, pos=_viewport_point(view, dest))
    assert [(k.source, k.destination, k.dest_pin) for k in network.links] == [
        ("Input", "Affine", 0)
    ]
    assert scene.layer_items["Affine"].stat_text == "100"
    assert len(scene.link_items) == 1
    assert window.edit_tab.statistics.value("CostParameter") == f"{784 * 100 + 100:,}"
    window.undo()
    assert network.links == () and scene.link_items == {}
    assert scene.layer_items["Affine"].stat_text == "?"


def test_the_canvas_stays_put_and_links_forgive_near_misses(lenet_window, qtbot):
    """Defect 4: a drop or the status bar appearing scrolled the view by tens of pixels."""
    window = lenet_window
    window.show()
    qtbot.waitExposed(window)
    view, scene = window.edit_tab.current_view(), window.edit_tab.current_scene()
    network = window.document.project.network("Main")
    pin = scene.layer_items["Input"].pin_pos("out")
    seen = view.mapFromScene(pin)
    target = view.mapFromScene(scene.layer_items["Input"].mapToScene(QPointF(300, 0)))
    data = window.edit_tab.palette.tree.mimeData([window.edit_tab.palette.items["Tanh"]])
    before = set(network.layer_names)
    drop(view.viewport(), target, data)
    (added,) = set(network.layer_names) - before
    window.show_message("shown")
    qtbot.wait(50)
    assert view.mapFromScene(pin) == seen
    # Zoomed out to half, a press 9 screen px beside the pin still takes it, and a link
    # released on a box (not on its pin) goes into its main input.
    view.zoom_by(0.5 / view.zoom())
    start = view.mapFromScene(pin) + QPoint(9, 0)
    end = view.mapFromScene(scene.layer_items[added].mapToScene(QPointF(120, 15)))
    QTest.mousePress(view.viewport(), Qt.MouseButton.LeftButton, pos=start)
    QTest.mouseMove(view.viewport(), end)
    QTest.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, pos=end)
    assert ("Input", added, 0) in [(k.source, k.destination, k.dest_pin) for k in network.links]


def test_link_into_a_side_connector_and_replacing_a_single_input(make_window):
    window, _view, scene = _empty(make_window)
    doc = window.document
    net = doc.project.network("Main")
    with doc.macro("setup"):
        for name, type_, y in (("A", "Input", 24), ("B", "Input", 72), ("L", "SquaredError", 168)):
            doc.push(_add(net, Layer(name, type_, {"Size": "10"}, position=(24, y))))
    assert scene.connect_pins("A", "L", 0)
    assert scene.connect_pins("B", "L", 1)  # T
    assert scene.connect_pins("B", "L", 0)  # replaces A -> L on the single main input
    assert {(k.source, k.dest_pin) for k in net.links} == {("B", 0), ("B", 1)}
    assert doc.stack.undo_text() == "Connect B to L"
    window.undo()
    assert {(k.source, k.dest_pin) for k in net.links} == {("A", 0), ("B", 1)}
    assert not scene.connect_pins("L", "L", 0)


def test_moving_a_selection_is_one_undo_step(lenet_window, qtbot):
    window = lenet_window
    window.show()
    view, scene = window.edit_tab.current_view(), window.edit_tab.current_scene()
    network = window.document.project.network("Main")
    before = {n: network.layer(n).position for n in ("ReLU", "MaxPooling")}
    scene.select_layers(["ReLU", "MaxPooling"])
    item = scene.layer_items["ReLU"]
    start = item.mapToScene(QPointF(60, 20))
    steps = len(window.document.stack)
    QTest.mousePress(view.viewport(), Qt.MouseButton.LeftButton, pos=_viewport_point(view, start))
    for dx in (10, 30, 50, 60):
        QTest.mouseMove(view.viewport(), _viewport_point(view, start + QPointF(dx, 0)))
    QTest.mouseRelease(
        view.viewport(),
        Qt.MouseButton.LeftButton,
        pos=_viewport_point(view, start + QPointF(60, 0)),
    )
    assert len(window.document.stack) == steps + 1
    moved = {n: network.layer(n).position for n in before}
    assert all(moved[n][0] == before[n][0] + 72 for n in before)  # 60 px = 72 file units
    assert all(moved[n][1] == before[n][1] for n in before)
    window.undo()
    assert {n: network.layer(n).position for n in before} == before
    assert scene.layer_items["ReLU"].pos().x() == pytest.approx(before["ReLU"][0] * g.FILE_TO_SCENE)


def test_undo_redo_of_each_edit_kind_keeps_the_canvas_in_step(lenet_window):
    from engine.graph import commands as C

    window = lenet_window
    doc, scene = window.document, window.edit_tab.current_scene()
    net = doc.project.network("Main")
    original = [(l.name, l.position) for l in net.layers]

    def mirrored():
        assert set(scene.layer_items) == set(net.layer_names)
        assert {i.link.id for i in scene.link_items.values()} == {k.id for k in net.links}
        for name, item in scene.layer_items.items():
            assert item.layer == net.layer(name)
            assert (item.pos().x(), item.pos().y()) == pytest.approx(
                g.to_scene(net.layer(name).position)
            )

    edits = [
        C.AddLayer(net, net.new_layer("Dropout", (480, 24))),
        C.RenameLayer(net, "ReLU", "Act"),
        C.SetProperty(net, "Convolution", "OutMaps", "8"),
        C.MoveLayers(net, {"Affine": (480, 480)}),
        C.Disconnect(net, net.inputs_of("Softmax")[0]),
        C.Connect(net, Link("Affine", "Softmax")),
        C.RemoveLayer(net, "MaxPooling_2"),
    ]
    for command in edits:
        doc.push(command)
        mirrored()
    assert scene.layer_items["Convolution"].stat_text == "8,22,22"
    for _ in edits:
        window.undo()
        mirrored()
    assert [(l.name, l.position) for l in net.layers] == original
    assert scene.layer_items["Convolution"].stat_text == "16,22,22"
    for _ in edits:
        window.redo()
        mirrored()
    assert "MaxPooling_2" not in scene.layer_items and "Act" in scene.layer_items


def test_delete_selection_is_one_step_and_errors_show_on_the_box(lenet_window):
    window = lenet_window
    doc, scene = window.document, window.edit_tab.current_scene()
    net = doc.project.network("Main")
    scene.select_layers(["ReLU"])
    window.delete()
    assert not net.has_layer("ReLU")
    item = scene.layer_items["MaxPooling"]
    assert item.error and "nothing is linked into its input" in item.error
    assert "nothing is linked into its input" in item.toolTip()
    problems = [str(p) for p in window.edit_tab.problems.problems]
    assert any('layer "MaxPooling"' in p for p in problems)
    window.undo()
    assert net.has_layer("ReLU") and len(net.inputs_of("ReLU")) == 1
    assert scene.layer_items["MaxPooling"].error is None
    assert window.edit_tab.problems.count() == 0


def test_problem_list_jumps_to_the_layer(lenet_window):
    window = lenet_window
    doc = window.document
    net = doc.project.network("Main")
    from engine.graph import commands as C

    doc.push(C.SetProperty(net, "Convolution_2", "KernelShape", "30,30"))
    assert window.edit_tab.problems.count() >= 1
    window.edit_tab.current_scene().clearSelection()
    window.edit_tab.problems.problem_activated.emit("Main", "Convolution_2")
    assert window.edit_tab.current_scene().selected_layers() == ["Convolution_2"]
    assert window.edit_tab.property_pane.layer_name == "Convolution_2"


def _add(network, layer):
    from engine.graph import commands as C

    return C.AddLayer(network, layer)


def test_choosing_a_statistic_shows_it_beside_every_layer(lenet_window):
    window = lenet_window
    tab = window.edit_tab
    scene = tab.current_scene()
    tab.statistics.cellClicked.emit(4, 0)  # CostMultiplyAdd
    assert scene.statistic == "CostMultiplyAdd"
    conv = scene.layer_items["Convolution"]
    assert conv.stat_text == "379,456" and conv.stat_fraction == pytest.approx(379_456 / 379_456)
    conv2 = scene.layer_items["Convolution_2"]
    assert conv2.stat_text == f"{30 * 16 * 9 * 81:,}"
    assert conv2.stat_fraction == pytest.approx(30 * 16 * 9 * 81 / 379_456)
    assert scene.layer_items["ReLU"].stat_text == "0"
    tab.statistics.cellClicked.emit(8, 0)  # UniqueParameters: not per layer, nothing changes
    assert scene.statistic == "CostMultiplyAdd"
    tab.statistics.choose("Output")
    assert conv.stat_text == "16,22,22" and conv.stat_fraction is None


def test_selected_link_is_deleted_and_view_zooms(lenet_window):
    window = lenet_window
    scene, view = window.edit_tab.current_scene(), window.edit_tab.current_view()
    net = window.document.project.network("Main")
    link = net.inputs_of("Softmax")[0]
    scene.clearSelection()
    scene.link_items[link.id].setSelected(True)
    window.delete()
    assert net.inputs_of("Softmax") == () and net.has_layer("Affine_2")
    assert scene.layer_items["Softmax"].error
    window.undo()
    assert net.inputs_of("Softmax") == (link,)
    zoom = view.zoom()
    window.actions_by_name["zoom_in"].trigger()
    assert view.zoom() == pytest.approx(zoom * 1.2)
    window.actions_by_name["zoom_out"].trigger()
    window.actions_by_name["zoom_out"].trigger()
    assert view.zoom() == pytest.approx(zoom / 1.2)
    window.actions_by_name["snap"].trigger()
    assert not scene.snap_to_grid


def test_the_rubber_band_selects_what_it_encloses(lenet_window, qtbot):
    """Defect 9: layers the band merely touched were selected."""
    window = lenet_window
    window.show()
    qtbot.waitExposed(window)
    view, scene = window.edit_tab.current_view(), window.edit_tab.current_scene()
    first, second = scene.layer_items["Input"], scene.layer_items["Convolution"]
    corner = first.mapToScene(QPointF(-8, -10))
    half = second.mapToScene(QPointF(g.BOX_W + 8, g.BOX_H / 2))  # over half of the second
    QTest.mousePress(view.viewport(), Qt.MouseButton.LeftButton, pos=view.mapFromScene(corner))
    QTest.mouseMove(view.viewport(), view.mapFromScene((corner + half) / 2))
    QTest.mouseMove(view.viewport(), view.mapFromScene(half))
    QTest.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, pos=view.mapFromScene(half))
    assert scene.selected_layers() == ["Input"]


def test_convolution_boxes_show_out_maps_and_kernel_shape(lenet_window):
    scene = lenet_window.edit_tab.current_scene()
    net = lenet_window.document.project.network("Main")
    conv = net.layer("Convolution").properties
    subtitle = scene.layer_items["Convolution"].subtitle
    assert f": {conv['OutMaps']}" in subtitle and f": {conv['KernelShape']}" in subtitle
    assert subtitle.index(conv["OutMaps"]) < subtitle.index(conv["KernelShape"])  # NNC's order


def test_problem_messages_are_shown_whole(lenet_window, qtbot):
    window = lenet_window
    window.show()
    qtbot.waitExposed(window)
    scene, problems = window.edit_tab.current_scene(), window.edit_tab.problems
    scene.select_layers(["ReLU"])
    window.delete()
    window.edit_tab.refresh()
    item = problems.item(0)
    text = item.text()
    assert item.toolTip() == text and "nothing is linked into its input" in text
    rect = problems.visualItemRect(item)
    line = problems.fontMetrics().height()
    needed = problems.fontMetrics().horizontalAdvance(text)
    assert needed <= rect.width() or rect.height() >= 2 * line  # fits, or wraps onto more lines
    assert rect.right() <= problems.viewport().width()
