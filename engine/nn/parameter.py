"""Parameter scopes, parameter sharing by name, learning-rate multipliers, save and load.

Mirrors ``nnabla.parameter``: ``with nn.parameter_scope("conv1"):`` nests scopes, a parameter's
full name is its scope path plus its own name (``"conv1/conv/W"``), and asking for an existing
name returns the same :class:`Variable`, which is how layers (and networks) share parameters,
as NNC does (docs/layers.md §1.7, docs/nnc-behaviour.md §1.3).

Each parameter may carry NNC's ``LRateMultiplier``. NNC's trainer only distinguishes 0 (the
parameter is frozen: ``need_grad`` False, not given to the solver) from > 0 (trained at the plain
learning rate); the value is stored here so that a solver created with
``use_lr_multipliers=True`` can apply it as a real factor, which NNC does not do.

Files never execute code: parameters are written as ``.npz`` (``np.savez``) with the names and
metadata as JSON text inside, read back with ``allow_pickle=False``, and saved atomically.
"""

from __future__ import annotations

import json
import math
import os
import weakref
import zipfile
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.core import backend
from engine.core.atomic import atomic_output
from engine.core.autograd import Variable

__all__ = [
    "ParameterFileError", "ParameterInfo", "parameter_scope", "get_current_parameter_scope",
    "get_parameter", "set_parameter", "get_parameter_or_create", "get_parameters",
    "clear_parameters", "get_lr_multiplier", "set_lr_multiplier", "get_lr_multipliers",
    "get_parameter_info", "save_parameters", "load_parameters", "save_arrays", "load_arrays",
]  # fmt: skip

FORMAT_PARAMETERS = "neurocanvas-parameters"
FORMAT_VERSION = 1
_META_KEY = "__neurocanvas_meta__"


class ParameterFileError(ValueError):
    """A parameter (or solver-state) file cannot be read or written; the message names the file."""


@dataclass
class ParameterInfo:
    """What was asked when a parameter was created (the first definition wins, as in NNC)."""

    initializer: Any = None
    lr_mult: float = 1.0
    # NNC's WorkingMemory: the first axis holds one row per sample of the batch, so its length
    # follows the batch size (a loaded value may have another number of rows).
    per_sample: bool = False


_ROOT: dict[str, Any] = {}
_current: list[Any] = [_ROOT, ""]  # the current scope dict and its path (for names)
_INFO: weakref.WeakKeyDictionary[Variable, ParameterInfo] = weakref.WeakKeyDictionary()


# ----------------------------------------------------------------------------------- scopes
def get_current_parameter_scope() -> dict[str, Any]:
    """The current scope: a dict of names to Variables (parameters) and dicts (sub-scopes)."""
    return _current[0]


def _child(scope: dict[str, Any], name: str) -> dict[str, Any]:
    node = scope.get(name)
    if node is None:
        node = scope[name] = {}
    elif not isinstance(node, dict):
        raise ValueError(
            f"parameter_scope: {name!r} is a parameter, not a scope. Received: name={name!r}"
        )
    return node


class parameter_scope:  # noqa: N801 - nnabla's name; a class: cheaper than a generator
    """Enter the scope ``name`` (``"a/b"`` enters ``a`` then ``b``) below the current one.

    An empty name adds no level (NNC: an empty Unit ParameterScope adds nothing). With ``scope``
    (a dict from :func:`get_current_parameter_scope`), that dict becomes the current scope, as
    ``nnabla.parameter_scope(name, scope)``. A context manager; ``as`` gives the scope dict.
    (A class rather than ``contextlib.contextmanager``: every parametric function enters two
    scopes, and the generator machinery cost a dozen Python calls per scope and step.)
    """

    __slots__ = ("_name", "_scope", "_previous")

    def __init__(self, name: str, scope: dict[str, Any] | None = None) -> None:
        self._name, self._scope = name, scope

    def __enter__(self) -> dict[str, Any]:
        scope, path = self._scope, _current[1]
        if scope is None:
            scope = _current[0]
            name = self._name if type(self._name) is str else str(self._name)
            if name:
                for part in name.split("/"):
                    if part:
                        scope = _child(scope, part)
                        path = f"{path}/{part}" if path else part
        else:
            path = str(self._name)
        self._previous = (_current[0], _current[1])
        _current[:] = [scope, path]
        return scope

    def __exit__(self, *exc: object) -> None:
        _current[:] = self._previous


