"""The interface is translatable: no literal reaches a widget unwrapped, and the Japanese
catalogue (resources/i18n/neurocanvas_ja.ts) has a finished entry for every wrapped string."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TS_FILE = ROOT / "resources" / "i18n" / "neurocanvas_ja.ts"

# Calls whose string arguments a user reads: widget constructors and the setters/adders of text.
# Not QLineEdit(text) nor QComboBox.addItems(list): their strings are usually values the code reads
# back (a device name, a checkpoint, bits), which a translation would change.
SHOWN_BY = {
    "setText", "setWindowTitle", "setToolTip", "setStatusTip", "setWhatsThis",
    "setPlaceholderText", "setTitle", "setLabelText", "setInformativeText", "setDetailedText",
    "addAction", "addMenu", "addTab", "insertTab", "setTabText", "addRow", "showMessage",
    "setHeaderLabels", "setHorizontalHeaderLabels", "setVerticalHeaderLabels", "addItem",
    "setSuffix", "setPrefix", "setSpecialValueText", "setFormat", "setHtml",
    "setMarkdown", "setPlainText", "setButtonText", "addButton", "setCancelButtonText",
    "setItemText", "setNameFilter", "setNameFilters", "setWindowIconText",
    "QLabel", "QPushButton", "QAction", "QCheckBox", "QRadioButton", "QGroupBox", "QToolButton",
    "QMenu", "QMessageBox", "QProgressDialog", "QDialog",
    "information", "warning", "critical", "question", "about",
    "getText", "getItem", "getInt", "getDouble", "getOpenFileName", "getSaveFileName",
    "getOpenFileNames", "getExistingDirectory",
    "setIconText", "set_xlabel", "set_ylabel", "set_title", "QListWidgetItem",
    # the app's own helpers that show their text argument
    "ask_text", "ask_yes_no", "ask_confirm", "ask_save_path", "ask_stop_children", "report_error",
    "show_message", "show_error", "append_log", "clear_results", "a", "Entry", "_titled", "_Page",
    "_show", "_ask", "_warn", "_with_browse", "_fail_before_start",
}  # fmt: skip
LOGGERS = {"_log", "log", "logger", "logging", "_logger", "warnings"}


def _name(func: ast.expr) -> str:
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _words(text: str) -> bool:
    """A literal a reader reads: two letters in a row (not '', '%', '...', 'x', '&')."""
    if re.fullmatch(r"((Ctrl|Shift|Alt|Meta)\+)+\w+", text):  # a key sequence, not words
        return False
    if re.fullmatch(r"[\w-]*\.\w+", text):  # a file name or suffix: output_result.csv, .onnx
        return False
    return re.search(r"[A-Za-z]{2}", text) is not None


def _literals(node: ast.expr) -> list[ast.expr]:
    """The bare user-text literals in an argument: strings, f-strings, and those inside a
    conditional, a concatenation or a list/tuple; a call's result is its own business."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node] if _words(node.value) else []
    if isinstance(node, ast.JoinedStr):
        text = "".join(v.value for v in node.values if isinstance(v, ast.Constant))
        return [node] if _words(text) else []
    if isinstance(node, ast.IfExp):
        return _literals(node.body) + _literals(node.orelse)
    if isinstance(node, ast.BinOp):
        return _literals(node.left) + _literals(node.right)
    if isinstance(node, (ast.List, ast.Tuple)):
        return [lit for elt in node.elts for lit in _literals(elt)]
    return []


