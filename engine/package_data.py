"""Folders of data files that travel with NeuroCanvas: the sample projects and the app's resources.

A source checkout has them at the top (``projects/``, ``resources/``), where tests, the README
and a developer find them; a wheel carries the same files as packages (``setup.py`` maps
``neurocanvas_samples`` onto ``projects/`` and ``neurocanvas_resources`` onto ``resources/``),
so there is one copy of each file.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

__all__ = ["data_folder"]

_CHECKOUT = Path(__file__).resolve().parents[1]


def data_folder(package: str, checkout_name: str) -> Path | None:
    """The folder of ``package``'s files: the checkout's ``checkout_name`` when this is a
    checkout, else the installed package's folder; None when neither exists."""
    folder = _CHECKOUT / checkout_name
    if (_CHECKOUT / "pyproject.toml").is_file() and folder.is_dir():  # not site-packages/<name>
        return folder
    # A folder of data files, not code: its spec's search path is the folder (importlib's
    # resource readers refuse the namespace package it is in an editable install).
    spec = importlib.util.find_spec(package)
    for location in (spec.submodule_search_locations or []) if spec else []:
        if Path(location).is_dir():
            return Path(location)
    return None
