"""The test-mode program: a compiled network prepared once for inference without gradients.

:meth:`engine.runtime.program.Program.forward` is the reference (the generic path): every step
is looked up, its inputs resolved and wrapped as Variables on each call, and training,
half precision, WorkingMemory buffers and generators all pass through it. Evaluation,
``forward``, the structure search's attempts and the quantization sweeps only run a network
forward with fixed parameters, so :func:`build` prepares a plan for them once:

* a BatchNormalization in test mode (``batch_stat`` False: running mean and variance) that is
  the only reader of a Convolution, DepthwiseConvolution or Affine is folded into that layer's
  weight and bias, ``W' = W * s`` and ``b' = (b - mean) * s + beta`` with
  ``s = gamma / sqrt(var + eps)`` per output channel (computed in float64, stored as float32);
* a ReLU or ReLU6 that is the only reader of such a layer (or of its folded BatchNormalization,
  or of an Add2, a BatchNormalization or a MaxPooling) is applied in place on that layer's fresh
  output; a convolution's bias and ReLU are one compiled pass
  (:mod:`engine.core.ops._inference_cpu`);
* a 1x1 convolution on a batch-innermost input is one GEMM into its own output buffer, global
  average pooling one sum over the buffer's middle axis, max pooling keeps only the maxima (no
  winning cell noted for a backward), and an Add2 whose first operand nothing else reads adds
  into that operand's buffer;
* every step is a pre-bound call on arrays: parameters resolved once, inputs taken by slot
  number, no Variable per input and no autograd record;
* with two or more threads (BLAS's count), a batch of whole SIMD vectors is cut into one part
  per thread and the plan's row-local start (convolutions on the direct and vector kernels,
  pooling, element-wise layers: each sample's rows computed alike whatever the batch,
  :func:`_row_local`) runs on the parts at once, each with BLAS and the kernels on one
  thread: one hand-off per pass instead of one per loop. The rest (an Affine: OpenBLAS picks
  a product's kernel by its size) runs on the joined batch, still on one thread, so the
  outputs are the bytes of the whole batch on one thread. Whether a pass cuts the batch, runs
  it whole with its large loops shared, or runs it on one thread alone is timed on the first
  passes and the fastest kept (:mod:`engine.runtime.inference_threads`).

The folded weights are copies held by the plan: the job's parameters are never written. A plan
reads the parameters' arrays when it is built, so it lives as long as one run of an executor
with unchanged parameters (:meth:`engine.runtime.evaluator.ExecutorRun.inference`: one
evaluation, one ``forward``); an executor that needs a backward keeps the generic path.

Programs the plan does not cover (half precision, WorkingMemory, generators, recurrent splits,
parameters on the GPU) get no plan (``build`` returns None) and run the generic path.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

import engine.nn as nn
from engine.core import products
from engine.core.ops import _inference_cpu, _threads
from engine.runtime import inference_threads
from engine.runtime.inference_ops import (
    _act,
    _AddInto,
    _Affine,
    _affine,
    _bias_act,
    _Dense,
    _dense,
    _Depthwise,
    _depthwise,
    _GlobalAveragePooling,
    _MaxPooling,
    _Pointwise,
    _pointwise,
)
from engine.runtime.program import Program, Ref, Step, _batch_size, _feed

__all__ = ["InferencePlan", "build"]

_FOLD_INTO = ("Convolution", "DepthwiseConvolution", "Affine")
_ACTIVATIONS = ("ReLU", "ReLU6")
# Layers whose output is a fresh array of their own (an activation after them may overwrite it)
_FRESH = (*_FOLD_INTO, "Add2", "BatchNormalization", "MaxPooling")
# Layers computed sample by sample, the same instructions for a sample whatever the batch
# (element-wise, or along other axes than the batch's): see _row_local
_ROW_LOCAL = ("ReLU", "ReLU6", "Tanh", "Sigmoid", "Add2", "Mul2", "Identity", "MaxPooling",
              "GlobalAveragePooling", "Concatenate", "Reshape", "Softmax")  # fmt: skip
# The fewest samples a part of a split batch holds (see InferencePlan._parts)
MIN_PART = 16
_clock = time.perf_counter


@dataclass
class _Op:
    """One call: ``function(*slots[inputs], **kwargs)`` into ``slots[out]``, then ``act``."""

    name: str
    function: Callable[..., Any]
    inputs: tuple[int, ...]
    kwargs: dict[str, Any]
    out: int
    act: str = ""  # "", "ReLU", "ReLU6": applied in place on the fresh output
    batch_kwargs: tuple[str, ...] = ()
    folded: tuple[str, ...] = ()  # the steps folded into this one (BatchNormalization, ReLU)
    # A convolution's bias, added with ``act`` in one compiled pass over its channels-major
    # output (engine.core.ops._inference_cpu) instead of by the layer (then None in inputs)
    bias: Any = None
    # A residual Add2 folded into this convolution: the slot of its other operand, added with
    # the bias in the same pass (then ``act``, the activation after the Add2)
    residual: int | None = None
    # Whether each sample's output rows are computed by the same instructions whatever the
    # batch (a batch of whole SIMD vectors): the op may run on parts of the batch (_row_local)
    rows: bool = False


class InferencePlan:
    """A program's steps as pre-bound calls, with BatchNormalization folded (module docstring)."""

    def __init__(self, program: Program, ops: list[_Op], slots: list[Any],
                 feeds: dict[Ref, int], outputs: list[tuple[str, int]]) -> None:  # fmt: skip
        self.program = program
        self.ops = ops
        self._slots = slots  # parameters (and folded copies) filled; the rest per call
        self._feeds = feeds
        self._outputs = outputs
        # The activations each op is the last reader of, dropped once it has run (the generic
        # pass keeps every step's output to the end; here memory is given back as it goes).
        keep = {i for _, i in outputs} | {i for i, v in enumerate(slots) if v is not None}
        last: dict[int, int] = {}
        for k, op in enumerate(ops):
            for i in (*op.inputs, *(() if op.residual is None else (op.residual,))):
                last[i] = k
        self._drop = [[] for _ in ops]  # type: list[list[int]]
        for i, k in last.items():
            if i not in keep:
                self._drop[k].append(i)
        # The row-local ops the plan starts with (run on parts of the batch at once), and the
        # activations they leave for the others or as outputs (joined after the parts)
        self._rows = next((k for k, op in enumerate(ops) if not op.rows), len(ops))
        # how a pass uses the threads, per (batch size, threads): timed, shared by the plans
        # of the same network (engine.runtime.inference_threads)
        self._choice = inference_threads.remembered(inference_threads.signature(program, ops))
        made = {op.out for op in ops[: self._rows]}
        later = {i for _, i in outputs}
        for op in ops[self._rows :]:
            later.update((*op.inputs, *(() if op.residual is None else (op.residual,))))
        self._joined = sorted(made & later)

    @property
    def folded(self) -> dict[str, tuple[str, ...]]:
        """Step -> the steps folded into it (for tests and the benchmark)."""
        return {op.name: op.folded for op in self.ops if op.folded}

    def run(self, batch: Mapping[str, Any]) -> dict[str, np.ndarray]:
        """The program's outputs ``{output name: array}`` for one batch ``{variable: array}``."""
        program = self.program
        size = _batch_size(batch, program)
        slots = list(self._slots)
        for ref, index in self._feeds.items():
            slots[index] = _feed(batch, ref[1], ref[2], size, program.network).data
        with nn.no_grad():
            threads, parts = self._parts(size)
            modes = inference_threads.modes(threads, parts)
            key = (size, threads)
            mode = self._choice.next(key, modes) if modes else "whole"
            started = _clock()
            if mode == "split":
                self._run_parts(slots, parts, threads)
            elif mode == "one":
                self._run_alone(slots, size, threads)
            else:
                self._steps(slots, 0, len(self.ops), size)
            if modes:
                self._choice.timed(key, mode, _clock() - started, modes)
        return {name: slots[index] for name, index in self._outputs}

    def _steps(self, slots: list[Any], start: int, stop: int, size: int) -> None:
        """Ops ``[start, stop)`` on ``slots`` for a batch of ``size`` samples."""
        drop = self._drop
        for k in range(start, stop):
            op = self.ops[k]
            kwargs = op.kwargs
            if op.batch_kwargs:
                kwargs = dict(kwargs)
                for key in op.batch_kwargs:
                    kwargs[key] = (size, *kwargs[key])
            out = op.function(*[slots[i] for i in op.inputs], **kwargs)
            if isinstance(out, tuple):  # with_index variants: the data comes first
                out = out[0]
            out = out.data
            if op.bias is not None:
                residual = None if op.residual is None else slots[op.residual]
                _bias_act(out, op.bias, op.act, residual)
            elif op.act:
                _act(out, op.act)
            slots[op.out] = out
            for i in drop[k]:
                slots[i] = None

    def _parts(self, size: int) -> tuple[int, list[tuple[int, int]]]:
        """(the threads BLAS has, the batch's parts ``[(lo, hi)]`` for them, or [] to run the
        batch whole): one part per thread, each a whole number of SIMD vectors of samples, when
        the plan starts with row-local ops (``_rows``) and the kernels are compiled."""
        threads = _threads.count()
        if threads < 2 or not self._rows or size < 2 * MIN_PART:
            return threads, []
        lanes = _inference_cpu.lanes()
        if lanes is None or size % lanes:
            return threads, []
        count = min(threads, size // MIN_PART)
        if count < 2:
            return threads, []
        vectors = size // lanes
        bounds = [vectors * k // count * lanes for k in range(count + 1)]
        return threads, list(zip(bounds[:-1], bounds[1:], strict=True))

    def _run_alone(self, slots: list[Any], size: int, threads: int) -> None:
        """The whole batch with BLAS and the kernels on this thread alone ("one"), BLAS set
        back to ``threads`` after: no hand-off at all, the bytes of one thread."""
        products.blocking()  # found before the count is lowered (finding it sets the count)
        _inference_cpu.run_alone(lambda: self._steps(slots, 0, len(self.ops), size), threads)

    def _run_parts(self, slots: list[Any], parts: list[tuple[int, int]], threads: int) -> None:
        """The row-local ops at the plan's start on each part of the batch at once, one part
        per thread (one hand-off per pass, not one per loop), BLAS and the kernels on one
        thread inside each; then the parts' live activations joined along the batch axis in
        their memory order and the remaining ops on the whole batch, still on one thread: the
        same bytes as the whole batch on one thread (each op's rows do not depend on the
        batch, see _row_local; tests compare)."""
        rows = self._rows
        products.blocking()  # found before the parts run (finding it sets the thread count)
        pieces = []
        for lo, hi in parts:
            piece = list(slots)
            for index in self._feeds.values():
                piece[index] = slots[index][lo:hi]
            pieces.append((piece, hi - lo))
        todo = iter(pieces)

        def work() -> None:
            for piece, size in todo:
                self._steps(piece, 0, rows, size)

        def rest() -> None:
            for index in self._joined:
                slots[index] = _join([piece[index] for piece, _ in pieces])
            self._steps(slots, rows, len(self.ops), parts[-1][1])  # the whole batch

        _inference_cpu.run_parts(work, len(pieces), rest, threads)


def build(program: Program, params: Mapping[str, Any]) -> InferencePlan | None:
    """The plan of ``program`` with ``params`` ({name: Variable}), or None where it does not
    apply (module docstring)."""
    if program.precision != "Float" or program.generators:
        return None
    if any(d.buffer for d in program.parameters):
        return None
    if any(s.item is not None or s.stores for s in program.steps):
        return None
    arrays: dict[str, np.ndarray] = {}
    for name, var in params.items():
        if type(var.data) is not np.ndarray:  # the GPU, or nothing loaded
            return None
        arrays[name] = var.data
    readers = _readers(program)
    slots: list[Any] = []
    index: dict[Ref, int] = {}

    def slot(ref: Ref) -> int:
        if ref not in index:
            index[ref] = len(slots)
            if ref[0] == "param":
                slots.append(arrays[ref[1]])
            else:
                slots.append(None)
        return index[ref]

    steps = {s.name: s for s in program.steps}
    skip: set[str] = set()
    fresh: set[int] = set()  # slots holding a fresh array an op made (not a view of an input)
    ops: list[_Op] = []
    for step in program.steps:
        if step.name in skip:
            continue
        if any(r[0] not in ("step", "param", "feed", "none") for r in step.inputs):
            return None
        if any(r[0] == "param" and r[1] not in arrays for r in step.inputs):
            return None
        inputs = list(step.inputs)
        last, folded = step, []
        bn = _only_reader(step, readers, steps)
        if step.type in _FOLD_INTO and bn is not None and bn.type == "BatchNormalization":
            fold = _fold(step, bn, arrays)
            if fold is not None:
                w, b = fold
                inputs = [inputs[0], ("folded", f"{step.name}/W"), ("folded", f"{step.name}/b")]
                slots.append(w)
                index[inputs[1]] = len(slots) - 1
                slots.append(b)
                index[inputs[2]] = len(slots) - 1
                last = bn
                folded.append(bn.name)
        act = ""
        if step.type in _FRESH:
            follower = _only_reader(last, readers, steps)
            if follower is not None and follower.type in _ACTIVATIONS:
                act = follower.type
                folded.append(follower.name)
                last = follower
        residual = None
        add = None if act else _residual_add(step, inputs, last, readers, steps)
        if add is not None and slots[slot(inputs[2])].size == step.shape[0]:
            # conv -> Add2 (its first operand) -> ReLU: bias, sum and ReLU in one pass
            residual, last = add.inputs[1], add
            folded.append(add.name)
            follower = _only_reader(add, readers, steps)
            if follower is not None and follower.type in _ACTIVATIONS:
                act = follower.type
                folded.append(follower.name)
                last = follower
        skip.update(folded)
        out = slot(("step", last.name))
        bias = None
        if (
            (act or residual is not None)
            and _separate_bias(step, inputs)
            and slots[slot(inputs[2])].size == step.shape[0]
        ):
            bias = slots[slot(inputs[2])].reshape(-1)
            inputs = inputs[:2]
        refs = tuple(slot(r) if r[0] != "none" else _none(slots, index) for r in inputs)
        function, op_act = step.function, act
        if step.type == "Add2" and _overwritable(step, refs, readers, steps, fresh):
            # the first operand's buffer, read by nothing else, takes the sum (and activation)
            function, op_act = _AddInto(act), ""
        elif _depthwise(step, inputs):
            function = _Depthwise(step.function, slots[refs[1]], bias, act)
            bias, op_act = None, ""  # both applied by the kernel to each output vector
        elif step.type == "MaxPooling":
            function = _MaxPooling(step.function)
        elif step.type == "GlobalAveragePooling":
            function = _GlobalAveragePooling(step.function)
        elif _pointwise(step, inputs) and slots[refs[1]].shape[2:] == (1, 1):  # one GEMM
            function = _Pointwise(step.function, slots[refs[1]], bias, act)
            bias, op_act = None, ""  # both applied by the GEMM's own pass
        w = slots[refs[1]] if len(refs) > 1 else None
        if _affine(step, inputs, w):
            function, op_act = _Affine(step.function, w, act), ""
        elif _dense(step, inputs, w):
            function = _Dense(step.function)
        rows = _row_local(step, inputs, w)
        ops.append(_Op(step.name, function, refs, dict(step.kwargs), out, op_act,
                       step.batch_kwargs, tuple(folded), bias,
                       None if residual is None else slot(residual), rows))  # fmt: skip
        if step.type in _FRESH:
            fresh.add(out)
        for name in folded:  # the folded steps' outputs are this op's
            index[("step", name)] = out
    feeds = {ref: i for ref, i in index.items() if ref[0] == "feed"}
    outputs = []
    for name, ref in program.outputs:
        if ref not in index or ref[0] != "step":
            return None
        outputs.append((name, index[ref]))
    return InferencePlan(program, ops, slots, feeds, outputs)


def _overwritable(step: Step, refs: tuple[int, ...], readers: dict[str, int],
                  steps: dict[str, Step], fresh: set[int]) -> bool:  # fmt: skip
    """Whether Add2 ``step`` may write into its first operand: a fresh array of an earlier op
    that nothing else reads, of the sum's own shape."""
    first, second = step.inputs[0], step.inputs[1]
    if first[0] != "step" or first == second or refs[0] not in fresh:
        return False
    if readers.get(first[1], 0) != 1:
        return False
    return tuple(steps[first[1]].shape) == tuple(step.shape)


def _residual_add(step: Step, inputs: list[Ref], last: Step, readers: dict[str, int],
                  steps: dict[str, Step]) -> Step | None:  # fmt: skip
    """The Add2 that a convolution's bias pass can take in (``last``: the convolution or its
    folded BatchNormalization, read by nothing but that Add2's first operand, of the sum's
    shape; a convolution the generic layer computes, with a bias the plan can hold), or None."""
    if step.type != "Convolution" or not _separate_bias(step, inputs) or _pointwise(step, inputs):
        return None
    add = _only_reader(last, readers, steps)
    if add is None or add.type != "Add2" or len(add.inputs) != 2:
        return None
    other = add.inputs[1]
    if other == add.inputs[0] or other[0] not in ("step", "feed", "param"):
        return None
    return add if tuple(add.shape) == tuple(last.shape) else None


def _separate_bias(step: Step, inputs: list[Ref]) -> bool:
    """Whether the plan adds ``step``'s bias itself, with the activation after it (a
    convolution with channels first and a bias that is a parameter or a folded one)."""
    return (
        step.type in ("Convolution", "DepthwiseConvolution")
        and len(inputs) == 3
        and inputs[2][0] in ("param", "folded")
        and not step.kwargs.get("channel_last", False)
        and int(step.kwargs.get("base_axis", 1)) == 1
    )


def _row_local(step: Step, inputs: list[Ref], w: Any) -> bool:
    """Whether ``step``'s output rows are computed sample by sample by the same instructions
    whatever the batch, for batches of whole SIMD vectors (what InferencePlan._parts makes),
    so that it may run on parts of a batch and give the whole batch's bytes: the direct and
    vector convolution kernels (2-D float32 convolutions, one group with a window or a 1x1
    layer the plan's GEMM loop takes, or one map per group), pooling, element-wise layers,
    and layers along other axes than the batch's. A product with the batch as a dimension
    (Affine, the im2col + GEMM convolutions) is not: OpenBLAS picks its kernel, and so the
    order of a sum, by the product's size (a small-matrix path under 100^3 multiply-adds)."""
    kw = step.kwargs
    if step.type == "Affine":
        return _affine(step, inputs, w)
    if step.type in ("Convolution", "DepthwiseConvolution"):
        if len(step.shape) != 3 or int(kw.get("base_axis", 1)) != 1 or kw.get("channel_last"):
            return False
        if type(w) is not np.ndarray or w.dtype != np.float32:
            return False
        if step.type == "DepthwiseConvolution":
            return int(kw.get("multiplier", 1)) == 1 and w.ndim in (3, 4)
        group = int(kw.get("group", 1))
        if w.ndim != 4:
            return False
        if group == 1:
            return w.shape[2] * w.shape[3] > 1 or _pointwise(step, inputs)
        return group == w.shape[0] and w.shape[1] == 1  # one map per group: depthwise
    if step.type not in _ROW_LOCAL:
        return False
    if step.type == "Reshape" and "shape" not in step.batch_kwargs:
        return False  # a shape of its own that may not keep the batch axis
    axis = kw.get("axis", 1)
    return not isinstance(axis, int) or axis % (len(step.shape) + 1) != 0


def _join(parts: list[np.ndarray]) -> np.ndarray:
    """The arrays of a batch's parts as one along the batch axis (0), in the parts' memory
    order (a batch-innermost activation stays batch-innermost: the ops after read it as they
    read the whole batch's)."""
    first = parts[0]
    order = sorted(range(first.ndim), key=lambda i: (-first.strides[i], i))
    shape = (sum(p.shape[0] for p in parts), *first.shape[1:])
    out = np.empty([shape[i] for i in order], first.dtype).transpose(np.argsort(order))
    lo = 0
    for p in parts:
        out[lo : lo + p.shape[0]] = p
        lo += p.shape[0]
    return out


def _none(slots: list[Any], index: dict[Ref, int]) -> int:
    if ("none",) not in index:
        index[("none",)] = len(slots)
        slots.append(None)
    return index[("none",)]


def _readers(program: Program) -> dict[str, int]:
    """Step name -> how many step inputs and program outputs read it."""
    count: dict[str, int] = {}
    for step in program.steps:
        for ref in step.inputs:
            if ref[0] == "step":
                count[ref[1]] = count.get(ref[1], 0) + 1
    for _, ref in program.outputs:
        if ref[0] == "step":
            count[ref[1]] = count.get(ref[1], 0) + 1
    return count


def _only_reader(step: Step, readers: dict[str, int], steps: dict[str, Step]) -> Step | None:
    """The one step that reads ``step``'s output, as its first input and nothing else of it;
    None when it has other readers (another step, a program output)."""
    if readers.get(step.name, 0) != 1:
        return None
    ref = ("step", step.name)
    for other in steps.values():
        if ref in other.inputs:
            return other if other.inputs[0] == ref and other.inputs.count(ref) == 1 else None
    return None


def _fold(step: Step, bn: Step, arrays: Mapping[str, np.ndarray]):
    """(W', b') of ``step`` with the test-mode BatchNormalization ``bn`` folded in, or None."""
    kw = bn.kwargs
    if kw.get("batch_stat", True) or kw.get("output_stat", False) or len(bn.inputs) != 5:
        return None
    if any(r[0] != "param" for r in bn.inputs[1:]):
        return None
    if step.inputs[1][0] != "param" or (
        len(step.inputs) > 2 and step.inputs[2][0] not in ("param", "none")
    ):
        return None
    ndim = len(step.shape) + 1  # with the batch axis
    axes = kw.get("axes", (1,))
    axes = tuple(int(a) % ndim for a in (axes if isinstance(axes, (tuple, list)) else (axes,)))
    if step.type == "Affine":
        if int(step.kwargs.get("base_axis", 1)) != 1 or len(step.shape) != 1:
            return None
        channel = 1
    else:
        if int(step.kwargs.get("base_axis", 1)) != 1:
            return None
        channel = ndim - 1 if step.kwargs.get("channel_last", False) else 1
    if axes != (channel,):
        return None
    beta, gamma, mean, var = (arrays[r[1]].astype(np.float64).reshape(-1) for r in bn.inputs[1:])
    maps = step.shape[channel - 1]
    if any(p.size != maps for p in (beta, gamma, mean, var)):
        return None
    w = arrays[step.inputs[1][1]].astype(np.float64)
    has_b = len(step.inputs) > 2 and step.inputs[2][0] == "param"
    b = arrays[step.inputs[2][1]].astype(np.float64).reshape(-1) if has_b else np.zeros(maps)
    if b.size != maps:
        return None
    s = gamma / np.sqrt(var + float(kw.get("eps", 1e-5)))
    if step.type == "Affine":  # W (inputs, outputs)
        if w.shape[-1] != maps:
            return None
        w = w * s
    else:  # W (outmaps, ...)
        if w.shape[0] != maps:
            return None
        w = w * s.reshape((maps,) + (1,) * (w.ndim - 1))
    b = (b - mean) * s + beta
    b_shape = arrays[step.inputs[2][1]].shape if has_b else (maps,)
    return w.astype(np.float32), b.astype(np.float32).reshape(
        b_shape if math.prod(b_shape) == maps else (maps,)
    )
