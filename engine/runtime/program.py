"""An executable network: ordered steps calling ``engine.nn.functions``, its parameters and feeds.

:func:`engine.runtime.compiler.compile_network` builds a :class:`Program` from a project; this
module runs it. A program is a plain list of steps, so running it is one loop: each step calls
its ``F`` function on the outputs of earlier steps, parameters, dataset variables (feeds) and
generated inputs. The engine is eager (define-by-run): a training iteration runs the program
with gradients recorded, monitors and evaluation run it under ``no_grad``.

References (``Ref``) name where a step input comes from:

``("step", name)``
    the output of the step called ``name`` (the layer's call path, ``SE1/Squeeze``)
``("param", name)``
    the parameter ``name`` (``Convolution_2/conv/W``); equal names are shared
``("feed", variable, shape)``
    the dataset variable ``variable`` (``x``, ``y``) reshaped to ``(batch, *shape)``
``("gen", index)``
    the generator ``program.generators[index]`` (a Normal/Uniform/Constant/Range input)
``("none",)``
    an absent optional input (a bias with ``WithBias=False``)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import engine.nn as nn
from engine.core import backend, gpu
from engine.core.autograd import Variable
from engine.core.messages import QT_TRANSLATE_NOOP
from engine.core.numbers import shape_in_parens
from engine.data.loaders import FileLoadError, load_file
from engine.nn import initializer as I
from engine.runtime import precision, working_memory

__all__ = [
    "Ref",
    "Step",
    "ParameterDecl",
    "GeneratorDecl",
    "Program",
    "Activations",
    "ProgramError",
    "FeedError",
    "NonFinite",
]

Ref = tuple[Any, ...]
Shape = tuple[int, ...]


# Layers whose second input is a class index along ``axis`` of the first (nnabla's label_index).
_CLASS_INDEX_TARGETS = ("CategoricalCrossEntropy", "SoftmaxCrossEntropy", "TopNError")


class ProgramError(ValueError):
    """A network that cannot run as compiled; the message names network, layer and problem."""


class FeedError(ProgramError):
    """A dataset variable missing from a batch or of a shape the network cannot take."""


@dataclass(frozen=True)
class Step:
    """One layer call: ``function(*inputs, **kwargs)``.

    ``batch_kwargs`` are shape arguments written without the batch axis (``-b`` in the
    catalogue: Reshape, Broadcast); the batch size is prepended when the step runs.
    ``stores`` names the WorkingMemory buffer the output is written into (a WorkingMemory
    with an input: :mod:`engine.runtime.working_memory`).
    ``item`` picks one output of a function that returns several (``F.split``: one time step
    of a recurrent input); steps that differ only in ``item`` share one call per forward pass.
    Otherwise the first output is the data (``with_index`` variants).
    ``repeat_ids`` are set in a folded program (``compile_network(..., folded=True)``), which
    keeps loops as nnabla's repeat form for the NNP writer.
    """

    name: str
    type: str
    function: Callable[..., Any]
    inputs: tuple[Ref, ...]
    kwargs: Mapping[str, Any]
    shape: Shape  # expected output shape, batch excluded
    batch_kwargs: tuple[str, ...] = ()
    is_loss: bool = False
    item: int | None = None
    stores: str = ""
    repeat_ids: tuple[str, ...] = ()  # enclosing loops, outer first (folded programs only)


@dataclass(frozen=True)
class ParameterDecl:
    """A parameter as the first layer that names it declares it (the first definition wins)."""

    name: str
    shape: Shape
    initializer: str
    multiplier: float
    lr_multiplier: float
    file: str = ""
    layer: str = ""  # the layer that declared it, for messages
    # A WorkingMemory: one row per sample (``shape`` is one sample's), not trained; nntxt
    # writes it as a Buffer variable.
    buffer: bool = False

    def initial_value(self, base: Path | None = None) -> Any:
        """The initial array: the ``File`` when given (a relative path is relative to ``base``,
        the project's folder, as NNC resolves it), else the named initializer."""
        if self.file:
            return _load_parameter_file(self, base)
        init = I.create_initializer(self.initializer, self.multiplier)
        return init(self.shape)


@dataclass(frozen=True)
class GeneratorDecl:
    """A data input filled by a generator (Input ``Generator``, side input ``<c>.Generator``)."""

    kind: str  # Normal, Uniform, Constant, Range
    multiplier: float
    shape: Shape
    # what exported code calls it (the Input's dataset variable, or <layer>_<connector>); not
    # part of what it generates, so not compared
    name: str = field(default="", compare=False)

    def generate(self, batch: int) -> Any:
        shape = (batch, *self.shape)
        m = float(self.multiplier)
        if self.kind == "Normal":
            return I.Normal(m)(shape)
        if self.kind == "Uniform":
            return I.Uniform(m)(shape)
        if self.kind == "Range":
            return I.Range(m)(shape)
        return I.Constant(m)(shape)


@dataclass(frozen=True)
class NonFinite:
    """Where a NaN or infinity first appeared in one forward pass."""

    step: str
    type: str
    parameters: tuple[str, ...]  # parameters of that step that hold NaN/inf themselves

    def describe(self) -> str:
        if self.parameters:
            return QT_TRANSLATE_NOOP(
                "Training",
                'layer "{layer}" ({type}) produced NaN or infinity; its parameter '
                "{parameters} holds NaN or infinity",
            ).format(layer=self.step, type=self.type, parameters=", ".join(self.parameters))
        return QT_TRANSLATE_NOOP(
            "Training", 'layer "{layer}" ({type}) produced NaN or infinity'
        ).format(layer=self.step, type=self.type)


class Activations(dict[str, Variable]):
    """Step name -> output Variable of one forward pass, in execution order."""


@dataclass(frozen=True)
class Program:
    """A compiled network (see the module docstring for the reference kinds)."""

    network: str
    steps: tuple[Step, ...]
    parameters: tuple[ParameterDecl, ...]
    generators: tuple[GeneratorDecl, ...]
    feeds: Mapping[str, Shape]  # dataset variable -> shape of its first use
    losses: tuple[str, ...]  # steps of loss-type layers (IsLossFunction), in order
    outputs: tuple[tuple[str, Ref], ...]  # (output variable name, where it comes from)
    test_mode: bool = False
    precision: str = "Float"  # "Half": float16 activations (engine.runtime.precision)

    # -- parameters --------------------------------------------------------------------------

    def create_parameters(
        self, base: Path | None = None, loaded: Collection[str] = ()
    ) -> dict[str, Variable]:
        """Get or create every parameter in the current (root) parameter scope, in order.

        ``base`` is the project's folder, against which relative ``File`` paths resolve.
        A new parameter named in ``loaded`` (its value about to be read from a parameter file)
        starts as zeros instead of its initial value: no random draw, no ``File`` read.

        A parameter that exists already (created by another network, or loaded) is shared; a
        new one takes its declaration's initial value. LR multiplier 0 freezes it, as NNC.
        A WorkingMemory buffer starts with one row; the batch gives it more.
        """
        _check_memory(self, [d for d in self.parameters if nn.get_parameter(d.name) is None])
        params = {}
        for decl in self.parameters:
            if decl.buffer:
                params[decl.name] = working_memory.create(decl, base)
                _check_shape(decl, params[decl.name])
                continue
            existing = nn.get_parameter(decl.name)
            if existing is not None:
                _check_shape(decl, existing)
                params[decl.name] = existing
                continue
            initial = None if decl.name in loaded else decl.initial_value(base)
            params[decl.name] = nn.get_parameter_or_create(
                decl.name, decl.shape, initial, need_grad=True,
                lr_mult=decl.lr_multiplier,
            )  # fmt: skip
        return params

    def trainable(self, params: Mapping[str, Variable]) -> dict[str, Variable]:
        """The parameters a solver updates: those with ``need_grad`` (LR multiplier > 0)."""
        return {name: var for name, var in params.items() if var.need_grad}

    # -- running -----------------------------------------------------------------------------

    def class_labels(self) -> dict[str, tuple[int, str]]:
        """Dataset variables read as class indices: variable -> (number of classes, layer).

        These are the labels of the layers whose target picks a class along ``axis``
        (CategoricalCrossEntropy, SoftmaxCrossEntropy, TopNError), fed straight from the
        dataset; the class count is the size of that axis of their input.
        """
        shapes = {step.name: step.shape for step in self.steps}
        found: dict[str, tuple[int, str]] = {}
        for step in self.steps:
            if step.type not in _CLASS_INDEX_TARGETS or len(step.inputs) < 2:
                continue
            x, t = step.inputs[0], step.inputs[1]
            shape = shapes.get(x[1]) if x[0] == "step" else (x[2] if x[0] == "feed" else None)
            if t[0] != "feed" or not shape:
                continue
            full = (1, *shape)  # with the batch axis, as the step's axis counts it
            axis = step.kwargs.get("axis")
            classes = full[-1] if axis is None else full[int(axis)]  # type: ignore[call-overload]
            previous = found.get(t[1])
            if previous is None or classes < previous[0]:
                found[t[1]] = (int(classes), step.name)
        return found

    def variables(self) -> tuple[str, ...]:
        """Dataset variables this program reads."""
        return tuple(self.feeds)

    def forward(
        self,
        batch: Mapping[str, Any],
        params: Mapping[str, Variable],
        drawn: dict[int, Any] | None = None,
        input_grad: bool = False,
    ) -> Activations:
        """Run every step on one batch ``{variable: array (B, ...)}``; returns all outputs.

        Call under ``nn.no_grad()`` for inference. Feeds are reshaped to the shape the network
        declares when the element counts agree (nnabla's ``let_data_to_variable``). Generators
        draw anew on every call unless ``drawn`` is given: then a generator draws only when
        ``drawn`` lacks its index and stores the draw there, so passing the same dict to the
        repeats of one batch reuses one draw (an executor's Number of Evaluations).
        ``input_grad``: the dataset variables are fed with ``need_grad`` (their gradients are
        what saliency methods read) and listed in the result as ``feed:NAME``.
        """
        size = _batch_size(batch, self)
        feeds: dict[Ref, Variable] = {}
        generated: dict[int, Variable] = {}
        drawn = {} if drawn is None else drawn
        acts = Activations()
        half = self.precision == "Half"
        halves: dict[str, Variable] = {}  # float16 copies of the float32 master parameters
        buffers = {d.name: d for d in self.parameters if d.buffer}

        def value(ref: Ref, float32: bool) -> Any:
            kind = ref[0]
            if kind == "step":
                out = acts[ref[1]]
            elif kind == "param" and ref[1] in buffers:  # this batch's rows of a WorkingMemory,
                # never a float16 copy: VATNoise's backward writes into them
                out = working_memory.rows(params[ref[1]], size, buffers[ref[1]])
            elif kind == "param":
                if not half or float32:  # float32 layers use (and update) the masters
                    return params[ref[1]]
                if ref[1] not in halves:
                    halves[ref[1]] = precision.cast(params[ref[1]], precision.HALF)
                return halves[ref[1]]
            elif kind == "feed":
                if ref not in feeds:
                    feed = _feed(batch, ref[1], ref[2], size, self.network)
                    if input_grad:
                        feed.need_grad = True
                        acts[f"feed:{ref[1]}"] = feed
                    feeds[ref] = precision.cast(feed, precision.HALF) if half else feed
                out = feeds[ref]
            elif kind == "gen":
                if ref[1] not in generated:
                    if ref[1] not in drawn:
                        drawn[ref[1]] = self.generators[ref[1]].generate(size)
                    gen = Variable(drawn[ref[1]])
                    generated[ref[1]] = precision.cast(gen, precision.HALF) if half else gen
                out = generated[ref[1]]
            else:
                return None
            return precision.cast(out, np.float32) if float32 else out

        shared: dict[tuple[Any, ...], Any] = {}  # multi-output calls made once (F.split)
        for step in self.steps:
            kwargs = dict(step.kwargs)
            for key in step.batch_kwargs:
                kwargs[key] = (size, *kwargs[key])
            float32 = half and precision.runs_in_float32(step)
            try:
                if step.item is None:
                    out = step.function(*(value(r, float32) for r in step.inputs), **kwargs)
                else:  # the time steps of one recurrent input share one split (one backward)
                    key = (step.function, step.inputs, float32, tuple(sorted(kwargs.items())))
                    if key not in shared:
                        shared[key] = step.function(
                            *(value(r, float32) for r in step.inputs), **kwargs
                        )
                    out = shared[key]
            except Exception as exc:  # out of GPU memory, CUDA errors: name the layer
                if not gpu.is_device_error(exc):
                    raise
                raise gpu.explain(exc, f'layer "{step.name}" ({step.type})') from None
            if isinstance(out, tuple):  # with_index / output_mask variants: the data comes first
                out = out[step.item or 0]
            if float32 and not step.is_loss:
                out = precision.cast(out, precision.HALF)
            if step.stores:
                working_memory.store(params[step.stores], out, buffers[step.stores])
            acts[step.name] = out
        for name, ref in self.outputs:
            acts.setdefault(f"output:{name}", value(ref, False))
        return acts

    def output(self, acts: Activations, name: str) -> Variable:
        """The output variable called ``name`` (``y'``) of a forward pass."""
        out: Variable = acts[f"output:{name}"]
        return out

    def loss_values(self, acts: Activations) -> list[Variable]:
        return [acts[name] for name in self.losses]

    def find_non_finite(
        self, acts: Activations, params: Mapping[str, Variable]
    ) -> NonFinite | None:
        """The first step whose output holds NaN or infinity (the one that produced it)."""
        for step in self.steps:
            out = acts.get(step.name)
            if out is None or out.data is None or _finite(out.data):
                continue
            bad = tuple(
                r[1] for r in step.inputs
                if r[0] == "param" and r[1] in params and not _finite(params[r[1]].data)
            )  # fmt: skip
            return NonFinite(step.name, step.type, bad)
        return None


def _finite(array: Any) -> bool:
    xp = backend.get_array_module(array)
    if array.dtype.kind not in "fc":
        return True
    return bool(xp.isfinite(array).all())


def _batch_size(batch: Mapping[str, Any], program: Program) -> int:
    for name in program.feeds:
        if name in batch:
            return int(batch[name].shape[0])
    if batch:
        return int(next(iter(batch.values())).shape[0])
    raise FeedError(f'network "{program.network}": the batch is empty')


def _feed(batch: Mapping[str, Any], name: str, shape: Shape, size: int, network: str) -> Variable:
    if name not in batch:
        raise FeedError(
            f'network "{network}" reads dataset variable "{name}", which the dataset does not '
            f"have (it has {', '.join(batch) or 'no variables'})"
        )
    array = backend.asarray(batch[name])
    if array.dtype != np.float32:
        array = array.astype(np.float32)
    want = (size, *shape)
    if tuple(array.shape) != want:
        if array.size != math.prod(want):
            got = tuple(array.shape[1:])
            raise FeedError(
                f'network "{network}": dataset variable "{name}" has shape '
                f"{shape_in_parens(got)} but the network expects {shape_in_parens(shape)}"
            )
        array = array.reshape(want)
    return Variable(array)


def _check_shape(decl: ParameterDecl, existing: Variable) -> None:
    shape = existing.shape[1:] if decl.buffer else existing.shape  # a buffer: rows, then Size
    if tuple(shape) != tuple(decl.shape):
        raise ProgramError(
            f'layer "{decl.layer}": parameter {decl.name} is shared with another layer but has '
            f"shape {shape_in_parens(shape)} there and {shape_in_parens(decl.shape)} here"
        )


def _check_memory(program: Program, new: list[ParameterDecl]) -> None:
    """Refuse parameters larger than the memory left, before allocating any of them."""
    need = sum(4 * math.prod(d.shape) for d in new)  # float32
    have = available_memory()
    if have is None or need <= have:
        return
    big = max(new, key=lambda d: math.prod(d.shape))
    raise ProgramError(QT_TRANSLATE_NOOP(
        "Training", 'network "{network}": its parameters need {need}, more than the {have} of '
        'memory available; the largest is {name} of layer "{layer}", shape {shape}'
    ).format(network=program.network, need=_gib(need), have=_gib(have), name=big.name,
             layer=big.layer, shape=shape_in_parens(big.shape)))  # fmt: skip


def available_memory() -> int | None:
    """Bytes the arrays of the current device may still take (None when unknown)."""
    return backend.available_memory()


def _gib(n: int) -> str:
    return f"{n / 2**30:.1f} GiB"


def _load_parameter_file(decl: ParameterDecl, base: Path | None) -> Any:
    """A parameter's ``File``: a ``.npy`` or headerless ``.csv`` holding its initial value."""

    path = Path(decl.file.replace("\\", "/"))
    if not path.is_absolute() and base is not None:
        path = base / path
    try:
        value = np.asarray(load_file(path), dtype=np.float32)
    except (FileLoadError, OSError, ValueError) as exc:
        raise ProgramError(f'layer "{decl.layer}", parameter {decl.name}: {exc}') from None
    if value.size != math.prod(decl.shape):
        raise ProgramError(
            f'layer "{decl.layer}", parameter {decl.name}: {path} holds {value.size} values, '
            f"the parameter needs {shape_in_parens(decl.shape)}"
        )
    return value.reshape(decl.shape)
