"""Autosave and crash recovery (no Qt).

While a project has unsaved edits, a copy is written every few seconds (atomic native save) to
the autosave folder together with a small JSON note of the file it belongs to. A clean exit,
a save, or discarding the changes removes it; an autosave found at start-up therefore means the
last session ended without doing either, and the app offers to recover it.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from console_app.document import Document
from engine.formats import load_project, save_project

PROJECT_FILE = "autosave.ncproj"
NOTE_FILE = "autosave.json"


@dataclass(frozen=True)
class Recovery:
    project_file: Path
    original: str | None  # the file the work belonged to, None for an untitled project
    saved_at: float


class Autosaver:
    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self.wrote = False  # this session wrote the autosave (an older one is not ours to drop)

    @property
    def project_file(self) -> Path:
        return self.directory / PROJECT_FILE

    @property
    def note_file(self) -> Path:
        return self.directory / NOTE_FILE

    def save(self, document: Document) -> bool:
        """Write the autosave when the document has unsaved edits; returns whether it wrote."""
        if not document.modified:
            return False
        self.directory.mkdir(parents=True, exist_ok=True)
        save_project(document.project, self.project_file)
        note = {"original": str(document.path) if document.path else None, "saved_at": time.time()}
        tmp = self.note_file.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(note), encoding="utf-8")
        os.replace(tmp, self.note_file)
        self.wrote = True
        return True

    def discard(self) -> None:
        for path in (self.project_file, self.note_file):
            path.unlink(missing_ok=True)
        self.wrote = False

    def pending(self) -> Recovery | None:
        """The autosave left by a session that did not end cleanly, or None."""
        if not self.project_file.is_file():
            return None
        original, saved_at = None, self.project_file.stat().st_mtime
        try:
            note = json.loads(self.note_file.read_text(encoding="utf-8"))
            original = note.get("original") if isinstance(note.get("original"), str) else None
            saved_at = float(note.get("saved_at", saved_at))
        except (OSError, ValueError, TypeError, AttributeError):
            pass
        return Recovery(self.project_file, original, saved_at)

    def recover(self, recovery: Recovery) -> Document:
        """The autosaved work as a modified document that saves to its original file."""
        document = Document(load_project(recovery.project_file), recovery.original)
        document.recovered = True
        return document