def _split(name: str) -> tuple[dict[str, Any], str]:
    """The scope holding ``name`` (created as needed) and the last part of the name."""
    parts = [p for p in str(name).split("/") if p]
    if not parts:
        raise ValueError(f"parameter name is empty. Received: name={name!r}")
    scope = get_current_parameter_scope()
    for part in parts[:-1]:
        scope = _child(scope, part)
    return scope, parts[-1]


def get_parameter(name: str) -> Variable | None:
    """The parameter ``name`` (relative to the current scope), or None."""
    scope = _current[0]
    if type(name) is str and "/" not in name:  # the common case, without splitting
        found = scope.get(name) if name else None
        return found if isinstance(found, Variable) else None
    parts = [p for p in str(name).split("/") if p]
    for part in parts[:-1]:
        scope = scope.get(part)
        if not isinstance(scope, dict):
            return None
    found = scope.get(parts[-1]) if parts else None
    return found if isinstance(found, Variable) else None


def set_parameter(name: str, param: Variable) -> None:
    """Register ``param`` under ``name`` in the current scope (replacing what was there)."""
    if not isinstance(param, Variable):
        raise TypeError(f"set_parameter: expected a Variable. Received: {type(param).__name__}")
    scope, last = _split(name)
    if isinstance(scope.get(last), dict):
        raise ValueError(f"set_parameter: {name!r} is a scope, not a parameter")
    scope[last] = param


def _initial_value(name: str, shape: tuple[int, ...] | None, initializer: Any) -> Any:
    if backend.is_array(initializer):
        return backend.asarray(initializer, dtype=np.float32)
    if shape is None:
        raise ValueError(f"get_parameter_or_create: {name!r} does not exist and no shape is given")
    if initializer is None:
        return backend.xp().zeros(shape, dtype=np.float32)
    if callable(initializer):
        value = backend.asarray(initializer(shape))
        if value.dtype != np.float32:
            value = value.astype(np.float32)
        return value
    # A number fills the shape, like ConstantInitializer.
    return backend.xp().full(shape, float(initializer), dtype=np.float32)


def get_parameter_or_create(
    name: str,
    shape: Any = None,
    initializer: Any = None,
    need_grad: bool = True,
    as_need_grad: bool | None = None,
    lr_mult: float | None = None,
    per_sample: bool = False,
) -> Variable:
    """The parameter ``name`` of the current scope, created when missing (nnabla semantics).

    Args:
        name: parameter name relative to the current scope (may contain ``/``).
        shape: its shape; an existing parameter must have the same one.
        initializer: a callable ``f(shape) -> array`` (see :mod:`engine.nn.initializer`), an
            array (its value and shape are used), a number, or None (zeros).
        need_grad: ``need_grad`` of a newly created parameter. For an existing one with a
            different flag, an unlinked variable sharing its data is returned (as nnabla).
        as_need_grad: when given and different from the parameter's flag, return an unlinked
            variable with this flag (``fix_parameters=True`` in PF uses ``as_need_grad=False``).
        lr_mult: NNC's LRateMultiplier for a newly created parameter. 0 freezes it (created
            with ``need_grad=False``, as NNC's trainer does). An existing parameter keeps the
            multiplier of its first definition.
        per_sample: a newly created parameter's first axis is one row per sample (NNC's
            WorkingMemory buffer): an existing one may have another number of rows, and
            :func:`load_parameters` replaces its value whatever the number of rows.
    """
    if shape is not None:
        shape = tuple(int(n) for n in (shape if hasattr(shape, "__iter__") else (shape,)))
    full = f"{_current[1]}/{name}" if _current[1] else str(name)
    param = get_parameter(name)
    if param is None:
        mult = 1.0 if lr_mult is None else float(lr_mult)
        if not math.isfinite(mult) or mult < 0:
            raise ValueError(f"parameter {full!r}: lr_mult must be >= 0. Received: {lr_mult!r}")
        value = _initial_value(full, shape, initializer)
        if shape is not None and tuple(value.shape) != shape:
            raise ValueError(
                f"parameter {full!r}: the initializer returned shape {tuple(value.shape)}, "
                f"expected {shape}"
            )
        param = Variable(value, need_grad=bool(need_grad) and mult != 0.0)
        param.name = full
        set_parameter(name, param)
        # An array initializer is not kept: the parameter already holds its value.
        kept = None if hasattr(initializer, "shape") else initializer
        _INFO[param] = ParameterInfo(initializer=kept, lr_mult=mult, per_sample=per_sample)
    else:
        if shape is not None and not _same_shape(param, shape):
            raise ValueError(
                f"parameter {full!r}: the existing parameter has shape {param.shape}, the new "
                f"request asks for {shape}. Parameters with equal names are shared, so their "
                f"shapes must agree."
            )
        if bool(need_grad) != param.need_grad and _INFO.get(param, ParameterInfo()).lr_mult != 0:
            param = param.unlinked().apply(need_grad=bool(need_grad))
    if as_need_grad is not None and bool(as_need_grad) != param.need_grad:
        param = param.unlinked().apply(need_grad=bool(as_need_grad))
    return param


