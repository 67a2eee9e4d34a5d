"""Watch a project's jobs folder, so jobs made outside the app (the CLI, another window) and
their status changes show without a restart.

A job writes status.json by renaming a temporary file, which changes its folder; the root
changes when a job appears or goes. Bursts (a trainer writes several files per epoch) are
merged into one ``changed`` signal.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

SETTLE_MS = 300


class JobsWatcher(QObject):
    changed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._watcher = QFileSystemWatcher(self)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SETTLE_MS)
        self._timer.timeout.connect(self.changed)
        self._watcher.directoryChanged.connect(lambda _path: self._timer.start())

    def watch(self, root: Path, jobs: list[Path]) -> None:
        """Follow ``root`` (or, until it exists, the nearest folder above it), every folder in
        it and ``jobs``. Every folder, not only the jobs: a run makes its folder first and
        writes network.ncproj into it after, so a refresh in between does not list it as a
        job yet, and only the folder itself then changes (under load the history missed such
        a job until something else changed the root)."""
        existing = root
        while not existing.is_dir() and existing != existing.parent:
            existing = existing.parent
        folders = [p for p in root.iterdir() if p.is_dir()] if root.is_dir() else []
        wanted = {str(existing), *(str(j) for j in [*jobs, *folders] if j.is_dir())}
        current = set(self._watcher.directories())
        if current - wanted:
            self._watcher.removePaths(sorted(current - wanted))
        if wanted - current:
            self._watcher.addPaths(sorted(wanted - current))

    def directories(self) -> list[str]:
        return self._watcher.directories()
