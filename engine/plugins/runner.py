"""Run a plugin on a job: a child process in the plugin's own result folder of the job.

Arguments are built as NNC builds them from the dialog: every parameter with a value (given,
filled from the selected output-table row, or its default) as ``--flag value``; path inputs
that name a file of the job folder (``results.nnp``, ``output_result.csv``) become absolute,
and outputs (``--output``) stay relative, so whatever the script writes lands in
``JOB/plugin_results/<script>_<n>/`` and nothing else of the job folder changes. A run that
fails, is stopped or writes nothing leaves no folder behind.

Progress: a line ``progress: I/N`` (or ``progress: P%``) on the script's output.
``plugin.json`` in the result folder records the plugin, its arguments and the files written;
:func:`list_results` reads these back (the app lists them on reopening the job).
"""

from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.plugins.errors import PluginError
from engine.plugins.protocol import FILE_KINDS, Plugin, child_env, python_for

__all__ = [
    "PluginResult", "RESULTS_DIR", "build_arguments", "list_results", "row_values", "run_plugin",
]  # fmt: skip

RESULTS_DIR = "plugin_results"
RECORD = "plugin.json"
_PROGRESS = re.compile(r"progress\s*[:=]?\s*(\d+)\s*(?:/\s*(\d+)|%)", re.IGNORECASE)
_INDEX_NAMES = ("index", "data_index", "row")


@dataclass(frozen=True)
class PluginResult:
    folder: Path
    plugin: str
    files: list[str]
    arguments: list[str]
    status: str = "finished"


def _row_cells(job: Path, row: int) -> tuple[list[str], list[str]]:
    path = job / "output_result.csv"
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
    except OSError:
        raise PluginError(f"--row {row}: {path} does not exist (evaluate the job first)") from None
    if not 0 <= row < len(rows) - 1:
        raise PluginError(f"--row {row}: output_result.csv has rows 0 to {len(rows) - 2}")
    return rows[0], rows[row + 1]


def _from_row(plugin: Plugin, job: Path, row: int, given: Mapping[str, str]) -> dict[str, str]:
    """What a selected row of the output table fills: the image of an ``(image)`` input,
    the row number of an ``index`` parameter, the predicted class of ``class_index``."""
    header, cells = _row_cells(job, row)
    filled: dict[str, str] = {}
    names = [h.split(":")[0] for h in header]
    for p in plugin.params:
        if p.name in given:
            continue
        if p.kind == "image" and not p.is_output:
            picks = [c for h, c in zip(header, cells, strict=False) if h.endswith(":image")]
            picks = picks or [c for c in cells if c.lower().endswith((".png", ".jpg", ".bmp"))]
            if picks:
                filled[p.name] = picks[0]
        elif p.name in _INDEX_NAMES and p.kind == "int":
            filled[p.name] = str(row)
    cls = plugin.param("class_index")
    if cls is not None and "class_index" not in given:
        variable = given.get("output_variable") or next(
            (p.default for p in plugin.params if p.name == "output_variable"), None)  # fmt: skip
        base = (variable or "y'").rstrip("0123456789'") + "'"
        scores = [(float(c), k) for k, (n, c) in enumerate(zip(names, cells, strict=False))
                  if n.startswith(f"{base}__") and _is_float(c)]  # fmt: skip
        if scores:
            best = max(scores)[1]
            filled["class_index"] = names[best].rpartition("__")[2]
    return filled


def row_values(plugin: Plugin, job: Path, row: int) -> dict[str, str]:
    """What selecting ``row`` of the output table fills in (the dialog shows these)."""
    return _from_row(plugin, Path(job), row, {})


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def build_arguments(
    plugin: Plugin, job: Path, values: Mapping[str, str], row: int | None = None
) -> list[str]:
    """The script's command-line arguments (see the module docstring)."""
    given = {}
    for key, value in values.items():
        param = plugin.param(key)
        if param is None:
            known = ", ".join(p.name for p in plugin.params)
            raise PluginError(f"plugin {plugin.name!r}: no parameter {key!r} (it has {known})")
        given[param.name] = str(value)
    filled = dict(given)
    if row is not None:
        filled.update(_from_row(plugin, job, row, given))
    args: list[str] = []
    for p in plugin.params:
        value = filled.get(p.name, p.default)
        if p.flag_only:
            if str(value).strip().lower() in ("1", "true", "yes", "on"):
                args.append(p.option)
            continue
        if value is None or value == "":
            continue
        if p.kind in FILE_KINDS and not p.is_output and not Path(value).is_absolute():
            candidate = job / value
            if candidate.exists():
                value = str(candidate.resolve())
        if p.is_output and (Path(value).is_absolute() or ".." in Path(value).parts):
            raise PluginError(f"plugin {plugin.name!r}: --{p.name} {value}: an output is a file "
                              f"name in the result folder")  # fmt: skip
        args += [p.option, value]
    return args