def _same_shape(param: Variable, shape: tuple[int, ...]) -> bool:
    """Equal shapes; for a per-sample parameter, equal after the first (batch) axis."""
    if get_parameter_info(param).per_sample:
        return param.shape[1:] == tuple(shape)[1:]
    return param.shape == tuple(shape)


def _rows(param: Variable, value: np.ndarray) -> np.ndarray:
    """A per-sample parameter's value saved without the batch axis (files written before
    WorkingMemory had one) is one row."""
    if get_parameter_info(param).per_sample and value.shape == param.shape[1:]:
        return value[None]
    return value


def get_parameters(
    params: dict[str, Variable] | None = None, path: str | None = None, grad_only: bool = True
) -> dict[str, Variable]:
    """All parameters under the current scope, named relative to it (``"conv1/conv/W"``).

    Args:
        params: a dict to fill (a new one when None).
        path: a prefix for the names (used by the recursion, as in nnabla).
        grad_only: only parameters with ``need_grad`` True (what a solver should update).
    """
    out: dict[str, Variable] = {} if params is None else params
    seen = {id(v) for v in out.values()}

    def walk(scope: dict[str, Any], prefix: str) -> None:
        for key, node in scope.items():
            full = f"{prefix}/{key}" if prefix else key
            if isinstance(node, dict):
                walk(node, full)
            elif (node.need_grad or not grad_only) and id(node) not in seen:
                seen.add(id(node))
                out[full] = node

    walk(get_current_parameter_scope(), path or "")
    return out


def clear_parameters() -> None:
    """Remove every parameter and sub-scope of the current scope."""
    get_current_parameter_scope().clear()


# ----------------------------------------------------------------- learning-rate multipliers
def get_parameter_info(param: Variable) -> ParameterInfo:
    """The :class:`ParameterInfo` recorded when ``param`` was created (defaults otherwise)."""
    return _INFO.get(param) or ParameterInfo()


def _resolve(param: Variable | str) -> Variable:
    if isinstance(param, Variable):
        return param
    found = get_parameter(param)
    if found is None:
        raise KeyError(f"no parameter named {param!r} in the current scope")
    return found


def get_lr_multiplier(param: Variable | str) -> float:
    """NNC's LRateMultiplier of a parameter (a Variable or a name); 1.0 when never set."""
    info = _INFO.get(_resolve(param))
    return 1.0 if info is None else info.lr_mult


