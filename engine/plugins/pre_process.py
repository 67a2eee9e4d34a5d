"""Run a pre-process plugin (DATASET > Create Dataset): no job, a dataset folder instead.

The script's ``--output-dir`` is a staging folder beside the one asked for
(``.<name>.creating-<pid>``); only when the script succeeds and wrote its dataset CSV do its
files move into the output folder (replacing files of the same names), so a failed or stopped
run leaves the output folder as it was. Inputs given as relative paths are taken from ``cwd``
(the CLI's working folder, the project's folder in the app); options whose names say
``output`` are file names in the output folder.
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.plugins.errors import PluginError
from engine.plugins.protocol import FILE_KINDS, Plugin, python_for
from engine.plugins.runner import _run_child

__all__ = ["CreatedDataset", "build_pre_arguments", "output_folder", "run_pre_process"]

OUTPUT_DIR = "output-dir"


@dataclass(frozen=True)
class CreatedDataset:
    folder: Path
    plugin: str
    files: list[str]  # relative to the folder
    datasets: list[Path]  # the dataset CSVs written (output_file1, then output_file2)
    arguments: list[str]


def _is_output(name: str) -> bool:
    return "output" in name.replace("-", "_").split("_")


def output_folder(plugin: Plugin, values: Mapping[str, str], cwd: Path) -> Path:
    param = plugin.param(OUTPUT_DIR)
    if param is None:
        raise PluginError(f"plugin {plugin.name!r} has no --output-dir: not a pre-process plugin")
    given = {(plugin.param(k).name if plugin.param(k) else k): v for k, v in values.items()}
    text = str(given.get(param.name) or param.default or "").strip()
    if not text:
        raise PluginError(
            f"plugin {plugin.name!r}: give output-dir=DIR (the folder the dataset goes to)"
        )
    folder = Path(text).expanduser()
    folder = folder if folder.is_absolute() else cwd / folder
    if folder.exists() and not folder.is_dir():
        raise PluginError(f"output-dir {folder}: a file, not a folder")
    return folder.resolve()


def build_pre_arguments(
    plugin: Plugin, values: Mapping[str, str], cwd: Path, staging: Path
) -> list[str]:
    """The script's arguments; ``--output-dir`` is ``staging``."""
    given: dict[str, str] = {}
    for key, value in values.items():
        param = plugin.param(key)
        if param is None:
            known = ", ".join(p.name for p in plugin.params)
            raise PluginError(f"plugin {plugin.name!r}: no parameter {key!r} (it has {known})")
        given[param.name] = str(value)
    args: list[str] = []
    for p in plugin.params:
        value = given.get(p.name, p.default)
        if p.name == OUTPUT_DIR:
            args += [p.option, str(staging)]
            continue
        if p.flag_only:
            if str(value).strip().lower() in ("1", "true", "yes", "on"):
                args.append(p.option)
            continue
        if value is None or value == "":
            continue
        if p.kind in FILE_KINDS and _is_output(p.name):
            if Path(value).is_absolute() or ".." in Path(value).parts:
                raise PluginError(
                    f"plugin {plugin.name!r}: --{p.name} {value}: an output is a "
                    f"file name in the output folder"
                )
        elif p.kind in FILE_KINDS and not Path(value).expanduser().is_absolute():
            value = str((cwd / Path(value).expanduser()).resolve())
        args += [p.option, value]
    return args


def run_pre_process(
    plugin: Plugin,
    values: Mapping[str, str] | None = None,
    *,
    cwd: str | Path | None = None,
    on_event: Callable[[dict[str, Any]], None] | None = None,
    stop: threading.Event | None = None,
    timeout: float | None = None,
) -> CreatedDataset:
    """Run ``plugin`` and move what it wrote into its output folder; one-line
    :class:`PluginError` on any failure, the output folder untouched."""
    if plugin.error:
        raise PluginError(f"plugin {plugin.name!r}: {plugin.error}")
    if plugin.stage != "pre":
        raise PluginError(f"plugin {plugin.name!r} is a post-process plugin: it runs on a job")
    values = dict(values or {})
    here = Path(cwd or Path.cwd()).resolve()
    folder = output_folder(plugin, values, here)
    build_pre_arguments(plugin, values, here, folder)  # bad input fails before any folder
    made = [p for p in [folder.parent, *folder.parent.parents] if not p.exists()]
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = folder.parent / f".{folder.name}.creating-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    emit = on_event or (lambda record: None)
    try:
        args = build_pre_arguments(plugin, values, here, staging)
        emit({"event": "start", "plugin": plugin.name, "result": str(folder), "arguments": args})
        tail = _run_child(
            [*python_for(plugin), str(plugin.path), *args],
            staging,
            emit,
            stop,
            timeout,
            plugin.name,
        )
        files = sorted(str(p.relative_to(staging)) for p in staging.rglob("*") if p.is_file())
        outputs = [
            _value(args, p.option)
            for p in plugin.params
            if p.kind == "csv" and p.name.replace("-", "_").startswith("output_file")
        ]
        datasets = [name for name in outputs if name and (staging / name).is_file()]
        if not datasets:
            raise PluginError(
                f"plugin {plugin.name!r} wrote no dataset CSV" + (f" ({tail[-1]})" if tail else "")
            )
        _move_into(staging, folder)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        for path in made:  # the folders made for it, deepest first
            _remove_if_empty(path)
        raise
    return CreatedDataset(folder, plugin.name, files, [folder / d for d in datasets], args)


def _value(args: list[str], option: str) -> str | None:
    return args[args.index(option) + 1] if option in args else None


def _move_into(staging: Path, folder: Path) -> None:
    """Every entry of ``staging`` into ``folder`` (same names replaced), then ``staging`` goes."""
    if not folder.exists():
        staging.rename(folder)
        return
    for entry in sorted(staging.iterdir()):
        target = folder / entry.name
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        elif target.exists() or target.is_symlink():
            target.unlink()
        entry.rename(target)
    staging.rmdir()


def _remove_if_empty(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:
        pass
