"""CONFIG: global config, optimizers, monitors and executors, as NNC's CONFIG tab has them.

Every field edit is one undoable command on the document (``SetSectionValue``; choosing a
solver is a ``ReplaceSection`` that brings NNC's default parameters for it). A value that is
not valid is refused: the field goes back to the model's value and the reason is shown.
Field kinds and NNC's defaults come from :mod:`engine.graph.config`; this module only says
how each key is labelled and edited.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from console_app.document import Document
from console_app.language import error_text, shown, translate
from console_app.tabs import search_control
from engine.core.messages import QT_TRANSLATE_NOOP, text_of
from engine.graph import commands as C
from engine.graph import config as cfg
from engine.graph.project import ModelError, Where

UNITS = {"0": "epoch", "1": "iteration"}
REPEAT = {"0": "mean", "1": "last"}
# key -> (label, editor kind); kinds: int, float, bool, choice, text, network, dataset, unit,
# repeat, steps. Order is NNC's CONFIG tab order.
FIELDS: dict[type[cfg.Section], tuple[tuple[str, str, str], ...]] = {
    cfg.GlobalConfig: (
        ("MaxEpoch", "Max Epoch", "int"), ("BatchSize", "Batch Size", "int"),
        ("TypeConfig", "Precision", "choice"), ("MonitorInterval", "Monitor Interval", "int"),
        ("SaveBest", "Save Best", "bool"),
    ),
    cfg.Optimizer: (
        ("Optimizer_Name", "Name", "text"), ("Optimizer_NetworkName", "Network", "network"),
        ("Optimizer_DatasetName", "Dataset", "dataset"), ("SolverName", "Solver", "choice"),
        ("WeightDecay", "Weight Decay", "float"), ("UpdateInterval", "Update Interval", "int"),
        ("LearningRateScheduler", "LR Scheduler", "choice"),
        ("LearningRateMultiplier", "LR Multiplier (gamma)", "float"),
        ("LearningRateUpdateInterval", "LR Update Interval", "int"),
        ("LearningRateUpdateIntervalUnit", "LR Update Interval Unit", "unit"),
        ("LearningRatePower", "LR Power", "float"), ("LearningRateSteps", "LR Steps", "steps"),
        ("LearningRateWarmupScheduler", "Warm-up", "choice"),
        ("LearningRateWarmupLength", "Warm-up Length", "int"),
        ("LearningRateWarmupLengthUnit", "Warm-up Length Unit", "unit"),
        ("RangeFrom", "Effective Range From (-1: start)", "int"),
        ("RangeTo", "Effective Range To (-1: end)", "int"), ("RangeUnit", "Range Unit", "unit"),
    ),
    cfg.Monitor: (
        ("Monitor_Name", "Name", "text"), ("Monitor_NetworkName", "Network", "network"),
        ("Monitor_DatasetName", "Dataset", "dataset"),
    ),
    cfg.Executor: (
        ("Executor_Name", "Name", "text"), ("Executor_NetworkName", "Network", "network"),
        ("Executor_DatasetName", "Dataset", "dataset"),
        ("NumEvaluations", "Number of Evaluations", "int"),
        ("RepeatEvaluationType", "Repeat Evaluation Type", "repeat"),
        ("NeedBackPropagation", "Need Back Propagation", "bool"),
    ),
    cfg.StructureSearch: search_control.FIELDS,
}  # fmt: skip
MINIMA = {"MaxEpoch": 1, "BatchSize": 1, "MonitorInterval": 1, "UpdateInterval": 1,
          "LearningRateUpdateInterval": 1, "NumEvaluations": 1, "WeightDecay": 0,
          "LearningRateWarmupLength": 0, "RangeFrom": -1, "RangeTo": -1,
          **search_control.MINIMA}  # fmt: skip
COLLECTIONS = ("optimizers", "monitors", "executors")
# The schedulers each learning-rate field applies to (engine.nn.lr_scheduler.scheduler_from):
# a field another scheduler ignores is disabled, as NNC greys it out.
SCHEDULER_FIELDS = {
    "LearningRateMultiplier": ("Exponential", "Step"),
    "LearningRateUpdateInterval": ("Exponential",),
    "LearningRateUpdateIntervalUnit": ("Exponential", "Step"),
    "LearningRatePower": ("Polynomial",),
    "LearningRateSteps": ("Step",),
}
WARMUP_FIELDS = ("LearningRateWarmupLength", "LearningRateWarmupLengthUnit")
SINGLETON_TITLES = {
    "config": QT_TRANSLATE_NOOP("ConfigTab", "Global Config"),
    "structure_search": QT_TRANSLATE_NOOP("ConfigTab", "Structure Search"),
}


def check_value(section: cfg.Section, key: str, text: str) -> str | None:
    """Why ``text`` is not a valid value of ``key`` (``None`` when it is)."""
    spec = section.key(key)
    label = section.SECTION.replace("_<i>", "")
    if spec is None:
        return None
    try:
        value = cfg.parse_value(spec, text.strip(), label)  # the one parser of values
    except cfg.SettingError as exc:
        return shown(text_of(exc))
    if key in MINIMA and isinstance(value, (int, float)) and value < MINIMA[key]:
        return translate(
            "ConfigTab", "[{label}] {key}: expected a value >= {minimum}. Received: {key}={text}"
        ).format(label=label, key=key, minimum=MINIMA[key], text=text)
    if key == "LearningRateSteps":
        try:
            section.with_value(key, text).lr_steps  # type: ignore[attr-defined]  # noqa: B018
        except cfg.SettingError as exc:
            return shown(text_of(exc))
    if key.endswith("_Name") and not text.strip():
        return translate("ConfigTab", "[{label}] {key}: a name is required").format(
            label=label, key=key
        )
    return None


ITEM_TITLES = {
    "optimizers": QT_TRANSLATE_NOOP("ConfigTab", "Optimizer: {name}"),
    "monitors": QT_TRANSLATE_NOOP("ConfigTab", "Monitor: {name}"),
    "executors": QT_TRANSLATE_NOOP("ConfigTab", "Executor: {name}"),
}


def _item_title(collection: str, item: cfg.Section) -> str:
    return translate("ConfigTab", ITEM_TITLES[collection]).format(name=getattr(item, "name", ""))


class ConfigTab(QWidget):
    def __init__(self, document: Document) -> None:
        super().__init__()
        self.document = document
        self._unsubscribe = document.subscribe(self.refresh)
        self.where: Where = "config"
        self._own_edit = False
        self.editors: dict[str, QWidget] = {}
        self.error = QLabel("")
        self.error.setStyleSheet("color: #c00000")
        self.error.setWordWrap(True)
        self.sections = QListWidget()
        self.sections.currentRowChanged.connect(self._section_chosen)
        buttons = QHBoxLayout()
        self.add_buttons = {}
        for collection in COLLECTIONS:
            button = QPushButton(
                translate("ConfigTab", "Add {value}").format(value=collection[:-1])
            )
            button.clicked.connect(lambda _c=False, c=collection: self.add_item(c))
            self.add_buttons[collection] = button
            buttons.addWidget(button)
        self.remove_button = QPushButton(translate("ConfigTab", "Delete"))
        self.remove_button.clicked.connect(lambda: self.remove_current())
        left = QWidget()
        lv = QVBoxLayout(left)
        lv.addWidget(self.sections)
        lv.addLayout(buttons)
        lv.addWidget(self.remove_button)
        self.form_host = QScrollArea()
        self.form_host.setWidgetResizable(True)
        right = QWidget()
        rv = QVBoxLayout(right)
        rv.addWidget(self.form_host, 1)
        rv.addWidget(self.error)
        splitter = QSplitter()
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setSizes([300, 800])
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)
        self.refresh()

    def set_document(self, document: Document) -> None:
        self._unsubscribe()
        self.document = document
        self._unsubscribe = document.subscribe(self.refresh)
        self.where = "config"
        self.refresh()

    @property
    def project(self):  # noqa: ANN201
        return self.document.project

    # -- the list of sections --------------------------------------------------------------
    def _entries(self) -> list[Where]:
        entries: list[Where] = ["config", "structure_search"]
        for collection in COLLECTIONS:
            entries += [(collection, i) for i in range(len(getattr(self.project, collection)))]
        return entries

    def refresh(self) -> None:
        entries = self._entries()
        if self.where not in entries:
            self.where = "config"
        self.sections.blockSignals(True)
        self.sections.clear()
        for where in entries:
            if isinstance(where, str):
                self.sections.addItem(translate("ConfigTab", SINGLETON_TITLES[where]))
            else:
                self.sections.addItem(_item_title(where[0], self.project.section(where)))
        self.sections.setCurrentRow(entries.index(self.where))
        self.sections.blockSignals(False)
        self.remove_button.setEnabled(not isinstance(self.where, str))
        if not self._own_edit:  # the field that made the edit already shows it; keep its focus
            self._show_form()

    def _section_chosen(self, row: int) -> None:
        entries = self._entries()
        if 0 <= row < len(entries):
            self.where = entries[row]
            self.error.setText("")
            self.remove_button.setEnabled(not isinstance(self.where, str))
            self._show_form()

    def select(self, where: Where) -> None:
        self.sections.setCurrentRow(self._entries().index(where))

    # -- the form ----------------------------------------------------------------------------
    def _show_form(self) -> None:
        section = self.project.section(self.where)
        form_widget = QWidget()
        column = QVBoxLayout(form_widget)
        form = QFormLayout()
        column.addLayout(form)
        column.addStretch(1)  # rows stay together at the top (they spread over the height)
        self.editors = {}
        for key, label, kind in FIELDS[type(section)]:
            editor = self._editor(section, key, kind)
            self.editors[key] = editor
            form.addRow(label, editor)
            if key == "SolverName":
                self._solver_rows(form, section)
        if isinstance(section, cfg.GlobalConfig):
            self.description = QPlainTextEdit(self.project.description)
            self.description.setMaximumHeight(120)
            self.description.textChanged.connect(self._description_changed)
            form.addRow(translate("ConfigTab", "Description"), self.description)
        self._disable_unused(section)
        old = self.form_host.takeWidget()
        if old is not None:  # later: the old form may be the sender of the running signal
            old.hide()
            old.deleteLater()
        self.form_host.setWidget(form_widget)

    def _disable_unused(self, section: cfg.Section) -> None:
        if not isinstance(section, cfg.Optimizer):
            return
        scheduler = str(section.raw("LearningRateScheduler") or "Exponential").strip()
        for key, users in SCHEDULER_FIELDS.items():
            used = scheduler.lower() in (u.lower() for u in users)
            self.editors[key].setEnabled(used)
            self.editors[key].setToolTip(
                ""
                if used
                else translate("ConfigTab", "not used by the {scheduler} scheduler").format(
                    scheduler=scheduler
                )
            )
        warmup = str(section.raw("LearningRateWarmupScheduler") or "None").strip().lower()
        for key in WARMUP_FIELDS:
            if key in self.editors:
                self.editors[key].setEnabled(warmup not in ("", "none"))

    def _editor(self, section: cfg.Section, key: str, kind: str) -> QWidget:
        raw = section.raw(key)
        spec = section.key(key)
        text = raw if raw is not None else (spec.default if spec else "")
        if kind == "bool":
            box = QCheckBox()
            box.setChecked(bool(section.get(key)))
            box.toggled.connect(lambda on, k=key: self.set_value(k, "1" if on else "0"))
            return box
        if kind in ("choice", "unit", "repeat", "network", "dataset"):
            combo = QComboBox()
            options = self._options(section, key, kind)
            for value, shown in options:
                combo.addItem(shown, value)
            if combo.findData(text) < 0:
                combo.addItem(text, text)
            combo.setCurrentIndex(combo.findData(text))
            if key == "SolverName":
                combo.currentIndexChanged.connect(
                    lambda _i, c=combo: self.set_solver(c.currentData())
                )
            else:
                combo.currentIndexChanged.connect(
                    lambda _i, c=combo, k=key: self.set_value(k, c.currentData()))  # fmt: skip
            return combo
        line = QLineEdit(text)
        line.editingFinished.connect(lambda k=key, w=line: self.set_value(k, w.text()))
        return line

    def _options(self, section: cfg.Section, key: str, kind: str) -> list[tuple[str, str]]:
        if kind == "unit":
            return list(UNITS.items())
        if kind == "repeat":
            return list(REPEAT.items())
        if kind == "network":
            names = list(self.project.network_names)
            if len(names) == 1:  # NNC derives these for single-network projects
                names += [f"{names[0]}Validation", f"{names[0]}Runtime"]
            return [(n, n) for n in names]
        if kind == "dataset":
            return [(d.name, d.name) for d in self.project.datasets]
        if key in search_control.CHOICES:
            return list(search_control.CHOICES[key])
        spec = section.key(key)
        return [(c, c) for c in (spec.choices if spec else ())]

    def _solver_rows(self, form: QFormLayout, section: cfg.Section) -> None:
        assert isinstance(section, cfg.Optimizer)
        for j, (name, value) in enumerate(section.solver_parameters.items()):
            line = QLineEdit(value)
            line.setToolTip(
                translate("ConfigTab", "NNC's default: {get}").format(
                    get=dict(cfg.SOLVERS.get(section.solver, ())).get(name, "")
                )
            )
            line.editingFinished.connect(
                lambda j=j, n=name, w=line: self.set_solver_parameter(j, n, w.text())
            )
            self.editors[f"SolverParameter_{j}"] = line
            form.addRow(f"    {name}", line)

    # -- edits -----------------------------------------------------------------------------
    def refuse(self, reason: str) -> bool:
        self.error.setText(reason)
        self._show_form()  # the fields show the model's values again
        return False

    def set_value(self, key: str, text: str) -> bool:
        """One field edit: validated, then pushed as one undoable command."""
        section = self.project.section(self.where)
        reason = check_value(section, key, text)
        if reason is not None:
            return self.refuse(reason)
        if section.raw(key) == text.strip():
            return True
        self.error.setText("")
        try:
            self._own_edit = True
            self.document.push(C.SetSectionValue(self.project, self.where, key, text.strip()))
        except ModelError as exc:
            return self.refuse(error_text(exc))
        finally:
            self._own_edit = False
        self._disable_unused(self.project.section(self.where))
        return True

    def set_solver(self, solver: str) -> bool:
        section = self.project.section(self.where)
        if not isinstance(section, cfg.Optimizer) or section.solver == solver:
            return False
        command = C.ReplaceSection(self.project, self.where, section.with_solver(solver))
        command.text = QT_TRANSLATE_NOOP("Commands", "Set solver {solver}").format(solver=solver)
        self.document.push(command)
        return True

    def set_solver_parameter(self, index: int, name: str, text: str) -> bool:
        try:
            float(text)
        except ValueError:
            return self.refuse(f"[Optimizer] solver parameter {name}: expected a number. "
                               f"Received: {name}={text}")  # fmt: skip
        return self.set_value(f"SolverParameter_{index}", text)

    def _description_changed(self) -> None:
        text = self.description.toPlainText()
        if text != self.project.description:
            self._own_edit = True
            try:
                self.document.push(C.SetDescription(self.project, text))
            finally:
                self._own_edit = False

    def add_item(self, collection: str) -> None:
        cls = cfg.COLLECTIONS[collection]
        item = cls.new()
        self.document.push(C.InsertItem(self.project, collection, item))
        self.where = (collection, len(getattr(self.project, collection)) - 1)
        self.refresh()

    def remove_current(self) -> bool:
        if isinstance(self.where, str):
            return False
        where = self.where
        self.where = "config"
        self.document.push(C.RemoveItem(self.project, where[0], where[1]))
        return True
