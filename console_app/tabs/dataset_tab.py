"""DATASET: the project's dataset links, what their CSV holds, and NNC's options.

For the chosen link: its CSV, number of rows, variables (type and shape, as
:class:`engine.data.Variable`), a preview with image thumbnails; link an existing CSV, create one
from class folders with the CLI's options (:func:`engine.data.folders.create_from_folders`, asked
by :class:`~console_app.tabs.folder_dataset_dialog.FolderDatasetDialog`) or pick a built-in
dataset (``builtin:<name>/<split>``); Shuffle, Image Normalization and Enable Cache. Every edit
is an undoable command on the document.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QSplitter,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from console_app.document import Document
from console_app.language import error_text, translate
from console_app.tabs.create_dataset import CreateDataset
from console_app.tabs.folder_dataset_dialog import FolderDatasetDialog, FolderDatasetOptions
from console_app.tabs.table_model import THUMB, CsvTableModel, read_csv_rows
from engine.core.messages import QT_TRANSLATE_NOOP
from engine.core.numbers import shape_text
from engine.data import DatasetError, open_dataset
from engine.data import builtin as builtin_data
from engine.data.cache import cache_root
from engine.data.folders import create_from_folders
from engine.graph import commands as C
from engine.graph import config as cfg
from engine.runtime.datasets import BUILTIN_SCHEME, builtin_uri, resolve_uri

PREVIEW_ROWS = 200
OPTIONS = (
    ("Shuffle", QT_TRANSLATE_NOOP("DatasetTab", "Shuffle")),
    ("ImageNormalization", QT_TRANSLATE_NOOP("DatasetTab", "Image Normalization (1/255)")),
    ("EnableCache", QT_TRANSLATE_NOOP("DatasetTab", "Enable Cache")),
)


def builtin_equivalent(uri: str) -> str | None:
    """``builtin:<name>/<split>`` for a built-in URI or an NNC sample URI that one stands for
    (``{SDCPATH}samples\\...\\small_mnist_4or9_training.csv``), else None."""
    text = uri.strip()
    if text.startswith(BUILTIN_SCHEME):
        return text
    nnc = builtin_data.for_nnc_uri(text) if "{SDCPATH}" in text else None
    return builtin_uri(*nnc) if nnc else None


def available_csv(uri: str, base: Path | None) -> Path | None:
    """The CSV a URI names when it is already on disk; never generates nor downloads."""
    text = builtin_equivalent(uri) or uri.strip()
    if text.startswith(BUILTIN_SCHEME):
        name, _, split = text.removeprefix(BUILTIN_SCHEME).partition("/")
        try:
            spec = builtin_data.get(name)
        except DatasetError:
            return None
        folder_spec = builtin_data.get(spec.base) if spec.base else spec
        file = spec.validation if split == "validation" else spec.training
        path = cache_root() / "datasets" / folder_spec.folder / file
        return path if path.is_file() else None
    if not text or "{SDCPATH}" in text:
        return None
    try:
        return resolve_uri(text, base)
    except DatasetError:
        return None


class DatasetTab(QWidget):
    def __init__(self, document: Document) -> None:
        super().__init__()
        self.document = document
        self._unsubscribe = document.subscribe(self.refresh)
        self.index = 0
        self.dataset_info = None
        self.list = QListWidget()
        self.list.currentRowChanged.connect(self._chosen)
        add, remove = (
            QPushButton(translate("DatasetTab", "Add")),
            QPushButton(translate("DatasetTab", "Delete")),
        )
        main = QPushButton(translate("DatasetTab", "Set as main"))
        main.setToolTip(
            translate(
                "DatasetTab", "The main dataset decides the iterations per epoch (NNC's MainIndex)"
            )
        )
        main.clicked.connect(lambda: self.set_main())
        add.clicked.connect(lambda: self.add_dataset())
        remove.clicked.connect(lambda: self.remove_dataset())
        left = QWidget()
        lv = QVBoxLayout(left)
        lv.addWidget(QLabel(translate("DatasetTab", "Dataset links")))
        lv.addWidget(self.list)
        row = QHBoxLayout()
        row.addWidget(add)
        row.addWidget(remove)
        lv.addLayout(row)
        lv.addWidget(main)

        self.name = QLineEdit()
        self.name.editingFinished.connect(lambda: self.set_value("Name", self.name.text()))
        self.uri = QLineEdit()
        self.uri.editingFinished.connect(lambda: self.set_value("URI", self.uri.text()))
        self.browse = QPushButton(translate("DatasetTab", "Link CSV..."))
        self.browse.clicked.connect(lambda: self.link_csv())
        self.folders = QPushButton(translate("DatasetTab", "Create from class folders..."))
        self.folders.clicked.connect(lambda: self.create_from_folders())
        self.builtin = QComboBox()
        self.builtin.addItem(translate("DatasetTab", "Built-in dataset..."), "")
        for name in builtin_data.names():
            self.builtin.addItem(name, name)
        self.builtin.activated.connect(lambda _i: self.use_builtin(self.builtin.currentData()))
        self.generate = QPushButton(translate("DatasetTab", "Generate now"))
        self.generate.setToolTip(
            translate("DatasetTab", "Generate (or download) the built-in dataset and preview it")
        )
        self.generate.clicked.connect(lambda: self.generate_now())
        self.options: dict[str, QCheckBox] = {}
        form = QFormLayout()
        form.addRow(translate("DatasetTab", "Name"), self.name)
        form.addRow(translate("DatasetTab", "URI"), self.uri)
        sources = QHBoxLayout()
        for w in (self.browse, self.folders, self.builtin):
            sources.addWidget(w)
        form.addRow("", sources)
        form.addRow("", self.generate)  # a row of its own: the tab stays narrow
        self.create = CreateDataset(self)  # NNC's DATASET > Create Dataset (pre-process plugins)
        form.addRow("", self.create.widget)
        for key, label in OPTIONS:
            box = QCheckBox(translate("DatasetTab", label))
            box.toggled.connect(lambda on, k=key: self.set_value(k, "1" if on else "0"))
            self.options[key] = box
            form.addRow("", box)
        self.info = QLabel("")
        self.info.setWordWrap(True)
        self.variables = QTableWidget(0, 4)
        self.variables.setHorizontalHeaderLabels(
            [
                translate("DatasetTab", "Variable"),
                translate("DatasetTab", "Type"),
                translate("DatasetTab", "Shape"),
                translate("DatasetTab", "Header"),
            ]
        )
        self.variables.setMaximumHeight(140)
        self.preview = QTableView()
        self.preview.setIconSize(QSize(THUMB, THUMB))
        self.preview.verticalHeader().setDefaultSectionSize(THUMB + 4)
        right = QWidget()
        rv = QVBoxLayout(right)
        rv.addLayout(form)
        rv.addWidget(self.info)
        rv.addWidget(self.variables)
        rv.addWidget(self.preview, 1)
        splitter = QSplitter()
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setSizes([250, 900])
        QVBoxLayout(self).addWidget(splitter)
        self.refresh()

    def set_document(self, document: Document) -> None:
        self._unsubscribe()
        self.document = document
        self._unsubscribe = document.subscribe(self.refresh)
        self.index = 0
        self.refresh()

    @property
    def project(self):  # noqa: ANN201
        return self.document.project

    def base(self) -> Path | None:
        return self.document.path.parent if self.document.path is not None else None

    def current(self) -> cfg.Dataset | None:
        datasets = self.project.datasets
        return datasets[self.index] if 0 <= self.index < len(datasets) else None

    # -- showing ---------------------------------------------------------------------------
    def refresh(self) -> None:
        datasets = self.project.datasets
        self.index = min(self.index, len(datasets) - 1)
        self.list.blockSignals(True)
        self.list.clear()
        main = self.project.dataset_index.main_index
        for i, d in enumerate(datasets):
            self.list.addItem(f"{d.name}{' (main)' if i == main else ''}  {d.uri}")
        self.list.setCurrentRow(self.index)
        self.list.blockSignals(False)
        self._show()

    def _chosen(self, row: int) -> None:
        self.index = row
        self._show()

    def _show(self) -> None:
        d = self.current()
        widgets = [self.name, self.uri, *self.options.values()]
        for w in widgets:
            w.blockSignals(True)
        self.name.setText(d.name if d else "")
        self.uri.setText(d.uri if d else "")
        for key, box in self.options.items():
            box.setChecked(bool(d.get(key)) if d else False)
        for w in widgets:
            w.blockSignals(False)
        self._show_contents(d)

    def _show_contents(self, d: cfg.Dataset | None) -> None:
        self.variables.setRowCount(0)
        self.preview.setModel(None)
        self.dataset_info = None
        path = available_csv(d.uri, self.base()) if d else None
        builtin = builtin_equivalent(d.uri) if d is not None else None
        self.generate.setEnabled(builtin is not None and path is None)
        if d is None or path is None:
            self.info.setText(self._missing_text(d, builtin))
            return
        try:
            with open_dataset(path, normalize=d.image_normalization, cache=False) as data:
                variables = [(v.name, v.kind, v.shape, v.header) for v in data.select(None)]
                rows = data.size
        except (DatasetError, OSError) as exc:
            self.info.setText(
                translate("DatasetTab", "Cannot read the dataset: {exc}").format(
                    exc=error_text(exc)
                )
            )
            return
        self.dataset_info = {"csv": path, "rows": rows, "variables": variables}
        self.info.setText(
            translate("DatasetTab", "CSV: {path}    rows: {rows}").format(path=path, rows=rows)
        )
        self.variables.setRowCount(len(variables))
        for r, (name, kind, shape, header) in enumerate(variables):
            shown = shape_text(shape) if shape else "?"
            for c, text in enumerate((name, kind, shown, header)):
                self.variables.setItem(r, c, QTableWidgetItem(text))
        self.variables.resizeColumnsToContents()
        header, preview = read_csv_rows(path, PREVIEW_ROWS)
        self.preview_model = CsvTableModel(header, preview, path.parent)
        self.preview.setModel(self.preview_model)

    @staticmethod
    def _missing_text(d: cfg.Dataset | None, builtin: str | None) -> str:
        if d is None or not d.uri:
            return "No dataset linked"
        if builtin is None:
            if "{SDCPATH}" in d.uri:  # one of NNC's sample datasets NeuroCanvas does not make
                return "NNC's sample dataset, not available here: link a CSV or a built-in dataset"
            return "No CSV on disk at this URI"
        if builtin == d.uri.strip():
            return "No CSV on disk yet: Generate now, or the first run generates it"
        return translate(
            "DatasetTab",
            "NNC's sample dataset, here {builtin}: Generate now, or the first run makes it",
        ).format(builtin=builtin)

    # -- edits -----------------------------------------------------------------------------
    def set_value(self, key: str, value: str) -> bool:
        d = self.current()
        if d is None or d.raw(key) == value:
            return False
        if key == "Name" and (
            not value.strip() or value in {x.name for x in self.project.datasets}
        ):
            self.info.setText(
                translate("DatasetTab", "Dataset name {value!r}: must be new and not empty").format(
                    value=value
                )
            )
            self._show()
            return False
        self.document.push(C.SetSectionValue(self.project, ("datasets", self.index), key, value))
        return True

    def set_uri(self, uri: str, index: int | None = None) -> None:
        where = ("datasets", self.index if index is None else index)
        self.document.push(C.SetSectionValue(self.project, where, "URI", uri))

    def ask_open_csv(self) -> str | None:
        path, _ = QFileDialog.getOpenFileName(
            self, translate("DatasetTab", "Dataset CSV"), "", translate("DatasetTab", "CSV (*.csv)")
        )
        return path or None

    def ask_folder(self, title: str) -> str | None:
        return QFileDialog.getExistingDirectory(self, title) or None

    def link_csv(self, path: str | None = None) -> bool:
        path = path or self.ask_open_csv()
        if not path or self.current() is None:
            return False
        self.set_uri(str(Path(path).resolve()))
        return True

    def generate_now(self) -> bool:
        """Make the built-in dataset of the current link now, then show it."""
        d = self.current()
        if d is None:
            return False
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            resolve_uri(d.uri, self.base(), dataset=d.name)
        except (DatasetError, OSError) as exc:
            self.info.setText(
                translate("DatasetTab", "Cannot generate the dataset: {exc}").format(
                    exc=error_text(exc)
                )
            )
            return False
        finally:
            QApplication.restoreOverrideCursor()
        self._show_contents(d)
        return True

    def use_builtin(self, name: str) -> bool:
        """The chosen link takes the training split; a link named Validation the other."""
        if not name or self.current() is None:
            return False
        with self.document.macro(
            QT_TRANSLATE_NOOP("Commands", "Use built-in dataset {name}").format(name=name)
        ):
            for i, d in enumerate(self.project.datasets):
                if i == self.index or d.name == "Validation":
                    split = "validation" if d.name == "Validation" else "training"
                    self.set_uri(builtin_uri(name, split), i)
        self.builtin.setCurrentIndex(0)
        return True

    def ask_folder_dataset(self) -> FolderDatasetOptions | None:
        dialog = FolderDatasetDialog(self)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        return dialog.options()

    def create_from_folders(self, options: FolderDatasetOptions | None = None) -> bool:
        """Make a dataset as ``neurocanvas dataset create --from-folders`` does; link its CSVs.

        The chosen link takes training.csv and a link named Validation (another one) takes
        validation.csv, in one undo step.
        """
        if self.current() is None:
            return False
        options = options or self.ask_folder_dataset()
        if options is None:
            return False
        try:
            paths = create_from_folders(
                options.source, options.out, size=options.size, channel=options.channel,
                ratio=options.percent / 100.0, seed=options.seed,
            )  # fmt: skip
        except (DatasetError, OSError) as exc:
            self.info.setText(
                translate("DatasetTab", "Cannot create the dataset: {exc}").format(
                    exc=error_text(exc)
                )
            )
            return False
        with self.document.macro(QT_TRANSLATE_NOOP("Commands", "Create dataset from folders")):
            for i, d in enumerate(self.project.datasets):
                if i == self.index or d.name == "Validation":
                    split = (
                        "validation" if d.name == "Validation" and i != self.index else "training"
                    )
                    self.set_uri(str(paths[split]), i)
        return True

    def set_main(self) -> bool:
        if self.current() is None or self.project.dataset_index.main_index == self.index:
            return False
        command = C.SetSectionValue(self.project, "dataset_index", "MainIndex", str(self.index))
        self.document.push(command)
        return True

    def add_dataset(self) -> None:
        names = {d.name for d in self.project.datasets}
        name, k = "Dataset", 2
        while name in names:
            name, k = f"Dataset_{k}", k + 1
        self.document.push(C.InsertItem(self.project, "datasets", cfg.Dataset.new(Name=name)))
        self.index = len(self.project.datasets) - 1
        self.refresh()

    def remove_dataset(self) -> bool:
        if self.current() is None:
            return False
        self.document.push(C.RemoveItem(self.project, "datasets", self.index))
        return True