def set_lr_multiplier(param: Variable | str, value: float) -> None:
    """Set a parameter's LRateMultiplier; 0 also freezes it (``need_grad=False``), as NNC."""
    var = _resolve(param)
    value = float(value)
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"set_lr_multiplier: expected a value >= 0. Received: {value!r}")
    info = _INFO.setdefault(var, ParameterInfo())
    info.lr_mult = value
    if value == 0.0:
        var.need_grad = False


def get_lr_multipliers(grad_only: bool = False) -> dict[str, float]:
    """``{name: multiplier}`` for the parameters under the current scope."""
    return {k: get_lr_multiplier(v) for k, v in get_parameters(grad_only=grad_only).items()}


# ------------------------------------------------------------------------------- file format
def save_arrays(path: str | os.PathLike, arrays: dict[str, Any], meta: dict[str, Any]) -> None:
    """Write ``arrays`` and the JSON-able ``meta`` to one ``.npz`` file, atomically.

    The arrays are stored under their keys; ``meta`` is stored as UTF-8 JSON bytes (a uint8
    array), so reading needs neither pickle nor any code execution.
    """
    path = os.fspath(path)
    payload = {k: np.ascontiguousarray(backend.to_numpy(a)) for k, a in arrays.items()}
    if _META_KEY in payload:
        raise ValueError(f"{path}: the array name {_META_KEY!r} is reserved")
    text = json.dumps(meta, indent=1, sort_keys=False, allow_nan=False)
    payload[_META_KEY] = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    with atomic_output(path, "wb") as f:
        np.savez(f, **payload)


MAX_METADATA_BYTES = 64 * 2**20  # the JSON index of an .npz: names, shapes, flags


@dataclass(frozen=True)
class ArrayHeader:
    """What an ``.npz`` member declares before its data is read."""

    key: str
    shape: tuple[int, ...]
    dtype: np.dtype
    nbytes: int


def read_headers(path: str | os.PathLike) -> dict[str, ArrayHeader]:
    """Each member's shape and dtype from its ``.npy`` header and the archive's directory, with
    nothing of its data read; checked: a numeric dtype (no object arrays, no pickle), a shape of
    non-negative sizes whose byte count is what the archive says the member holds (a header that
    claims 10^6 x 10^6 in a small file, or a small header over a 5 GiB member, is refused here).

    Raises:
        ParameterFileError: naming the file and the member.
    """
    path = os.fspath(path)
    try:
        with zipfile.ZipFile(path) as archive:
            return {h.key: h for h in (_header(path, archive, i) for i in archive.infolist()) if h}
    except ParameterFileError:
        raise
    except FileNotFoundError as exc:
        raise ParameterFileError(f"{path}: file not found") from exc
    except IsADirectoryError as exc:
        raise ParameterFileError(f"{path}: a folder, not a parameter file") from exc
    except (OSError, zipfile.BadZipFile, EOFError, ValueError, KeyError, RuntimeError) as exc:
        if _is_npy(path):
            raise ParameterFileError(f"{path}: not an .npz archive (a single .npy array)") from exc
        raise ParameterFileError(f"{path}: not a readable .npz archive ({exc})") from exc


def _is_npy(path: str) -> bool:
    """Whether ``path`` is one NumPy array (``.npy``), which users hand in for an archive."""
    try:
        with open(path, "rb") as f:
            return f.read(6) == b"\x93NUMPY"
    except OSError:
        return False


