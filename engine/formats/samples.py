"""The sample projects that ship with NeuroCanvas, wherever it is installed.

In a source checkout they are the files in ``projects/``; in an installed wheel the same files
are the package ``neurocanvas_samples`` (:mod:`engine.package_data`). A sample is never opened or
trained in place: the package folder may be read-only or shared by every user, and a run writes
its job folders beside the project. :func:`copy_sample` gives the user a copy of their own.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from engine.package_data import data_folder

__all__ = ["SampleError", "samples_folder", "sample_projects", "find_sample", "copy_sample"]


class SampleError(ValueError):
    """An unknown sample, or a copy that would overwrite a file."""


def samples_folder() -> Path | None:
    """The folder holding the sample ``.ncproj`` files (None if neither place has them)."""
    return data_folder("neurocanvas_samples", "projects")


def sample_projects() -> list[Path]:
    """Every sample project, sorted by name."""
    folder = samples_folder()
    return sorted(folder.glob("*.ncproj")) if folder else []


def find_sample(name: str) -> Path:
    """The sample called ``name`` (its file name, with or without ``.ncproj``)."""
    stem = name.removesuffix(".ncproj")
    for path in sample_projects():
        if path.stem == stem:
            return path
    known = ", ".join(p.stem for p in sample_projects()) or "none installed"
    raise SampleError(f"no sample called {name!r}; the samples are: {known}")


def copy_sample(
    name: str | Path, folder: str | Path, force: bool = False, reuse: bool = False
) -> Path:
    """Copy the sample ``name`` (a sample's name, or one of :func:`sample_projects`) into
    ``folder`` (made if missing) and return the copy's path. Its datasets are built-in
    references (made on first use), so the file is the whole sample.

    An existing copy is refused (:class:`SampleError`), replaced (``force``) or, with ``reuse``,
    returned as it is: the app's File > Open Sample opens the user's copy, with their edits,
    every time after the first. The copy is written beside the target and renamed into place,
    so an interrupted copy leaves no half file."""
    source = Path(name) if isinstance(name, Path) else find_sample(name)
    target = Path(folder) / source.name
    if target.exists() and reuse:
        return target
    if target.exists() and not force:
        raise SampleError(f"{target} exists; choose another folder or use --force")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.partial")
    shutil.copyfile(source, partial)
    os.replace(partial, target)
    return target