def unwrapped_literals(source: str, filename: str) -> list[str]:
    """``file:line: 'literal'`` for every literal passed straight to a call in SHOWN_BY."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if not isinstance(node, ast.Call) or _name(node.func) not in SHOWN_BY:
            continue
        owner = node.func.value if isinstance(node.func, ast.Attribute) else None
        if isinstance(owner, ast.Name) and owner.id in LOGGERS:  # _log.warning(...): for the log
            continue
        for arg in [*node.args, *(k.value for k in node.keywords if k.arg != "objectName")]:
            for lit in _literals(arg):
                text = ast.unparse(lit)
                found.append(f"{filename}:{lit.lineno}: {text[:80]}")
    return found


def test_the_scan_finds_unwrapped_literals():
    source = (
        "from PySide6.QtCore import QCoreApplication\n"
        "b = QPushButton('Train')\n"
        "b.setToolTip(f'Runs {n} epochs')\n"
        "menu.addAction(QCoreApplication.translate('Main', 'Open...'))\n"
        "label.setText(self.tr('Ready') if ok else 'Failed')\n"
        "label.setText('')\n"
    )
    assert unwrapped_literals(source, "x.py") == [
        "x.py:2: 'Train'",
        "x.py:3: f'Runs {n} epochs'",
        "x.py:5: 'Failed'",
    ]


def test_no_literal_reaches_a_widget_unwrapped():
    found = []
    for path in sorted((ROOT / "console_app").rglob("*.py")):
        relative = str(path.relative_to(ROOT))
        found += unwrapped_literals(path.read_text(encoding="utf-8"), relative)
    assert not found, (
        "wrap these in self.tr(...) / QCoreApplication.translate('Context', ...), then run "
        "tools/update_translations.sh and translate the new entries:\n" + "\n".join(found)
    )


def _unfinished(ts: Path) -> list[str]:
    """``context: source`` of every entry without a finished translation, and of every one whose
    translation drops or invents a ``{placeholder}`` (``.format`` would fail or lose a value)."""
    bad = []
    for context in ET.parse(ts).getroot().iter("context"):
        name = context.findtext("name")
        for message in context.iter("message"):
            source = message.findtext("source") or ""
            translation = message.find("translation")
            forms = [f.text or "" for f in translation.iter("numerusform")] or [translation.text]
            if translation.get("type") or not all(f and f.strip() for f in forms):
                bad.append(f"{name}: {source!r} ({translation.get('type') or 'empty'})")
                continue
            wanted = set(re.findall(r"\{\w*[^{}]*\}", source))
            for form in forms:
                if set(re.findall(r"\{\w*[^{}]*\}", form)) != wanted:
                    bad.append(f"{name}: {source!r}: placeholders differ in {form!r}")
    return bad


def test_the_japanese_catalogue_is_finished():
    assert _unfinished(TS_FILE) == []


def test_the_japanese_catalogue_holds_every_wrapped_string(tmp_path):
    """pyside6-lupdate run on today's code adds no entry to the committed catalogue."""
    lupdate = shutil.which("pyside6-lupdate")
    if lupdate is None:
        pytest.skip("pyside6-lupdate is not installed")
    ts = tmp_path / TS_FILE.name
    shutil.copyfile(TS_FILE, ts)
    files = sorted(str(p) for p in (ROOT / "console_app").rglob("*.py"))
    files += sorted(str(p) for p in (ROOT / "engine" / "report").rglob("*.py"))
    files += [str(p) for p in _engine_message_files()]
    subprocess.run([lupdate, "-no-obsolete", *files, "-ts", str(ts)], check=True,
                   capture_output=True)  # fmt: skip
    missing = _unfinished(ts)
    assert not missing, (
        "the Japanese catalogue lacks these (run tools/update_translations.sh and translate them "
        "in resources/i18n/neurocanvas_ja.ts):\n" + "\n".join(missing)
    )


def _engine_message_files() -> list[Path]:
    """The engine's modules whose texts the app or the report shows (engine.core.messages,
    engine.report.i18n), beside engine/report itself."""
    marks = ("from engine.core.messages import", "from engine.report.i18n import")
    return sorted(path for path in (ROOT / "engine").rglob("*.py")
                  if any(mark in path.read_text(encoding="utf-8") for mark in marks)
                  and "report" not in path.parts)  # fmt: skip


def test_the_engines_shown_messages_are_in_the_catalogue():
    """The layers' and the trainer's messages are marked for the app's catalogue: a problem of
    the property pane or of the problems list reads as Japanese in a Japanese app."""
    names = {path.relative_to(ROOT).as_posix() for path in _engine_message_files()}
    assert {"engine/graph/validate.py", "engine/layers/evaluate.py",
            "engine/layers/property_types.py", "engine/runtime/trainer.py"} <= names  # fmt: skip
    sources = {source for _, source, _ in _messages(TS_FILE)}
    assert "layer type {type} has no property {prop}" in sources
    assert (
        "NaN or infinity at epoch {epoch}, iteration {iteration} (global iteration {step}): "
        'optimizer "{optimizer}", network "{network}": {cause}' in sources
    )


