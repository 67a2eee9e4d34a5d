"""The canvas of one network: mirrors the model and turns gestures into commands.

Model events (``layer_added``, ``link_removed``, ``layer_moved``, ...) add, remove and update
items; nothing else does. Gestures (drop a layer, drag a link between pins, move a selection,
delete) push commands on the document's stack and let the events come back. Derived values
(shapes, statistics, problems) are read from the document's inference in :meth:`refresh`,
which the edit tab calls once per user action.
"""

from __future__ import annotations

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt, Signal
from PySide6.QtWidgets import QGraphicsScene, QGraphicsSceneMouseEvent

from console_app.document import Document
from console_app.editor import geometry as g
from console_app.editor.layer_item import LayerItem
from console_app.editor.link_item import DraftLink, LinkItem
from console_app.language import shown, translate
from engine.core.messages import QT_TRANSLATE_NOOP, text_of
from engine.core.numbers import count_text, shape_text
from engine.graph import commands as C
from engine.graph.project import Link, ModelError, Network
from engine.layers import find_spec
from engine.layers.spec import STATISTICS, Inputs, Outputs
from engine.report.layout import unit_arguments

_EVENTS = (
    "layer_added", "layer_removed", "layer_renamed", "property_changed", "layer_moved",
    "link_added", "link_removed",
)  # fmt: skip


PIN_HIT_PX = 10.0


