"""The EDIT tab: palette and property pane (left), one canvas per network (centre), network
statistics, overview and problems (right).

After every user action (the document's notification) the visible canvas, the statistics, the
problems list and the property pane are refreshed once from the cached inference; canvases of
other networks are refreshed when they are shown. When the app starts, the statistics and the
problems list (which validates every network, units calling the big one included) are filled
just after the canvas is first painted (``EditTab(panes_after_first_paint=True)``).
"""

from __future__ import annotations

import logging
from dataclasses import replace

from PySide6.QtCore import QEvent, QObject, QPoint, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QProxyStyle,
    QSplitter,
    QStyle,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from console_app.document import Document
from console_app.editor.overview import Overview
from console_app.editor.palette import PaletteWidget
from console_app.editor.problems import ProblemsList
from console_app.editor.property_pane import PropertyPane
from console_app.editor.scene import NetworkScene
from console_app.editor.statistics_pane import StatisticsPane
from console_app.editor.view import NetworkView
from console_app.language import translate
from engine.core.messages import QT_TRANSLATE_NOOP
from engine.graph import commands as C
from engine.graph.network import Link
from engine.graph.statistics import network_statistics
from engine.graph.validate import Problem
from engine.graph.wiring import has_output
from engine.layers import find_spec
from engine.layers.spec import Inputs

FILE_ROW = 48  # one row of NNC's layout, in file units (a box's height and its gap)
# The longest the statistics and problems wait for the canvas's first paint (a window that is
# not shown, or shown minimized, never paints it).
PANES_WAIT_MS = 500
_log = logging.getLogger(__name__)


def _titled(title: str, widget: QWidget) -> QWidget:
    host = QWidget()
    layout = QVBoxLayout(host)
    layout.setContentsMargins(2, 2, 2, 2)
    label = QLabel(f"<b>{title}</b>")
    layout.addWidget(label)
    layout.addWidget(widget, 1)
    return host


class UnclippedTabText(QProxyStyle):
    """Network names often hold underscores (``Main_q8``); Fusion clips the tab's text rect at
    the font's descent line, so the underscore vanished ("Main q8"). Two pixels more below."""

    def subElementRect(self, element, option, widget=None):  # noqa: ANN001, N802 - Qt's API
        rect = super().subElementRect(element, option, widget)
        if element == QStyle.SubElement.SE_TabBarTabText:
            rect = rect.adjusted(0, -1, 0, 2)
        return rect


class _FirstPaint(QObject):
    """Calls ``then`` once, on the event loop's next turn after ``widget`` is first painted or
    ``limit_ms`` after the event loop has started, whichever comes first."""

    def __init__(self, widget: QWidget, then, limit_ms: int, parent: QObject) -> None:  # noqa: ANN001
        super().__init__(parent)
        self.widget, self.then = widget, then
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.timeout.connect(self.fire)
        # The limit counts from the event loop's start (the window is built before it).
        QTimer.singleShot(0, self, lambda: self.then and self.timer.start(limit_ms))
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.Paint:
            self.widget.removeEventFilter(self)
            QTimer.singleShot(0, self, self.fire)
        return False

    def fire(self) -> None:
        then = self.then
        self.cancel()
        if then is not None:
            then()

    def cancel(self) -> None:
        self.then = None
        self.timer.stop()
        self.widget.removeEventFilter(self)


