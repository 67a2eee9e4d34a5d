"""The open project: model, undo stack, live inference and file path, without Qt.

The editor's widgets share one :class:`Document`. Edits are pushed as command objects
(:mod:`engine.graph.commands`); the model emits its events to every view, and after each user
action (one push, undo, redo or macro) the document tells its listeners once, so views that
show derived values (shapes, statistics, problems, the title's ``*``) recompute once per action.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from engine.formats import load_project, save_project
from engine.formats.samples import sample_projects
from engine.graph.commands import Command, UndoStack
from engine.graph.infer import LayerResult, NetworkInference
from engine.graph.project import Project
from engine.graph.project_inference import ProjectInference
from engine.graph.validate import Problem, validate_network

_log = logging.getLogger(__name__)


def default_project_path() -> Path | None:
    """The project ``neurocanvas`` opens without argument: the LeNet sample when it exists."""
    found = [p for p in sample_projects() if p.stem.startswith("lenet")]
    return found[0] if found else None


class Document:
    """A project being edited: ``project``, ``stack``, ``inference``, ``path``."""

    def __init__(self, project: Project | None = None, path: str | os.PathLike[str] | None = None):
        self.project = project if project is not None else Project.new()
        # Absolute: child processes (trainer, evaluator) run in another working directory.
        self.path: Path | None = Path(path).absolute() if path is not None else None
        # Inference subscribes first, so it has dropped stale results before any view reads.
        self.inference = ProjectInference(self.project)
        # Each network's problems until the model next changes (the canvas and the problems
        # list both ask after every action).
        self._problems: dict[str, list[Problem]] = {}
        self._unsubscribe_model = self.project.events.subscribe(
            lambda _event: self._problems.clear()
        )
        self.stack = UndoStack()
        self.recovered = False  # recovered from an autosave: unsaved until saved
        self._listeners: list[Callable[[], None]] = []
        self._unsubscribe_stack = self.stack.subscribe(self._changed)

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> Document:
        """Load a project file (``.ncproj`` or ``.sdcproj``); raises ``ProjectFileError``."""
        return cls(load_project(path), path)

    def close(self) -> None:
        self.inference.close()
        self._unsubscribe_model()
        self._unsubscribe_stack()
        self._listeners.clear()

    # -- listeners -------------------------------------------------------------------------
    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]:
        """``callback()`` runs after every user action and every save; returns an unsubscribe."""
        self._listeners.append(callback)
        return lambda: self._listeners.remove(callback) if callback in self._listeners else None

    def _changed(self) -> None:
        for callback in list(self._listeners):
            callback()

    # -- editing ---------------------------------------------------------------------------
    def push(self, command: Command) -> bool:
        """Run and record one command (one undo step); ModelError propagates to the caller."""
        return self.stack.push(command)

    @contextmanager
    def macro(self, text: str) -> Iterator[None]:
        """Group the pushes of a block into one undo step."""
        with self.stack.macro(text):
            yield

    # -- files -----------------------------------------------------------------------------
    @property
    def modified(self) -> bool:
        return self.recovered or not self.stack.is_clean()

    @property
    def title(self) -> str:
        return self.path.name if self.path is not None else "Untitled"

    def save(self, path: str | os.PathLike[str] | None = None) -> None:
        """Atomic save (the format follows the extension); marks the document clean."""
        target = Path(path) if path is not None else self.path
        if target is None:
            raise ValueError("the project has no file yet: choose where to save it")
        save_project(self.project, target)
        self.path = Path(target).absolute()
        self.recovered = False
        self.stack.set_clean()

    # -- derived values --------------------------------------------------------------------
    def network_inference(self, network: str) -> NetworkInference:
        return self.inference.network(network)

    def results(self, network: str) -> dict[str, LayerResult]:
        """Every layer's shape and statistics; an engine failure is logged, never raised."""
        try:
            return self.inference.network(network).results()
        except Exception:  # a bug in a rule must not take the editor down
            _log.exception('inference of network "%s" failed', network)
            return {}

    def problems(self, network: str) -> list[Problem]:
        found = self._problems.get(network)
        if found is None:
            try:
                found = validate_network(self.inference.network(network))
            except Exception:
                _log.exception('validation of network "%s" failed', network)
                return []
            self._problems[network] = found
        return list(found)
