"""NNC's WorkingMemory buffers: one row per sample, shared by name, kept between iterations.

As nnabla loads NNC's nntxt, a WorkingMemory read without input is a ``Buffer`` variable of
shape ``(batch size, *Size)`` filled by its initializer and shared by every network that names
it (docs/nnc-behaviour.md §3.1); VATNoise's backward writes ``eps * dy`` into it sample by sample,
and a WorkingMemory with an input (an Identity into the buffer) stores the batch. The engine
keeps the same array, under the layer's name, in the parameter registry (so checkpoints and
``results.nnp`` carry it), its first axis marked per-sample
(:func:`engine.nn.get_parameter_or_create` ``per_sample``).

Row ``k`` belongs to the ``k``-th sample of the batch. A batch smaller than the buffer (the
last partial batch of an evaluation) reads and writes the first rows, as NNC's fixed-size
buffer does for the samples of a batch its iterator pads; a larger one (an evaluation with a
larger batch size) first gets rows from the initializer, as nnabla would create a buffer of
that batch size.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

import engine.nn as nn
from engine.core import backend
from engine.core.autograd import Variable
from engine.nn import initializer as I

if TYPE_CHECKING:
    from engine.runtime.program import ParameterDecl

__all__ = ["create", "rows", "store"]


def create(decl: ParameterDecl, base: Path | None) -> Variable:
    """The buffer ``decl.name`` of the current scope (one row), created when missing."""
    existing = nn.get_parameter(decl.name)
    if existing is not None:
        return existing
    source = functools.partial(_initial_rows, decl, base)
    return nn.get_parameter_or_create(decl.name, (1, *decl.shape), source, need_grad=False,
                                      lr_mult=0.0, per_sample=True)  # fmt: skip


def _initial_rows(decl: ParameterDecl, base: Path | None, shape: tuple[int, ...]) -> Any:
    """``shape[0]`` rows from the initializer; a ``File`` holds one sample's value, repeated."""
    if not decl.file:
        return I.create_initializer(decl.initializer, decl.multiplier)(shape)
    value = backend.to_numpy(decl.initial_value(base)).astype(np.float32)
    return np.broadcast_to(value, shape).copy()


def rows(buffer: Variable, size: int, decl: ParameterDecl) -> Variable:
    """The first ``size`` rows (a view: VATNoise's backward writes into the buffer)."""
    _grow(buffer, size, decl)
    return Variable(buffer.data[:size])


def store(buffer: Variable, out: Variable, decl: ParameterDecl) -> None:
    """WorkingMemory with an input: the batch's values into the first rows."""
    size = int(out.shape[0])
    _grow(buffer, size, decl)
    buffer.data[:size] = out.data.reshape(size, *decl.shape)


def _grow(buffer: Variable, size: int, decl: ParameterDecl) -> None:
    have = int(buffer.shape[0])
    if have >= size:
        return
    source = nn.get_parameter_info(buffer).initializer
    if not callable(source):  # loaded from a file: new rows from the declared initializer
        source = functools.partial(_initial_rows, decl, None)
    extra = backend.asarray(source((size - have, *decl.shape)), dtype=buffer.data.dtype)
    xp = backend.get_array_module(buffer.data)
    buffer.data = xp.concatenate([buffer.data, extra])