def _header(path: str, archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> ArrayHeader | None:
    if info.is_dir():
        return None
    key = info.filename.removesuffix(".npy")
    where = f"{path}: array {key!r}"
    with archive.open(info) as stream:
        try:
            version = np.lib.format.read_magic(stream)
            read = {(1, 0): np.lib.format.read_array_header_1_0,
                    (2, 0): np.lib.format.read_array_header_2_0}.get(version)  # fmt: skip
            if read is None:
                raise ValueError(f"unsupported .npy version {version}")
            shape, _fortran, dtype = read(stream, max_header_size=10000)
        except ValueError as exc:
            raise ParameterFileError(f"{where}: not an .npy array ({exc})") from exc
        offset = stream.tell()
    if dtype.hasobject or dtype.kind not in "fiub" or dtype.fields is not None:
        raise ParameterFileError(f"{where} has unsupported dtype {dtype} (numbers only)")
    if any(not isinstance(n, int) or n < 0 for n in shape):
        raise ParameterFileError(f"{where} declares shape {shape}: sizes must be >= 0")
    nbytes = math.prod(shape) * dtype.itemsize  # Python integers: no overflow to 0
    if nbytes != info.file_size - offset:
        raise ParameterFileError(
            f"{where} declares shape {shape} ({nbytes:,} bytes) but the archive says it holds "
            f"{max(0, info.file_size - offset):,}: a corrupt or forged file"
        )
    if key == _META_KEY and nbytes > MAX_METADATA_BYTES:
        raise ParameterFileError(f"{where}: {nbytes:,} bytes of metadata, more than the "
                                 f"{MAX_METADATA_BYTES:,} allowed")  # fmt: skip
    return ArrayHeader(key, tuple(shape), dtype, nbytes)


def load_arrays(
    path: str | os.PathLike, expected: dict[str, tuple[int, ...]] | None = None
) -> tuple[dict[str, np.ndarray], dict[str, Any] | None]:
    """Read a file written by :func:`save_arrays` (or any plain ``np.savez`` archive): the
    checked reader behind every parameter, solver and checkpoint file.

    Before any array is read: the members' headers (:func:`read_headers`), each parameter's
    shape against ``expected`` (``{name: shape}`` of the network that will take them; a per-
    sample buffer may add leading rows), and their total against the memory left. Returns
    ``(arrays, meta)``; ``meta`` is None for an archive without NeuroCanvas metadata.

    Raises:
        ParameterFileError: the file is missing, corrupt, forged, holds pickled objects or bad
            metadata, does not fit ``expected`` or the memory; one line naming file and array.
    """
    path = os.fspath(path)
    headers = read_headers(path)
    meta: dict[str, Any] | None = None
    try:
        with zipfile.ZipFile(path) as archive:
            if _META_KEY in headers:
                meta = _read_meta(path, _read_member(archive, _member(archive, _META_KEY)))
            names = _names_of(path, headers, meta)
            _check_fit(path, headers, names, expected)
            arrays = {key: _read_member(archive, _member(archive, key)) for key in headers
                      if key != _META_KEY}  # fmt: skip
    except ParameterFileError:
        raise
    except (OSError, zipfile.BadZipFile, EOFError, ValueError, KeyError) as exc:
        raise ParameterFileError(f"{path}: not a readable .npz archive ({exc})") from exc
    return arrays, meta


def read_index(path: str | os.PathLike) -> dict[str, ArrayHeader]:
    """``{parameter name: its header}`` of a parameter file, with no array read: the members'
    headers (:func:`read_headers`) and the metadata that names them.

    Raises:
        ParameterFileError: one line naming the file and the member.
    """
    path = os.fspath(path)
    _check_extension(path, "read")
    headers = read_headers(path)
    meta = None
    try:
        with zipfile.ZipFile(path) as archive:
            if _META_KEY in headers:
                meta = _read_meta(path, _read_member(archive, _member(archive, _META_KEY)))
    except (OSError, zipfile.BadZipFile, EOFError, ValueError, KeyError) as exc:
        raise ParameterFileError(f"{path}: not a readable .npz archive ({exc})") from exc
    _entries(path, dict.fromkeys(k for k in headers if k != _META_KEY), meta)
    return {name: headers[key] for name, key in _names_of(path, headers, meta).items()}


def check_parameter_file(
    path: str | os.PathLike, expected: dict[str, tuple[int, ...]], require_all: bool = True
) -> None:
    """Check a parameter file against the network that will take it without reading its arrays:
    headers, metadata, every ``expected`` parameter present (``require_all``) with its shape,
    the total against the memory left (as :func:`load_arrays` before it reads).

    Raises:
        ParameterFileError: one line naming the file and the parameter.
    """
    path = os.fspath(path)
    index = read_index(path)
    missing = [n for n in expected if n not in index] if require_all else []
    if missing:
        more = f", nor {len(missing) - 1} more" if len(missing) > 1 else ""
        raise ParameterFileError(f"{path}: no parameter {missing[0]!r} (shape "
                                 f"{tuple(expected[missing[0]])}) that the network needs"
                                 f"{more}")  # fmt: skip
    _check_fit(path, {n: h for n, h in index.items()}, {n: n for n in index}, expected)


def _member(archive: zipfile.ZipFile, key: str) -> str:
    return key + ".npy" if key + ".npy" in archive.NameToInfo else key


def _read_member(archive: zipfile.ZipFile, name: str) -> np.ndarray:
    with archive.open(name) as stream:
        return np.lib.format.read_array(stream, allow_pickle=False)


def _read_meta(path: str, raw: np.ndarray) -> dict[str, Any]:
    try:
        if raw.dtype != np.uint8 or raw.ndim != 1:
            raise ValueError("metadata is not a byte string")
        meta = json.loads(raw.tobytes().decode("utf-8"))
        if not isinstance(meta, dict):
            raise ValueError("metadata is not a JSON object")
    except (ValueError, UnicodeDecodeError) as exc:
        raise ParameterFileError(f"{path}: corrupt metadata ({exc})") from exc
    return meta


def _names_of(
    path: str, headers: dict[str, ArrayHeader], meta: dict[str, Any] | None
) -> dict[str, str]:
    """``{parameter name: member key}`` from the metadata (plain archives: the keys)."""
    if meta is None:
        return {k: k for k in headers}
    entries = meta.get("parameters") if meta.get("format") == FORMAT_PARAMETERS else None
    if not isinstance(entries, list):
        return {k: k for k in headers if k != _META_KEY}  # a solver state: checked by its reader
    return {e["name"]: e["key"] for e in entries
            if isinstance(e, dict) and isinstance(e.get("name"), str)
            and isinstance(e.get("key"), str) and e["key"] in headers}  # fmt: skip


def _check_fit(
    path: str,
    headers: dict[str, ArrayHeader],
    names: dict[str, str],
    expected: dict[str, tuple[int, ...]] | None,
) -> None:
    for name, key in names.items():
        want = None if expected is None else expected.get(name)
        have = headers[key].shape
        if want is not None and have != tuple(want) and not _buffer_rows(have, tuple(want)):
            raise ParameterFileError(
                f"{path}: parameter {name!r} has shape {have} in the file but {tuple(want)} in "
                f"the network"
            )
    need = sum(h.nbytes for h in headers.values())
    have_memory = backend.host_memory()
    if have_memory is not None and need > have_memory:
        big = max(headers.values(), key=lambda h: h.nbytes)
        raise ParameterFileError(
            f"{path}: its arrays need {need / 2**30:.1f} GiB, more than the "
            f"{have_memory / 2**30:.1f} GiB of memory available (the largest, {big.key!r}, "
            f"shape {big.shape})"
        )


def _buffer_rows(have: tuple[int, ...], want: tuple[int, ...]) -> bool:
    """A per-sample buffer is stored with its rows in front: ``(rows, *shape)``."""
    return len(have) == len(want) + 1 and have[1:] == want


_FOREIGN = {".h5": "HDF5", ".protobuf": "protobuf", ".nnp": "NNP"}


def _check_extension(path: str, verb: str) -> None:
    ext = os.path.splitext(path)[1].lower()
    if ext in _FOREIGN:
        raise ParameterFileError(
            f"{path}: cannot {verb} nnabla {_FOREIGN[ext]} parameter files here; "
            f"use a .npz path (engine.formats converts NNC files)"
        )


def save_parameters(
    path: str | os.PathLike, params: dict[str, Variable] | None = None, extension: str = ".npz"
) -> None:
    """Save parameters (default: all under the current scope) to ``path`` atomically.

    The file is an ``.npz`` archive: one array per parameter plus JSON metadata with the names,
    ``need_grad`` and LR multipliers. ``extension`` is accepted for nnabla compatibility.
    """
    path = os.fspath(path)
    _check_extension(path, "write")
    if params is None:
        params = get_parameters(grad_only=False)
    arrays, entries = {}, []
    for i, (name, var) in enumerate(params.items()):
        key = f"p{i}"
        arrays[key] = var.data
        entries.append({
            "name": name, "key": key, "shape": list(var.shape), "dtype": str(var.data.dtype),
            "need_grad": bool(var.need_grad), "lr_mult": get_lr_multiplier(var),
        })  # fmt: skip
        if get_parameter_info(var).per_sample:
            entries[-1]["per_sample"] = True
    meta = {"format": FORMAT_PARAMETERS, "version": FORMAT_VERSION, "parameters": entries}
    save_arrays(path, arrays, meta)


def _entries(path: str, arrays: dict[str, np.ndarray], meta: dict[str, Any] | None) -> list[dict]:
    if meta is None:  # a plain np.savez(name=array) archive: the keys are the names
        return [{"name": k, "key": k} for k in arrays]
    if meta.get("format") != FORMAT_PARAMETERS:
        raise ParameterFileError(
            f"{path}: not a parameter file (format {meta.get('format')!r}, "
            f"expected {FORMAT_PARAMETERS!r})"
        )
    version = meta.get("version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise ParameterFileError(
            f"{path}: unsupported format version {version!r} (this NeuroCanvas reads up to "
            f"{FORMAT_VERSION})"
        )
    entries = meta.get("parameters")
    if not isinstance(entries, list):
        raise ParameterFileError(f"{path}: metadata has no parameter list")
    for e in entries:
        if (
            not isinstance(e, dict)
            or not isinstance(e.get("name"), str)
            or not isinstance(e.get("key"), str)
            or e["key"] not in arrays
        ):
            raise ParameterFileError(f"{path}: corrupt parameter entry {e!r}")
    return entries


def load_parameters(path: str | os.PathLike, proto: Any = None, needs_proto: bool = False) -> dict:
    """Load parameters from ``path`` into the current scope and return them as a dict.

    Existing parameters are overwritten in place (variables that share them see the new
    values); missing ones are created with the stored ``need_grad`` and LR multiplier.

    Raises:
        ParameterFileError: unreadable or malicious file, or a shape that differs from an
            existing parameter; the message names the file and the parameter.
    """
    path = os.fspath(path)
    _check_extension(path, "read")
    expected = {name: tuple(var.shape) for name, var in get_parameters(grad_only=False).items()
                if not get_parameter_info(var).per_sample}  # fmt: skip
    arrays, meta = load_arrays(path, expected)  # shapes checked before any data is read
    loaded: dict[str, Variable] = {}
    for e in _entries(path, arrays, meta):
        name, value = e["name"], arrays[e["key"]]
        if value.dtype.kind != "f":
            value = value.astype(np.float32)
        existing = get_parameter(name)
        if existing is not None:
            value = _rows(existing, value)
            if not _same_shape(existing, tuple(value.shape)):
                raise ParameterFileError(
                    f"{path}: parameter {name!r} has shape {tuple(value.shape)} in the file but "
                    f"{existing.shape} in the network"
                )
            if existing.shape != tuple(value.shape):  # a per-sample buffer of another batch
                existing.data = backend.asarray(value, dtype=existing.data.dtype).copy()
            else:
                existing.data[...] = backend.asarray(value, dtype=existing.data.dtype)
            loaded[name] = existing
            continue
        try:
            var = get_parameter_or_create(
                name, value.shape, np.array(value), need_grad=bool(e.get("need_grad", True)),
                lr_mult=float(e.get("lr_mult", 1.0)), per_sample=e.get("per_sample") is True,
            )  # fmt: skip
        except (ValueError, TypeError) as exc:
            raise ParameterFileError(f"{path}: parameter {name!r}: {exc}") from exc
        loaded[name] = var
    return loaded