def _new_folder(job: Path, stem: str) -> Path:
    root = job / RESULTS_DIR
    root.mkdir(exist_ok=True)
    n = 1
    while True:
        folder = root / f"{stem}_{n}"
        try:
            folder.mkdir()
            return folder
        except FileExistsError:
            n += 1


def run_plugin(
    plugin: Plugin,
    job_dir: str | Path,
    values: Mapping[str, str] | None = None,
    *,
    row: int | None = None,
    on_event: Callable[[dict[str, Any]], None] | None = None,
    stop: threading.Event | None = None,
    timeout: float | None = None,
) -> PluginResult:
    """Run ``plugin`` on the job; raises :class:`PluginError` with one line on any failure."""
    job = Path(job_dir).resolve()
    if plugin.error:
        raise PluginError(f"plugin {plugin.name!r}: {plugin.error}")
    if not job.is_dir():
        raise PluginError(f"{job}: no such job folder")
    args = build_arguments(plugin, job, values or {}, row)
    emit = on_event or (lambda record: None)
    folder = _new_folder(job, plugin.stem)
    command = [*python_for(plugin), str(plugin.path), *args]
    emit({"event": "start", "plugin": plugin.name, "job": str(job), "result": str(folder),
          "arguments": args})  # fmt: skip
    try:
        tail = _run_child(command, folder, emit, stop, timeout, plugin.name)
        files = sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())
        if not files:
            raise PluginError(f"plugin {plugin.name!r} wrote no result file" +
                              (f" ({tail[-1]})" if tail else ""))  # fmt: skip
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        _remove_if_empty(job / RESULTS_DIR)
        raise
    record = {"plugin": plugin.name, "script": str(plugin.path), "arguments": args,
              "row": row, "files": files, "status": "finished",
              "time": time.strftime("%Y-%m-%d %H:%M:%S")}  # fmt: skip
    (folder / RECORD).write_text(json.dumps(record, indent=1), encoding="utf-8")
    return PluginResult(folder, plugin.name, files, args)


def _remove_if_empty(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:
        pass


def _run_child(
    command: list[str],
    folder: Path,
    emit: Callable[[dict[str, Any]], None],
    stop: threading.Event | None,
    timeout: float | None,
    name: str,
) -> list[str]:
    """Run the script; its lines become log/progress events. Returns the last lines."""
    try:
        process = subprocess.Popen(
            command, cwd=str(folder), env=child_env(), stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace",
            start_new_session=True,
        )  # fmt: skip
    except OSError as exc:
        raise PluginError(f"plugin {name!r}: cannot start {command[0]}: {exc.strerror}") from None
    tail: list[str] = []

    def read() -> None:
        assert process.stdout is not None
        for raw in process.stdout:
            line = raw.rstrip()
            if not line:
                continue
            tail.append(line)
            del tail[:-20]
            match = _PROGRESS.search(line)
            if match and match.group(2):
                emit({"event": "progress", "done": int(match.group(1)),
                      "total": int(match.group(2))})  # fmt: skip
            elif match:
                emit({"event": "progress", "done": int(match.group(1)), "total": 100})
            else:
                emit({"event": "log", "message": line})

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    started = time.monotonic()
    while process.poll() is None:
        if stop is not None and stop.is_set():
            _end(process)
            raise PluginError(f"plugin {name!r}: stopped")
        if timeout is not None and time.monotonic() - started > timeout:
            _end(process)
            raise PluginError(f"plugin {name!r}: did not finish in {timeout:g} s (stopped)")
        time.sleep(0.05)
    reader.join(timeout=5)
    if process.returncode != 0:
        why = _cause(tail) or f"exit status {process.returncode}"
        raise PluginError(f"plugin {name!r} failed: {why}")
    return tail


def _cause(tail: list[str]) -> str:
    """The line of the script's output that says why it failed (a traceback's last line)."""
    for line in reversed(tail):
        text = line.strip()
        if text and not text.startswith(("File ", "^", "~")):
            return re.sub(r"^[^:]{1,60}: error: ", "", text)
    return ""


def _end(process: subprocess.Popen[str]) -> None:
    process.terminate()
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def list_results(job_dir: str | Path) -> list[PluginResult]:
    """The plugin results saved in the job folder, oldest first."""
    root = Path(job_dir) / RESULTS_DIR
    found = []
    for record_file in sorted(root.glob(f"*/{RECORD}"), key=lambda p: p.stat().st_mtime):
        try:
            record = json.loads(record_file.read_text(encoding="utf-8"))
            found.append(PluginResult(record_file.parent, str(record["plugin"]),
                                      [str(f) for f in record["files"]],
                                      [str(a) for a in record.get("arguments", [])],
                                      str(record.get("status", "finished"))))  # fmt: skip
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return found
