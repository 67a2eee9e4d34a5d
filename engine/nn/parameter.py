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

import math
import os
import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.core import backend
from engine.core.autograd import Variable
from engine.nn.parameter_file import (
    FORMAT_PARAMETERS,
    FORMAT_VERSION,
    ParameterFileError,
    check_extension,
    load_arrays,
    metadata_entries,
    save_arrays,
)

__all__ = [
    "ParameterInfo", "parameter_scope", "get_current_parameter_scope",
    "get_parameter", "set_parameter", "get_parameter_or_create", "get_parameters",
    "clear_parameters", "get_lr_multiplier", "set_lr_multiplier", "get_lr_multipliers",
    "get_parameter_info", "save_parameters", "load_parameters",
]  # fmt: skip


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
        shape = tuple(map(int, shape if hasattr(shape, "__iter__") else (shape,)))
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


def save_parameters(
    path: str | os.PathLike, params: dict[str, Variable] | None = None, extension: str = ".npz"
) -> None:
    """Save parameters (default: all under the current scope) to ``path`` atomically.

    The file is an ``.npz`` archive: one array per parameter plus JSON metadata with the names,
    ``need_grad`` and LR multipliers. ``extension`` is accepted for nnabla compatibility.
    """
    path = os.fspath(path)
    check_extension(path, "write")
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


def load_parameters(path: str | os.PathLike, proto: Any = None, needs_proto: bool = False) -> dict:
    """Load parameters from ``path`` into the current scope and return them as a dict.

    Existing parameters are overwritten in place (variables that share them see the new
    values); missing ones are created with the stored ``need_grad`` and LR multiplier.

    Raises:
        ParameterFileError: unreadable or malicious file, or a shape that differs from an
            existing parameter; the message names the file and the parameter.
    """
    path = os.fspath(path)
    check_extension(path, "read")
    expected = {name: tuple(var.shape) for name, var in get_parameters(grad_only=False).items()
                if not get_parameter_info(var).per_sample}  # fmt: skip
    arrays, meta = load_arrays(path, expected)  # shapes checked before any data is read
    return assign_parameters(path, arrays, meta)


def assign_parameters(
    path: str, arrays: dict[str, np.ndarray], meta: dict[str, Any] | None
) -> dict[str, Variable]:
    """The second half of :func:`load_parameters`: the arrays :func:`load_arrays` read from
    ``path`` (named in error messages) put into the current scope, existing parameters
    overwritten in place."""
    loaded: dict[str, Variable] = {}
    for e in metadata_entries(path, arrays, meta):
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
