"""Autosave and crash recovery (no Qt).

While a project has unsaved edits, a copy is written two seconds after an edit (atomic native
save) to the autosave folder together with a small JSON note of the file it belongs to. Each project
file has its own autosave (named after a hash of its path), so the work on one file is never
offered in place of another, nor overwritten by edits to another. A clean exit, a save, or
discarding the changes removes it; an autosave found at start-up therefore means a session
ended without doing either, and the app offers to recover it when that file is opened.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

from console_app.document import Document
from engine.core.atomic import atomic_write_text
from engine.formats import load_project, save_project

UNTITLED = "untitled"


@dataclass(frozen=True)
class Recovery:
    project_file: Path
    original: str | None  # the file the work belonged to, None for an untitled project
    saved_at: float

    @property
    def note_file(self) -> Path:
        return self.project_file.with_suffix(".json")

    def belongs_to(self, path: Path | None) -> bool:
        if path is None or self.original is None:
            return path is None and self.original is None
        return Path(self.original).resolve() == Path(path).resolve()


def autosave_name(original: Path | None) -> str:
    """``lenet-1a2b3c4d5e6f.ncproj``: readable, and unique per absolute path."""
    if original is None:
        return UNTITLED + ".ncproj"
    digest = hashlib.sha1(str(Path(original).resolve()).encode("utf-8")).hexdigest()[:12]
    stem = re.sub(r"[^A-Za-z0-9_.-]", "_", Path(original).stem)[:40]
    return f"{stem}-{digest}.ncproj"


class Autosaver:
    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self.written: Path | None = None  # this session's autosave (others are not ours to drop)

    @property
    def wrote(self) -> bool:
        return self.written is not None

    def file_for(self, original: Path | None) -> Path:
        return self.directory / autosave_name(original)

    def save(self, document: Document) -> bool:
        """Write the autosave when the document has unsaved edits; returns whether it wrote."""
        if not document.modified:
            return False
        target = self.file_for(document.path)
        if self.written is not None and self.written != target:
            self.discard()  # the document moved (Save As, another file opened)
        self.directory.mkdir(parents=True, exist_ok=True)
        save_project(document.project, target)
        note = {"original": str(document.path) if document.path else None, "saved_at": time.time()}
        atomic_write_text(target.with_suffix(".json"), json.dumps(note), durable=False)
        self.written = target
        return True

    def discard(self) -> None:
        """Remove this session's autosave (after a save, a discard or a clean exit)."""
        if self.written is not None:
            self.drop(Recovery(self.written, None, 0.0))
        self.written = None

    @staticmethod
    def drop(recovery: Recovery) -> None:
        for path in (recovery.project_file, recovery.note_file):
            path.unlink(missing_ok=True)

    def pending(self) -> list[Recovery]:
        """Autosaves left by sessions that did not end cleanly, newest first."""
        if not self.directory.is_dir():
            return []
        found = []
        for project_file in self.directory.glob("*.ncproj"):
            if project_file == self.written:
                continue
            original, saved_at = None, project_file.stat().st_mtime
            try:
                note = json.loads(project_file.with_suffix(".json").read_text(encoding="utf-8"))
                original = note.get("original") if isinstance(note.get("original"), str) else None
                saved_at = float(note.get("saved_at", saved_at))
            except (OSError, ValueError, TypeError, AttributeError):
                pass
            found.append(Recovery(project_file, original, saved_at))
        return sorted(found, key=lambda r: -r.saved_at)

    def pending_for(self, path: Path | None) -> Recovery | None:
        return next((r for r in self.pending() if r.belongs_to(path)), None)

    def recover(self, recovery: Recovery) -> Document:
        """The autosaved work as a modified document that saves to its original file; this
        session now owns the autosave (a save or a discard removes it)."""
        document = Document(load_project(recovery.project_file), recovery.original)
        document.recovered = True
        if self.written is not None and self.written != recovery.project_file:
            self.discard()
        self.written = recovery.project_file
        return document