def test_every_translation_keeps_its_placeholders():
    """A translation naming other {placeholders} than its source would fall back to English
    (engine/core/messages.py) or fail to format: the names must be the same."""
    bad = []
    for context, source, translation in _messages(TS_FILE):
        if translation and _placeholders(source) != _placeholders(translation):
            bad.append(f"{context}: {source!r} -> {translation!r}")
    assert bad == []


def _placeholders(text: str) -> set[str]:
    return set(re.findall(r"(?<!\{)\{(\w*)\}(?!\})", text))


def _messages(ts: Path) -> list[tuple[str, str, str]]:
    found = []
    for context in ET.parse(ts).getroot().iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            found.append(
                (name, message.findtext("source") or "", message.findtext("translation") or "")
            )
    return found


def marked_templates(source: str, filename: str) -> list[tuple[str, str, str]]:
    """``(file:line, context, template)`` of every ``QT_TRANSLATE_NOOP("Context", "template")``
    in a module: the engine's texts marked for the app (engine/core/messages.py)."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Call) and _name(node.func) == "QT_TRANSLATE_NOOP":
            args = [a.value for a in node.args if isinstance(a, ast.Constant)]
            if len(args) == 2 and all(isinstance(a, str) for a in args):
                found.append((f"{filename}:{node.lineno}", args[0], args[1]))
    return found


def test_the_template_scan_finds_marked_texts():
    source = (
        "from engine.core.messages import QT_TRANSLATE_NOOP\n"
        "_T = QT_TRANSLATE_NOOP('Problems', 'unknown layer type {type}')\n"
        "raise E(QT_TRANSLATE_NOOP(\n    'Training', 'no '\n    'optimizer').format())\n"
    )
    assert marked_templates(source, "x.py") == [
        ("x.py:2", "Problems", "unknown layer type {type}"),
        ("x.py:3", "Training", "no optimizer"),
    ]


def untranslated_templates(ts: Path) -> list[str]:
    """``file:line: context: 'template'`` of every template the engine marks for the app
    (outside engine/report, whose texts are the report's own) without a finished entry."""
    finished = {(context, source) for context, source, translation in _messages(ts)
                if translation}  # fmt: skip
    marked = []
    for path in sorted((ROOT / "engine").rglob("*.py")):
        if "report" not in path.parts:
            relative = path.relative_to(ROOT).as_posix()
            marked += marked_templates(path.read_text(encoding="utf-8"), relative)
    assert len(marked) > 150  # the scan sees the engine's messages
    return [f"{where}: {context}: {template!r}" for where, context, template in marked
            if (context, template) not in finished]  # fmt: skip


def test_every_engine_template_has_a_japanese_entry():
    """Every template the engine marks for the app has a finished Japanese translation in the
    committed catalogue (read without lupdate): a new engine message fails here until it is
    translated."""
    missing = untranslated_templates(TS_FILE)
    assert not missing, (
        "run tools/update_translations.sh and translate these in "
        "resources/i18n/neurocanvas_ja.ts:\n" + "\n".join(missing)
    )


def test_an_engine_template_without_its_translation_is_named(tmp_path):
    """The check above on a catalogue that lost one entry's translation names that entry."""
    source = "unknown layer type {type}"
    text = TS_FILE.read_text(encoding="utf-8")
    start = text.index(f"<source>{source}</source>")
    end = text.index("</translation>", start)
    lost = text[:start] + f'<source>{source}</source>\n        <translation type="unfinished">'
    ts = tmp_path / TS_FILE.name
    ts.write_text(lost + text[end:], encoding="utf-8")
    missing = untranslated_templates(ts)
    assert len(missing) == 1 and missing[0].startswith("engine/graph/infer.py:")
    assert missing[0].endswith(f"Problems: {source!r}")
