"""Where a project's dataset links point: CSV files, built-in datasets, NNC sample URIs.

A project's ``[Dataset_<i>] URI`` may be

* ``builtin:<name>/<split>``: a built-in dataset of :mod:`engine.data.builtin`, generated on
  first use (``builtin:digits/training``, ``builtin:iris/validation``); NeuroCanvas's sample
  projects use these, so no dataset is ever committed;
* an NNC sample URI (``{SDCPATH}samples\\sample_dataset\\mnist\\mnist_training.csv``): the
  matching built-in dataset (downloaded where it is not bundled);
* a CSV path, absolute or relative to the project file's folder (backslashes read as ``/``).
"""

from __future__ import annotations

from pathlib import Path

from engine.core.messages import QT_TRANSLATE_NOOP, text_of
from engine.data import DatasetError, open_dataset
from engine.data import builtin as builtin_data
from engine.data.csv_dataset import Dataset

__all__ = ["BUILTIN_SCHEME", "builtin_uri", "resolve_uri", "open_project_dataset"]

BUILTIN_SCHEME = "builtin:"
SPLITS = ("training", "validation")
# The texts the app shows in its language when a run fails on them (engine/core/messages.py).
_T = {
    "link": QT_TRANSLATE_NOOP("Training", 'dataset "{name}"'),
    "dataset": QT_TRANSLATE_NOOP("Training", "dataset"),
    "no uri": QT_TRANSLATE_NOOP(
        "Training", "{where}: no URI; set it to a dataset CSV or builtin:<name>/<split>"
    ),
    "split": QT_TRANSLATE_NOOP(
        "Training", "{where}: URI {uri}: the split must be training or validation. "
        "Received: {split}"
    ),
    "uri": QT_TRANSLATE_NOOP("Training", "{where}: URI {uri}: {cause}"),
    "no file": QT_TRANSLATE_NOOP(
        "Training", "{where}: the dataset CSV {path} does not exist (URI {uri})"
    ),
}  # fmt: skip


def builtin_uri(name: str, split: str) -> str:
    """The URI of a built-in dataset split, as sample projects write it."""
    return f"{BUILTIN_SCHEME}{name}/{split}"


def resolve_uri(uri: str, base: Path | None, *, dataset: str = "", progress: bool = False) -> Path:
    """The CSV file a dataset URI names (generating a built-in dataset when needed).

    Raises:
        DatasetError: empty URI, unknown built-in name or split, missing file; the message
            names the dataset link.
    """
    where = _T["link"].format(name=dataset) if dataset else _T["dataset"]
    text = uri.strip()
    if not text:
        raise DatasetError(_T["no uri"].format(where=where))
    if text.startswith(BUILTIN_SCHEME):
        name, _, split = text.removeprefix(BUILTIN_SCHEME).partition("/")
        split = split or "training"
        if split not in SPLITS:
            raise DatasetError(_T["split"].format(where=where, uri=text, split=repr(split)))
        try:
            builtin_data.get(name)
        except DatasetError as exc:  # the link's name too: a project may link several
            raise DatasetError(
                _T["uri"].format(where=where, uri=text, cause=text_of(exc))
            ) from None
        return builtin_data.ensure(name, progress=progress)[split]
    nnc = builtin_data.for_nnc_uri(text) if "{SDCPATH}" in text else None
    if nnc is not None:
        return builtin_data.ensure(nnc[0], progress=progress)[nnc[1]]
    path = Path(text.replace("\\", "/")).expanduser()
    if not path.is_absolute() and base is not None:
        path = base / path
    if not path.is_file():
        raise DatasetError(_T["no file"].format(where=where, path=str(path), uri=text))
    return path


def open_project_dataset(
    uri: str,
    base: Path | None,
    *,
    name: str,
    normalize: bool,
    cache: bool,
    progress: bool = False,
) -> Dataset:
    """Open and check the dataset a project links under ``name``."""
    path = resolve_uri(uri, base, dataset=name, progress=progress)
    return open_dataset(path, normalize=normalize, cache=cache)
