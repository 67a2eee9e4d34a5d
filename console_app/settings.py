"""What the app remembers between sessions (QSettings): recent files, window geometry, the last
project, where autosaves and the copies of the sample projects go. Tests pass a QSettings on a
temporary INI file."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings, QStandardPaths

MAX_RECENT = 10


class AppSettings:
    def __init__(self, settings: QSettings | None = None) -> None:
        self.qsettings = settings if settings is not None else QSettings()

    # -- recent files ----------------------------------------------------------------------
    def recent_files(self) -> list[str]:
        value = self.qsettings.value("recent_files", [])
        if isinstance(value, str):  # QSettings returns a lone string for a one-item list
            value = [value]
        return [str(v) for v in (value or []) if v]

    def add_recent(self, path: str | os.PathLike[str]) -> None:
        text = str(Path(path).resolve())
        recent = [text] + [p for p in self.recent_files() if p != text]
        self.qsettings.setValue("recent_files", recent[:MAX_RECENT])
        self.qsettings.setValue("last_project", text)

    def clear_recent(self) -> None:
        self.qsettings.setValue("recent_files", [])

    @property
    def last_project(self) -> str | None:
        value = self.qsettings.value("last_project", None)
        return str(value) if value else None

    # -- window ----------------------------------------------------------------------------
    def geometry(self) -> QByteArray | None:
        value = self.qsettings.value("window/geometry", None)
        return value if isinstance(value, QByteArray) else None

    def set_geometry(self, geometry: QByteArray) -> None:
        self.qsettings.setValue("window/geometry", geometry)

    def window_state(self) -> QByteArray | None:
        value = self.qsettings.value("window/state", None)
        return value if isinstance(value, QByteArray) else None

    def set_window_state(self, state: QByteArray) -> None:
        self.qsettings.setValue("window/state", state)

    # -- autosave --------------------------------------------------------------------------
    def autosave_dir(self) -> Path:
        """Beside the settings file when it is an INI file (tests), else the app data folder."""
        name = self.qsettings.fileName()
        if self.qsettings.format() == QSettings.Format.IniFormat and name:
            return Path(name).parent / "autosave"
        base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
        return Path(base or Path.home() / ".neurocanvas") / "autosave"

    # -- the user's projects ---------------------------------------------------------------
    def projects_dir(self) -> Path:
        """Where copies of the sample projects go: ``projects_dir`` when set, beside the
        settings file when it is an INI file (tests), else Documents/NeuroCanvas."""
        chosen = self.qsettings.value("projects_dir", None)
        if chosen:
            return Path(str(chosen))
        name = self.qsettings.fileName()
        if self.qsettings.format() == QSettings.Format.IniFormat and name:
            return Path(name).parent / "projects"
        base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
        return Path(base or Path.home()) / "NeuroCanvas"

    # -- plugins ---------------------------------------------------------------------------
    def plugin_folders(self) -> list[str]:
        """Folders of the user's plugins (beside the built-ins and NEUROCANVAS_PLUGINS)."""
        value = self.qsettings.value("plugins/folders", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in (value or []) if v]

    def add_plugin_folder(self, folder: str) -> None:
        folders = [f for f in self.plugin_folders() if f != folder] + [folder]
        self.qsettings.setValue("plugins/folders", folders)

    # -- language --------------------------------------------------------------------------
    def language(self) -> str:
        """``en``, ``ja`` or ``system`` (the default: the system's language)."""
        value = str(self.qsettings.value("ui/language", "system") or "system")
        return value if value in ("en", "ja", "system") else "system"

    def set_language(self, language: str) -> None:
        self.qsettings.setValue("ui/language", language)

    def sync(self) -> None:
        self.qsettings.sync()
