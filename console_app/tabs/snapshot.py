"""The project as it is being edited, written to a file the trainer can read.

Run trains what the user sees, saved or not: the document is written to
``<jobs root>/.snapshot/<name>.ncproj``. Relative dataset CSV paths are made absolute first
(they are relative to the project file's folder, which the snapshot does not share).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from engine.formats import load_project, save_project
from engine.graph.project import Project
from engine.runtime.datasets import BUILTIN_SCHEME


def _absolute_uri(uri: str, base: Path | None) -> str:
    text = uri.strip()
    if not text or text.startswith(BUILTIN_SCHEME) or "{SDCPATH}" in text or base is None:
        return uri
    path = Path(text.replace("\\", "/")).expanduser()
    return uri if path.is_absolute() else str((base / path).resolve())


def write_snapshot(project: Project, project_file: Path | None, root: Path) -> Path:
    """Write ``project`` (with absolute dataset paths) under ``root``; returns the file."""
    folder = root / ".snapshot"
    folder.mkdir(parents=True, exist_ok=True)
    name = (project_file.stem if project_file is not None else "untitled") + ".ncproj"
    with tempfile.TemporaryDirectory() as tmp:  # a copy: the open document is never touched
        copy_file = Path(tmp) / "copy.ncproj"
        save_project(project, copy_file)
        copy = load_project(copy_file)
    base = project_file.parent if project_file is not None else None
    for i, dataset in enumerate(copy.datasets):
        uri = _absolute_uri(dataset.uri, base)
        if uri != dataset.uri:
            copy.replace_section(("datasets", i), dataset.with_value("URI", uri))
    target = folder / name
    save_project(copy, target)
    return target