class EditTab(QWidget):
    message = Signal(str)
    # Right click on the network tabs: the tab's network ("" off the tabs), global position.
    tab_menu_requested = Signal(str, QPoint)

    def __init__(self, document: Document, parent: QWidget | None = None,
                 panes_after_first_paint: bool = False) -> None:  # fmt: skip
        """``panes_after_first_paint``: the statistics and the problems list of ``document``
        are filled on the event loop's turn after its canvas is first painted (or after
        :data:`PANES_WAIT_MS`), not before; the app's start (console_app.app) shows the network
        first. Other documents (File > Open) fill them at once."""
        super().__init__(parent)
        self.palette = PaletteWidget()
        self.statistics = StatisticsPane()
        self.overview = Overview()
        self.problems = ProblemsList()
        self.networks = QTabWidget()
        self.networks.setDocumentMode(True)
        self.breadcrumb = QLabel("")
        self.back = QToolButton()
        self.back.setText(translate("EditTab", "Back"))
        self.back.setEnabled(False)
        self.trail: list[str] = []
        self._panes_waiting: _FirstPaint | None = None
        self._panes_later = panes_after_first_paint
        self.property_pane: PropertyPane | None = None
        self.views: list[NetworkView] = []
        self.document: Document | None = None
        self._unsubscribe = [lambda: None]

        left = QSplitter(Qt.Orientation.Vertical)
        left.addWidget(_titled(translate("EditTab", "Layers"), self.palette))
        self._pane_host = QWidget()
        QVBoxLayout(self._pane_host).setContentsMargins(0, 0, 0, 0)
        left.addWidget(_titled(translate("EditTab", "Properties"), self._pane_host))
        left.setSizes([260, 440])

        centre = QWidget()
        top = QHBoxLayout()
        top.addWidget(self.back)
        top.addWidget(self.breadcrumb, 1)
        centre_layout = QVBoxLayout(centre)
        centre_layout.setContentsMargins(0, 0, 0, 0)
        centre_layout.addLayout(top)
        centre_layout.addWidget(self.networks, 1)

        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(_titled(translate("EditTab", "Network statistics"), self.statistics))
        right.addWidget(_titled(translate("EditTab", "Overview"), self.overview))
        right.addWidget(_titled(translate("EditTab", "Problems"), self.problems))
        title = self.fontMetrics().height() + 8  # the pane's bold title above the table
        right.setSizes([self.statistics.fitting_height() + title, 180, 140])

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(centre)
        splitter.addWidget(right)
        splitter.setStretchFactor(1, 1)
        # Wide enough that the property values (initializer names, file paths) are readable.
        splitter.setSizes([370, 720, 270])
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)

        self.palette.layer_activated.connect(self.add_layer)
        self.statistics.statistic_chosen.connect(self.set_statistic)
        self.problems.problem_activated.connect(self.focus_layer)
        self.networks.currentChanged.connect(self._tab_changed)
        bar = self.networks.tabBar()
        self._tab_style = UnclippedTabText(bar.style().name())  # kept: the bar does not own it
        bar.setStyle(self._tab_style)
        bar.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        bar.customContextMenuRequested.connect(self._tab_menu)
        self.back.clicked.connect(self.go_back)
        self.set_document(document)

    def _panes_painted(self) -> None:
        self._panes_waiting = None
        self._refresh_panes()

    # -- document --------------------------------------------------------------------------
    def set_document(self, document: Document) -> None:
        """Show another project (open, new): every canvas is rebuilt."""
        self._release()
        self.document = document
        self.property_pane = PropertyPane(document)
        self._pane_host.layout().addWidget(self.property_pane)
        self.networks.blockSignals(True)
        for network in document.project.networks:
            self._add_view(network)
        self.networks.blockSignals(False)
        self._unsubscribe = [
            document.subscribe(self.refresh),
            document.project.events.subscribe(
                self._on_network_event,
                kinds=("network_added", "network_removed", "network_renamed"),
            ),
        ]
        self.trail = [document.project.networks[0].name] if document.project.networks else []
        self.networks.setCurrentIndex(0)
        view = self.current_view()
        if self._panes_later and view is not None:
            self._panes_waiting = _FirstPaint(
                view.viewport(), self._panes_painted, PANES_WAIT_MS, self
            )
        self._panes_later = False  # the first document only
        self._tab_changed(0)

    def _release(self) -> None:
        if self._panes_waiting is not None:  # another document before the first paint
            self._panes_waiting.cancel()
            self._panes_waiting = None
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self.overview.follow(None)
        while self.networks.count():
            self._remove_tab(0)
        if self.property_pane is not None:
            self.property_pane.close_pane()
            self.property_pane.setParent(None)
            self.property_pane.deleteLater()
            self.property_pane = None

    def _add_view(self, network, index: int | None = None) -> NetworkView:  # noqa: ANN001
        scene = NetworkScene(self.document, network)  # type: ignore[arg-type]
        scene.statistic = self.statistics.chosen
        view = NetworkView(scene)
        scene.message.connect(self.message)
        scene.open_unit.connect(self.open_unit)
        scene.selectionChanged.connect(self._selection_changed)
        index = self.networks.count() if index is None else index
        self.views.insert(index, view)
        self.networks.insertTab(index, view, network.name)
        return view

    def _remove_tab(self, index: int) -> None:
        view = self.views.pop(index)
        self.networks.removeTab(index)
        view.network_scene.close()
        view.network_scene.selectionChanged.disconnect(self._selection_changed)
        view.deleteLater()
        view.network_scene.deleteLater()

    def _on_network_event(self, event) -> None:  # noqa: ANN001
        if event.kind == "network_added":
            self._add_view(event.obj, event.index)
        elif event.kind == "network_removed":
            index = next(
                i for i, v in enumerate(self.views) if v.network_scene.network is event.obj
            )
            self._remove_tab(index)
            self.trail = [n for n in self.trail if n != event.network]
        elif event.kind == "network_renamed":
            for i, view in enumerate(self.views):
                if view.network_scene.network.name == event.new:
                    self.networks.setTabText(i, event.new)
            self.trail = [event.new if n == event.old else n for n in self.trail]
            self._show_trail()

    # -- current canvas --------------------------------------------------------------------
    def current_view(self) -> NetworkView | None:
        index = self.networks.currentIndex()
        return self.views[index] if 0 <= index < len(self.views) else None

    def current_scene(self) -> NetworkScene | None:
        view = self.current_view()
        scene = view.scene() if view is not None else None
        return scene if isinstance(scene, NetworkScene) else None  # None while Qt tears down

    def view_of(self, network: str) -> NetworkView | None:
        return next((v for v in self.views if v.network_scene.network.name == network), None)

    def show_network(self, name: str) -> bool:
        view = self.view_of(name)
        if view is None:
            return False
        self.networks.setCurrentWidget(view)
        return True

    def current_network(self) -> str | None:
        scene = self.current_scene()
        return scene.network.name if scene is not None else None

    def _tab_menu(self, pos: QPoint) -> None:
        bar = self.networks.tabBar()
        index = bar.tabAt(pos)
        name = self.views[index].network_scene.network.name if 0 <= index < len(self.views) else ""
        self.tab_menu_requested.emit(name, bar.mapToGlobal(pos))

    def _tab_changed(self, _index: int) -> None:
        scene = self.current_scene()
        if scene is None:
            return
        name = scene.network.name
        if name not in self.trail:
            self.trail = [name]
        else:
            self.trail = self.trail[: self.trail.index(name) + 1]
        self._show_trail()
        self.overview.follow(self.current_view())
        self.refresh()
        self._selection_changed()

    def open_unit(self, network: str) -> None:
        """Show the network a Unit layer calls, remembering where we came from."""
        if not network or self.view_of(network) is None:
            self.message.emit(f'unit network "{network}" does not exist')
            return
        trail = [*self.trail, network]
        self.show_network(network)
        self.trail = trail
        self._show_trail()

    def go_back(self) -> None:
        if len(self.trail) > 1:
            trail = self.trail[:-1]
            self.show_network(trail[-1])
            self.trail = trail
            self._show_trail()

    def _show_trail(self) -> None:
        self.breadcrumb.setText(" \u203a ".join(self.trail))
        self.back.setEnabled(len(self.trail) > 1)

    # -- actions ---------------------------------------------------------------------------
    def add_layer(self, type_: str) -> str | None:
        """Palette double-click, as in NNC: with one layer selected the new layer is inserted
        after it (placed below it, the layers further down moved a row, linked from it, and
        taking over its outgoing main links); otherwise it goes below the others, unlinked.
        One undo step either way."""
        scene = self.current_scene()
        if scene is None or self.document is None:
            return None
        selected = scene.selected_layers()
        after = selected[0] if len(selected) == 1 else None
        spec = find_spec(type_)
        if (
            after is None
            or spec is None
            or spec.inputs is Inputs.NONE
            or not has_output(scene.network.layer(after).type)
        ):
            name = scene.add_layer(type_, scene.free_position())
        else:
            with self.document.macro(
                QT_TRANSLATE_NOOP("Commands", "Insert {type} after {layer}").format(
                    type=type_, layer=after
                )
            ):
                name = self._insert_after(scene, type_, after, has_output(type_))
        if name is not None:
            self.current_view().ensureVisible(scene.layer_items[name])  # type: ignore[union-attr]
        return name

    def _insert_after(self, scene, type_: str, after: str, relink: bool) -> str | None:  # noqa: ANN001
        network = scene.network
        x, y = network.layer(after).position
        below = {layer.name: (layer.position[0], layer.position[1] + FILE_ROW)
                 for layer in network.layers if layer.position[1] > y}  # fmt: skip
        if below:
            self.document.push(C.MoveLayers(network, below))
        layer = network.new_layer(type_, (x, y + FILE_ROW))
        if not self.document.push(C.AddLayer(network, layer)):
            return None
        outgoing = [k for k in network.outputs_of(after) if k.dest_pin == 0] if relink else []
        for link in outgoing:  # the new layer takes the selected one's place upstream of these
            self.document.push(C.Disconnect(network, link))
            self.document.push(C.Connect(network, replace(link, source=layer.name, id=None)))
        self.document.push(C.Connect(network, Link(after, layer.name)))
        scene.clearSelection()
        scene.layer_items[layer.name].setSelected(True)
        return layer.name

    def set_statistic(self, statistic: str) -> None:
        for view in self.views:
            view.network_scene.statistic = statistic
            view.network_scene.stale = True
        self.refresh()

    def focus_layer(self, network: str, layer: str) -> None:
        if not self.show_network(network):
            return
        scene = self.current_scene()
        if scene is not None and layer in scene.layer_items:
            scene.select_layers([layer])
            self.current_view().centerOn(scene.layer_items[layer])  # type: ignore[union-attr]

    def _selection_changed(self) -> None:
        scene = self.current_scene()
        if self.property_pane is None:
            return
        names = scene.selected_layers() if scene is not None else []
        if len(names) == 1:
            if (self.property_pane.network, self.property_pane.layer_name) != (
                scene.network,
                names[0],
            ):
                self.property_pane.show_layer(scene.network, names[0])  # type: ignore[union-attr]
        elif len(names) > 1:
            if self.property_pane.selected() != names:
                self.property_pane.show_layers(scene.network, names)  # type: ignore[union-attr]
        elif self.property_pane.layer_name is not None:
            self.property_pane.show_layer(None, None)

    # -- refresh after every action --------------------------------------------------------
    def refresh(self) -> None:
        if self.document is None:
            return
        for view in self.views:
            view.network_scene.stale = True
        scene = self.current_scene()
        if scene is not None:
            scene.refresh()
        if self._panes_waiting is None:
            self._refresh_panes()
        if self.property_pane is not None:
            self.property_pane.sync()
        self.overview.fit()

    def _refresh_panes(self) -> None:
        """The statistics of the network shown and the problems of every network."""
        if self.document is None:
            return
        scene = self.current_scene()
        if scene is not None:
            self._show_statistics(scene.network.name)
        self.problems.show_problems(self.all_problems())

    def _show_statistics(self, network: str) -> None:
        try:
            stats = network_statistics(self.document.network_inference(network))  # type: ignore[union-attr]
        except Exception:  # the pane stays empty; the problems list says what is wrong
            _log.debug("no statistics for %s", network, exc_info=True)
            stats = None
        self.statistics.show_statistics(stats)

    def all_problems(self) -> list[Problem]:
        assert self.document is not None
        problems: list[Problem] = []
        for network in self.document.project.networks:
            problems += self.document.problems(network.name)
        return problems
