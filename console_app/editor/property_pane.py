"""The property pane of the selected layer: a typed editor per property, computed values.

Editors follow the catalogue's property types (line edits for numbers, shapes and expressions,
drop-downs for options and booleans, a file chooser for files) with the network's arguments
offered as ``*Name`` references. A Unit layer also shows the arguments of the network it calls
(typed by their Argument layer) and its parameter overrides. Text that does not fit is refused
with the reason and never reaches the model; accepted typing is pushed at once and consecutive
edits of one field merge into one undo step.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QComboBox,
    QCompleter,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QScrollArea,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from console_app.document import Document
from console_app.editor import arguments
from console_app.editor.values import MacroRule, check_property, check_typed, macro_rule
from console_app.language import shown, translate
from engine.core.messages import text_of
from engine.graph import commands as C
from engine.graph import unit_arguments
from engine.graph.project import ModelError, Network
from engine.layers import find_spec
from engine.layers.evaluate import RuleError
from engine.layers.property_types import format_value
from engine.layers.spec import STATISTICS, PropertySpec

_INVALID_STYLE = "border: 1px solid #d22; background: #fff0f0;"


@dataclass
class _Row:
    key: str
    widget: QWidget
    default: str  # shown when the layer does not set the property
    type_name: str  # catalogue type, or the unit argument's declared type
    spec: PropertySpec | None = None
    argument: bool = False  # a unit argument: cleared means the Argument layer's default


class PropertyPane(QWidget):
    def __init__(self, document: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self.network: Network | None = None
        self.layer_name: str | None = None
        self.rows: dict[str, _Row] = {}
        self.computed: dict[str, QLabel] = {}
        self.name_edit: QLineEdit | None = None
        self.others: list[str] = []  # more selected layers of the same type, edited together
        # field -> each selected layer's stored text when typing in it began: refused text
        # puts these back, so a valid prefix typed on the way ("1,28" of "1,28,x") is not kept.
        self._before_typing: dict[str, dict[str, str | None]] = {}
        self.title = QLabel(translate("PropertyPane", "No layer selected"))
        self.title.setWordWrap(True)
        self.error = QLabel("")
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #c00;")
        self.form_host = QWidget()
        self.form = QFormLayout(self.form_host)
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(self.form_host)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.error)
        self._unsubscribe = document.project.events.subscribe(
            self._on_event, kinds=("layer_renamed", "layer_removed", "network_removed")
        )

    def close_pane(self) -> None:
        self._unsubscribe()

    # -- what is shown ---------------------------------------------------------------------
    def show_layer(self, network: Network | None, name: str | None) -> None:
        self.network, self.layer_name, self.others = network, name, []
        self._rebuild()

    def show_layers(self, network: Network, names: list[str]) -> None:
        """Several layers: those of one type are edited together (a field whose values differ
        shows empty until typed into); layers of different types share no editor."""
        types = {network.layer(n).type for n in names}
        if len(names) < 2 or len(types) > 1:
            self.show_layer(network if len(names) == 1 else None, names[0] if names else None)
            if len(names) > 1:
                self.title.setText(
                    translate(
                        "PropertyPane",
                        "{len} layers of {len2} types selected: select layers of one type to "
                        "edit them together",
                    ).format(len=len(names), len2=len(types))
                )
            return
        self.network, self.layer_name, self.others = network, names[0], list(names[1:])
        self._rebuild()

    def selected(self) -> list[str]:
        return [self.layer_name, *self.others] if self.layer_name is not None else []

    def _on_event(self, event) -> None:  # noqa: ANN001
        if self.network is None or self.layer_name is None:
            return
        if event.kind == "network_removed" and event.obj is self.network:
            self.show_layer(None, None)
        elif getattr(event, "network", None) != self.network.name:
            return
        elif event.kind == "layer_renamed" and event.old == self.layer_name:
            self.layer_name = event.new
        elif event.kind == "layer_removed" and event.layer.name == self.layer_name:
            self.show_layer(None, None)
        elif event.kind in ("layer_renamed", "layer_removed") and self.others:
            self.show_layer(self.network, self.layer_name)  # edit the first one alone

    def _clear(self) -> None:
        self.form_host.setMinimumHeight(0)
        while self.form.rowCount():
            self.form.removeRow(0)
        self.rows.clear()
        self.computed.clear()
        self.name_edit = None
        self.error.setText("")

    def _rebuild(self) -> None:
        self._before_typing.clear()
        self._clear()
        if self.network is None or self.layer_name is None:
            self.title.setText(translate("PropertyPane", "No layer selected"))
            return
        layer = self.network.layer(self.layer_name)
        spec = find_spec(layer.type)
        category = spec.category if spec else "unknown type"
        self.title.setText(
            f"<b>{layer.type}</b> ({category})"
            + (
                translate("PropertyPane", ": {len} layers, edits apply to all").format(
                    len=len(self.selected())
                )
                if self.others
                else ""
            )
        )
        self.name_edit = QLineEdit(layer.name)
        self.name_edit.setEnabled(not self.others)
        self.name_edit.setObjectName("prop_Name")
        self.name_edit.editingFinished.connect(self._rename)
        self._add(QLabel(translate("PropertyPane", "Name")), self.name_edit)
        shown = {"Name"}
        if spec is not None:
            for prop in spec.properties:
                if not prop.visible:
                    continue
                shown.add(prop.name)
                if prop.editable:
                    self._add_row(prop.name, prop.type.name, prop.default, prop)
                else:
                    self._add_computed(prop.name)
        if layer.type == "Unit":
            shown |= self._add_unit_arguments(layer.properties.get("Network", ""))
        for key in layer.properties:  # overrides and anything the catalogue does not know
            if key not in shown:
                self._add_row(key, "Text", "", None)
        for stat in STATISTICS[1:]:
            self._add_computed(stat)
        self.sync()
        QTimer.singleShot(0, self._fit_form)

    def _fit_form(self) -> None:
        # The scroll area would squeeze the rows to fit; it has to scroll instead. The rows'
        # sizes are known once Qt has polished the new widgets, hence after this event.
        self.form_host.setMinimumHeight(self.form.minimumSize().height())

    def _add_unit_arguments(self, target: str) -> set[str]:
        project = self.document.project
        if not project.has_network(target):
            return set()
        names = set()
        for decl in unit_arguments.arguments_of(project.network(target)).values():
            self._add_row(decl.name, decl.type, decl.value, None, argument=True)
            names.add(decl.name)
        return names

    def _argument_names(self) -> list[str]:
        assert self.network is not None
        return list(unit_arguments.arguments_of(self.network))

    def _add_row(
        self, key: str, type_name: str, default: str, spec: PropertySpec | None, argument=False
    ) -> None:
        references = [f"*{a}" for a in self._argument_names()]
        if spec is not None and key == "Network" and self.network is not None:
            widget = self._combo(self.document.project.network_names, editable=True)
        elif type_name == "Option" and spec is not None:
            widget = self._combo(spec.options, editable=False)
        elif type_name in ("Boolean", "BooleanOrMacro"):
            widget = self._combo(("True", "False", *references), editable=True)
        elif type_name == "File":
            widget = self._file_editor()
        else:
            widget = QLineEdit()
            if references:
                widget.setCompleter(QCompleter(references, widget))
            widget.textEdited.connect(lambda text, k=key: self._edited(k, text))
            widget.editingFinished.connect(lambda k=key: self._finished(k))
        widget.setObjectName(f"prop_{key}")
        row = _Row(key, widget, default, type_name, spec, argument)
        self.rows[key] = row
        label = QLabel(f"<i>{key}</i>" if argument else key)
        label.setToolTip(
            translate("PropertyPane", "{type_name}; default {default!r}").format(
                type_name=type_name, default=default
            )
        )
        self._add(label, widget)

    def _combo(self, items, editable: bool) -> QComboBox:  # noqa: ANN001
        combo = QComboBox()
        combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        combo.setMinimumContentsLength(6)  # long option names must not widen the pane
        combo.addItems(list(items))
        combo.setEditable(editable)
        combo.setProperty("_key", None)
        if editable:
            combo.lineEdit().textEdited.connect(
                lambda text, c=combo: self._edited(c.objectName()[5:], text)
            )
            combo.lineEdit().editingFinished.connect(
                lambda c=combo: self._finished(c.objectName()[5:])
            )
        combo.activated.connect(
            lambda _i, c=combo: self._edited(c.objectName()[5:], c.currentText())
        )
        return combo

    def _file_editor(self) -> QWidget:
        host = QWidget()
        edit = QLineEdit()
        button = QToolButton()
        button.setText("...")
        box = QHBoxLayout(host)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(edit, 1)
        box.addWidget(button)
        host.line = edit  # type: ignore[attr-defined]
        edit.textEdited.connect(lambda text, h=host: self._edited(h.objectName()[5:], text))
        edit.editingFinished.connect(lambda h=host: self._finished(h.objectName()[5:]))
        button.clicked.connect(lambda _c=False, h=host: self._choose_file(h))
        return host

    def _choose_file(self, host: QWidget) -> None:
        path, _ = QFileDialog.getOpenFileName(self, translate("PropertyPane", "Choose a file"))
        if path:
            host.line.setText(path)  # type: ignore[attr-defined]
            self._edited(host.objectName()[5:], path)

    def _add_computed(self, key: str) -> None:
        if self.others:  # a value of one layer would read as the selection's
            return
        label = QLabel("")
        label.setObjectName(f"computed_{key}")
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        label.setStyleSheet("color: #555;")
        label.setWordWrap(True)  # a problem message is long: wrap it, never widen the pane
        self.computed[key] = label
        self._add(
            QLabel(
                translate("PropertyPane", "<span style='color:#777'>{key}</span>").format(key=key)
            ),
            label,
        )

    def _add(self, label: QLabel, field: QWidget) -> None:
        # Rows keep their natural height: the pane scrolls instead of squashing them.
        for widget in (label, field):
            widget.setMinimumHeight(widget.sizeHint().height())
        self.form.addRow(label, field)

    # -- reading the model -----------------------------------------------------------------
    def raw_value(self, key: str, name: str | None = None) -> str:
        assert self.network is not None and self.layer_name is not None
        layer = self.network.layer(name or self.layer_name)
        return layer.properties.get(key, self.rows[key].default)

    def text_of(self, key: str) -> str:
        widget = self.rows[key].widget
        if isinstance(widget, QComboBox):
            return widget.currentText()
        line = getattr(widget, "line", widget)
        return line.text()  # type: ignore[union-attr]

    def _set_text(self, key: str, text: str) -> None:
        widget = self.rows[key].widget
        widget.blockSignals(True)
        try:
            if isinstance(widget, QComboBox):
                if widget.findText(text) < 0:
                    widget.addItem(text)
                widget.setCurrentText(text)
            else:
                line = getattr(widget, "line", widget)
                if line.text() != text:
                    line.setText(text)
        finally:
            widget.blockSignals(False)

    def sync(self) -> None:
        """Show the model's values (after an edit, undo or redo) and the computed values."""
        if self.network is None or self.layer_name is None:
            return
        if not self.network.has_layer(self.layer_name):
            self.show_layer(None, None)
            return
        if self.name_edit is not None and not self.name_edit.hasFocus():
            self.name_edit.setText(self.layer_name)
        for key in self.rows:
            if key in self._before_typing and self.check(key, self.text_of(key)) is not None:
                continue  # refused text being typed stays, flagged, until corrected or left
            values = {self.raw_value(key, name) for name in self.selected()}
            shown = self.raw_value(key) if len(values) == 1 else ""
            line = getattr(self.rows[key].widget, "line", self.rows[key].widget)
            if isinstance(line, QLineEdit):
                line.setPlaceholderText(
                    "" if len(values) == 1 else translate("PropertyPane", "(several values)")
                )
            if self.text_of(key) != shown:
                self._set_text(key, shown)
                self._mark(key, None)
        self._sync_computed()

    def _sync_computed(self) -> None:
        assert self.network is not None and self.layer_name is not None
        results = self.document.results(self.network.name)
        result = results.get(self.layer_name)
        for key, label in self.computed.items():
            if key == "Output":  # the shape (the Output statistic is its element count)
                text = _show(result.shape) if result and result.shape else ""
                label.setText(text or shown(result.error or "") if result else "")
                label.setToolTip(label.text())
            elif key in STATISTICS:
                label.setText(f"{result.stat(key):,}" if result and result.stats else "")
            else:
                label.setText(self._computed_value(key))

    def _computed_value(self, key: str) -> str:
        assert self.network is not None and self.layer_name is not None
        try:
            inference = self.document.network_inference(self.network.name)
            return _show(inference.eval(self.layer_name).value(key))
        except RuleError as exc:
            return f"({exc})"
        except Exception:  # unknown type: no evaluator
            return ""

    # -- edits -----------------------------------------------------------------------------
    def check(self, key: str, text: str) -> str | None:
        assert self.network is not None and self.layer_name is not None
        row = self.rows[key]
        layer = self.network.layer(self.layer_name)
        known = self._argument_names()
        rule = self._macro_rule(layer.type, key, known, always=row.argument)
        if layer.type == "Argument" and key in ("Value", "Type"):
            return self._check_argument(key, text, rule)
        if row.spec is not None:
            spec = find_spec(layer.type)
            known += [p.name for p in spec.properties] if spec else []
            return check_property(row.spec, text, known, rule)
        return check_typed(row.type_name, key, text, known, rule)

    def _macro_rule(
        self, layer_type: str, key: str, known: list[str], always: bool = False
    ) -> MacroRule | None:
        assert self.network is not None
        project = self.document.project
        return macro_rule(project, self.network, layer_type, key, known, always)

    def _check_argument(self, key: str, text: str, rule: MacroRule | None) -> str | None:
        """An Argument's Value must fit its Type; a Type must fit the Value."""
        assert self.network is not None and self.layer_name is not None
        names = self._argument_names()
        earlier = names[: names.index(self.layer_name)]  # a default may use earlier arguments
        if key == "Value":
            return arguments.check_value(self.raw_value("Type"), text, earlier, rule)
        reason = check_property(self.rows[key].spec, text) if self.rows[key].spec else None  # type: ignore[arg-type]
        return reason or arguments.check_type(text, self.raw_value("Value"), earlier, rule)

    def _edited(self, key: str, text: str) -> bool:
        """Typing: a valid text is pushed (merging with the previous push of this field)."""
        if self.network is None or self.layer_name is None or key not in self.rows:
            return False
        reason = self.check(key, text)
        self._mark(key, reason)
        widget = self.rows[key].widget
        listed = isinstance(widget, QComboBox) and not widget.isEditable()  # chosen, not typed
        before = None
        if not listed:
            before = self._before_typing.setdefault(
                key, {n: self.network.layer(n).properties.get(key) for n in self.selected()}
            )
        if reason is not None:
            if listed:
                self._set_text(key, self.raw_value(key))  # a list shows only what is stored
                widget.setStyleSheet("")
            else:
                self._restore(key, before)
            return False
        value = None if self.rows[key].argument and text == "" else text
        try:
            if not self.others:
                self.document.push(C.SetProperty(self.network, self.layer_name, key, value))
            else:
                self.document.push(C.SetPropertyOfLayers(self.network, self.selected(), key, value))
        except ModelError as exc:
            self._mark(key, text_of(exc))  # shown in the interface's language
            return False
        return True

    def _restore(self, key: str, before: dict[str, str | None]) -> None:
        """Refused text: the layers get back the values they had before the typing (one
        merged undo step with it); the field keeps the text, flagged, to be corrected."""
        assert self.network is not None
        names = [n for n in before if self.network.has_layer(n)]
        if all(self.network.layer(n).properties.get(key) == before[n] for n in names):
            return
        if not self.others:
            self.document.push(C.SetProperty(self.network, names[0], key, before[names[0]]))
        elif len({before[n] for n in names}) == 1:  # merges with the typing's step
            self.document.push(C.SetPropertyOfLayers(self.network, names, key, before[names[0]]))
        # Layers that had different values keep the last valid text (one undo step each
        # would be needed to put each back).

    def _finished(self, key: str) -> None:
        """Leaving a field with refused text puts the model's value back (the reason stays)."""
        self._before_typing.pop(key, None)
        if key in self.rows and self.network is not None and self.layer_name is not None:
            if self.check(key, self.text_of(key)) is not None:
                self._set_text(key, self.raw_value(key))
                self.rows[key].widget.setStyleSheet("")

    def _mark(self, key: str, reason: str | None) -> None:
        widget = self.rows[key].widget
        target = getattr(widget, "line", widget)
        target.setStyleSheet(_INVALID_STYLE if reason else "")
        self.error.setText(shown(reason or ""))

    def _rename(self) -> None:
        if self.network is None or self.layer_name is None or self.name_edit is None:
            return
        new = self.name_edit.text().strip()
        if new == self.layer_name:
            return
        try:
            if self.network.layer(self.layer_name).type == "Argument":
                project = self.document.project
                command = arguments.rename_argument(project, self.network, self.layer_name, new)
            else:
                command = C.RenameLayer(self.network, self.layer_name, new)
            self.document.push(command)
            self.error.setText("")
        except ModelError as exc:
            self.error.setText(shown(text_of(exc)))
            self.name_edit.setText(self.layer_name)

    def set_text(self, key: str, text: str) -> bool:
        """Type ``text`` into a field as a user would (tests, scripting); True if accepted."""
        self._set_text(key, text)
        accepted = self._edited(key, text)
        return accepted


def _show(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, tuple | bool | int | float):
        return format_value(value)  # type: ignore[arg-type]
    return str(value)