class NetworkScene(QGraphicsScene):
    message = Signal(str)  # a refused gesture, for the status bar
    open_unit = Signal(str)  # a Unit layer was double-clicked: the network it calls

    def __init__(self, document: Document, network: Network) -> None:
        super().__init__()
        self.document = document
        self.network = network
        self.snap_to_grid = True
        self.statistic = "Output"
        self.layer_items: dict[str, LayerItem] = {}
        self.link_items: dict[int, LinkItem] = {}
        self.stale = True
        self._draft: DraftLink | None = None
        self._draft_from: tuple[LayerItem, str, int] | None = None
        self._press_positions: dict[str, QPointF] = {}
        self.setBackgroundBrush(Qt.GlobalColor.white)
        self._unsubscribe = document.project.events.subscribe(self._on_event, kinds=_EVENTS)
        self.rebuild()

    def close(self) -> None:
        self._unsubscribe()

    # -- mirroring the model ---------------------------------------------------------------
    def rebuild(self) -> None:
        self.clear()
        self.layer_items.clear()
        self.link_items.clear()
        for layer in self.network.layers:
            self._add_layer_item(layer)
        for link in self.network.links:
            self._add_link_item(link)
        self.stale = True

    def _arguments(self, layer) -> dict[str, str] | None:  # noqa: ANN001
        """What a Unit layer's box shows of its unit's arguments (None for other layers)."""
        return unit_arguments(self.document.project, layer) if layer.type == "Unit" else None

    def _add_layer_item(self, layer) -> LayerItem:  # noqa: ANN001
        item = LayerItem(layer, self._arguments(layer))
        item.set_position(layer.position)
        self.addItem(item)
        self.layer_items[layer.name] = item
        return item

    def _add_link_item(self, link: Link) -> None:
        source = self.layer_items.get(link.source)
        dest = self.layer_items.get(link.destination)
        if source is None or dest is None or link.id is None:
            return
        item = LinkItem(link, source, dest)
        self.addItem(item)
        self.link_items[link.id] = item

    def _remove_link_item(self, link_id: int | None) -> None:
        item = self.link_items.pop(link_id, None) if link_id is not None else None
        if item is not None:
            item.detach()
            self.removeItem(item)

    def _on_event(self, event) -> None:  # noqa: ANN001 - an engine.graph.events.Event
        if event.network != self.network.name:
            return
        kind = event.kind
        self.stale = True
        if kind == "layer_added":
            self._add_layer_item(self.network.layer(event.layer.name))
        elif kind == "layer_removed":
            item = self.layer_items.pop(event.layer.name, None)
            if item is not None:
                for link in list(item.links):
                    self._remove_link_item(link.link.id)
                self.removeItem(item)
        elif kind == "layer_renamed":
            item = self.layer_items.pop(event.old)
            self.layer_items[event.new] = item
            item.set_layer(event.layer, self._arguments(event.layer))
            by_id = {link.id: link for link in self.network.links}
            for link_item in item.links:
                link_item.link = by_id.get(link_item.link.id, link_item.link)
        elif kind == "property_changed":
            layer = self.network.layer(event.layer)
            self.layer_items[event.layer].set_layer(layer, self._arguments(layer))
        elif kind == "layer_moved":
            item = self.layer_items[event.layer]
            item.layer = self.network.layer(event.layer)
            item.set_position(event.new)
        elif kind == "link_added":
            self._add_link_item(event.link)
        elif kind == "link_removed":
            self._remove_link_item(event.link.id)

    def refresh(self) -> None:
        """Show each layer's statistic and problems from the document's (cached) inference."""
        results = self.document.results(self.network.name)
        for item in self.layer_items.values():  # a unit's arguments may have changed
            if item.layer.type == "Unit":
                item.set_arguments(self._arguments(item.layer))
        errors: dict[str, str] = {}
        warnings: dict[str, str] = {}
        for problem in self.document.problems(self.network.name):
            if problem.layer is None:
                continue
            target = errors if problem.severity == "error" else warnings
            target.setdefault(problem.layer, problem.translated(translate, place=False))
        column = STATISTICS.index(self.statistic)
        maximum = max((r.stats[column] for r in results.values() if r.stats), default=0)
        for name, item in self.layer_items.items():
            result = results.get(name)
            text, fraction = "", None
            if result is not None and self.statistic == "Output":
                if result.shape is not None:
                    text = shape_text(result.shape)
                elif result.error:
                    text = "?"
            elif result is not None and result.stats is not None:
                value = result.stats[column]
                text = count_text(value)
                fraction = value / maximum if maximum else 0.0
            item.set_display(text, fraction, errors.get(name), warnings.get(name))
        self.stale = False

    def set_statistic(self, statistic: str) -> None:
        if statistic not in STATISTICS:
            raise ValueError(f"unknown statistic {statistic!r} (one of {', '.join(STATISTICS)})")
        self.statistic = statistic
        self.refresh()

    # -- edits -----------------------------------------------------------------------------
    def push(self, command: C.Command) -> bool:
        """Push a command; a refused edit becomes a message instead of an exception."""
        try:
            return self.document.push(command)
        except ModelError as exc:
            self.message.emit(shown(text_of(exc)))
            return False

    def add_layer(self, type_: str, scene_pos: QPointF) -> str | None:
        """Add a layer of ``type_`` with its top-left near ``scene_pos``; returns its name."""
        x, y = scene_pos.x(), scene_pos.y()
        if self.snap_to_grid:
            x, y = g.snap(x, y)
        layer = self.network.new_layer(type_, g.to_file(x, y))
        if not self.push(C.AddLayer(self.network, layer)):
            return None
        self.clearSelection()
        self.layer_items[layer.name].setSelected(True)
        return layer.name

    def free_position(self) -> QPointF:
        """Below the lowest layer, in the first column: where a double-clicked layer goes."""
        if not self.layer_items:
            return QPointF(g.GRID, g.GRID)
        bottom = max(item.pos().y() for item in self.layer_items.values())
        left = min(item.pos().x() for item in self.layer_items.values())
        return QPointF(left, bottom + g.CELL_H)

    def connect_pins(self, source: str, destination: str, dest_pin: int = 0) -> bool:
        """Link ``source``'s output to an input pin; a single input's old link is replaced."""
        if source == destination:
            self.message.emit(translate("Canvas", "a layer cannot be linked to itself"))
            return False
        source_spec = find_spec(self.network.layer(source).type)
        if source_spec is not None and source_spec.outputs is Outputs.NONE:
            self.message.emit(
                translate("Canvas", 'layer "{source}" has no output to link from').format(
                    source=source
                )
            )
            return False
        spec = find_spec(self.network.layer(destination).type)
        existing = self.network.inputs_of(destination)
        if any(k.source == source and k.dest_pin == dest_pin for k in existing):
            self.message.emit(
                translate(
                    "Canvas", '"{source}" is already linked to that input of "{destination}"'
                ).format(source=source, destination=destination)
            )
            return False
        single = dest_pin > 0 or (
            spec is not None and spec.inputs in (Inputs.SINGLE, Inputs.SINGLE_OR_NONE)
        )
        replaced = [k for k in existing if k.dest_pin == dest_pin] if single else []
        link = Link(source, destination, dest_pin)
        if not replaced:
            return self.push(C.Connect(self.network, link))
        try:
            with self.document.macro(C.CONNECT.format(source=source, destination=destination)):
                for old in replaced:
                    self.document.push(C.Disconnect(self.network, old))
                self.document.push(C.Connect(self.network, link))
        except ModelError as exc:
            self.message.emit(shown(text_of(exc)))
            return False
        return True

    def selected_layers(self) -> list[str]:
        """Selected layer names in network order (Qt's selection order is arbitrary)."""
        chosen = {i.name for i in self.selectedItems() if isinstance(i, LayerItem)}
        return [name for name in self.network.layer_names if name in chosen]

    def selected_links(self) -> list[Link]:
        return [i.link for i in self.selectedItems() if isinstance(i, LinkItem)]

    def delete_selected(self) -> bool:
        """Delete the selected layers (with their links) and links as one undo step."""
        layers = self.selected_layers()
        links = [k for k in self.selected_links() if not {k.source, k.destination} & set(layers)]
        if not layers and not links:
            return False
        try:
            with self.document.macro(QT_TRANSLATE_NOOP("Commands", "Delete")):
                for link in links:
                    self.document.push(C.Disconnect(self.network, link))
                for name in layers:
                    self.document.push(C.RemoveLayer(self.network, name))
        except ModelError as exc:
            self.message.emit(shown(text_of(exc)))
            return False
        return True

    def select_all(self) -> None:
        for item in self.items():
            item.setSelected(True)

    def select_layers(self, names: list[str]) -> None:
        self.clearSelection()
        for name in names:
            if name in self.layer_items:
                self.layer_items[name].setSelected(True)

    # -- gestures --------------------------------------------------------------------------
    def _pin_under(self, pos: QPointF, radius: float = 8.0) -> tuple[LayerItem, str, int] | None:
        """The nearest pin within ``radius`` (adjacent boxes' pins are only 10 px apart)."""
        area = QRectF(pos.x() - radius, pos.y() - radius, 2 * radius, 2 * radius)
        best, best_d = None, radius * radius
        for item in self.items(area):
            if isinstance(item, LayerItem):
                pin = item.pin_at(pos, radius)
                if pin is not None:
                    d = QLineF(pos, item.mapToScene(pin.pos)).length() ** 2
                    if d <= best_d:
                        best, best_d = (item, pin.kind, pin.index), d
        return best

    @staticmethod
    def _hit_radius(event: QGraphicsSceneMouseEvent) -> float:
        """A pin takes the pointer within PIN_HIT_PX screen pixels (more scene px zoomed out)."""
        view = event.widget().parentWidget() if event.widget() is not None else None
        zoom = view.transform().m11() if hasattr(view, "transform") else 1.0
        return max(8.0, PIN_HIT_PX / max(zoom, 1e-6))

    def _link_end(self, pos: QPointF, radius: float, start_kind: str):  # noqa: ANN205
        """The pin a link dragged from a ``start_kind`` pin ends on: the nearest pin, else the
        main pin of the box under the pointer (dropping a link on a layer links it)."""
        found = self._pin_under(pos, radius)
        if found is not None:
            return found
        for item in self.items(pos):
            if isinstance(item, LayerItem):
                kind = "in" if start_kind == "out" else "out"
                if any(p.kind == kind and p.index == 0 for p in item.pins):
                    return item, kind, 0
                return None
        return None

    def mousePressEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            found = self._pin_under(event.scenePos(), self._hit_radius(event))
            if found is not None:
                item, kind, index = found
                self._draft_from = found
                self._draft = DraftLink(item.pin_pos(kind, index), kind == "out")
                self.addItem(self._draft)
                event.accept()
                return
        super().mousePressEvent(event)
        self._press_positions = {
            item.name: item.pos() for item in self.selectedItems() if isinstance(item, LayerItem)
        }

    def mouseMoveEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        if self._draft is not None:
            self._draft.follow(event.scenePos())
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        if self._draft is not None:
            self.removeItem(self._draft)
            self._draft = None
            start, self._draft_from = self._draft_from, None
            end = (self._link_end(event.scenePos(), self._hit_radius(event), start[1])
                   if start is not None else None)  # fmt: skip
            if start is not None and end is not None:
                self._link_between(start, end)
            event.accept()
            return
        super().mouseReleaseEvent(event)
        self.commit_moves()

    def commit_moves(self) -> None:
        """Push one MoveLayers for the layers a drag moved (one undo step per drag)."""
        moves = {}
        for name, before in self._press_positions.items():
            item = self.layer_items.get(name)
            if item is not None and item.pos() != before:
                moves[name] = g.to_file(item.pos().x(), item.pos().y())
        self._press_positions = {}
        if moves:
            self.push(C.MoveLayers(self.network, moves))

    def _link_between(self, a: tuple[LayerItem, str, int], b: tuple[LayerItem, str, int]) -> None:
        if a[1] == b[1]:
            self.message.emit(translate("Canvas", "links go from an output pin to an input pin"))
            return
        out, into = (a, b) if a[1] == "out" else (b, a)
        self.connect_pins(out[0].name, into[0].name, into[2])

    def mouseDoubleClickEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        for item in self.items(event.scenePos()):
            if isinstance(item, LayerItem):
                if item.layer.type == "Unit":
                    self.open_unit.emit(item.layer.properties.get("Network", ""))
                    event.accept()
                    return
                break
        super().mouseDoubleClickEvent(event)
