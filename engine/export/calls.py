"""One compiled step as the call a person writes: ``PF.convolution(h, 16, (5, 5), name='Conv')``.

A step whose parameters are all ``<scope>/<fn scope>/<p>`` (the names NNC gives a layer's own
parameters) becomes a ``PF.*`` call with ``name=<scope>``; its output-size arguments (``outmaps``,
``kernel``, ``n_outmaps``) are read from the parameter shapes, and only initializers and learning
rate multipliers that differ from the target's defaults are written. Other steps are ``F.*``
calls; parameters they read from elsewhere (shared or wired) are fetched with
``nn.parameter.get_parameter_or_create``. Arguments equal to the function's default are left out
(also ``pad=(0, 0)`` / ``stride=(1, 1)`` for a ``None`` default that means the same).

Values that differ between train and test mode are written ``(a if test else b)``, and a
``batch_stat`` that is on only in training ``not test``. A unit body passes ``symbols``: an
argument value that comes straight from a unit argument is written as that argument's name.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import engine.nn.functions as F
import engine.nn.parametric as PF
from engine.export.initializers import initializer_text, pf_default
from engine.export.literals import ExportError, literal
from engine.layers import find_spec
from engine.runtime.program import ParameterDecl, Ref, Step

__all__ = ["CallWriter", "Symbols"]

# Keyword arguments that make a function return a tuple whose data comes first.
_TUPLE_KWARGS = frozenset({"with_index", "output_mask", "with_mask", "return_mask"})
# F argument name of an absent optional input -> the PF argument that says so.
_ABSENT = {"bias": ("with_bias", False), "beta": ("no_bias", True), "gamma": ("no_scale", True)}
_AFFINES = ("affine", "binary_connect_affine", "binary_weight_affine")
_CONVOLUTIONS = ("convolution", "binary_connect_convolution", "binary_weight_convolution")
# PF output-size arguments and the catalogue property each comes from.
_SIZE_PROPERTY = {"n_outmaps": "OutShape", "outmaps": "OutMaps", "kernel": "KernelShape"}

# (step name, argument or property name, value) -> the source text of a unit argument, or None.
Symbols = Callable[[str, str, object], str | None]


def _signature(function: Callable) -> inspect.Signature:
    return inspect.signature(function)


def _none_means(key: str, kwargs: Mapping[str, object]) -> object:
    """What a ``None`` default of ``key`` stands for (nnabla: no padding, unit strides)."""
    value = kwargs.get(key)
    n = len(value) if isinstance(value, tuple) else 0
    if key == "pad":
        return (0,) * n
    if key == "stride" and "kernel" in kwargs:  # pooling: stride defaults to the kernel
        return kwargs["kernel"]
    if key in ("stride", "dilation"):
        return (1,) * n
    return object()


def _is_default(sig: inspect.Signature, key: str, value: object, kwargs: Mapping) -> bool:
    param = sig.parameters.get(key)
    if param is None or param.default is inspect.Parameter.empty:
        return False
    default = param.default
    if default is None:
        return value is None or value == _none_means(key, kwargs)
    if isinstance(default, (list, tuple)) and isinstance(value, (list, tuple)):
        return tuple(default) == tuple(value)
    return type(default) is type(value) and default == value


def _sizes(pf: str, shapes: dict[str, tuple[int, ...]], kw: Mapping) -> dict[str, object] | None:
    """The output-size arguments of ``PF.<pf>`` read from its parameter shapes."""
    w = shapes.get("W")
    if pf in _AFFINES and w:
        return {"n_outmaps": w[1] if len(w) == 2 else tuple(w[1:])}
    if pf in _CONVOLUTIONS and w:
        kernel = w[1:-1] if kw.get("channel_last") else w[2:]
        return {"outmaps": w[0], "kernel": tuple(kernel)}
    if pf in ("depthwise_convolution", "depthwise_deconvolution") and w:
        return {"kernel": tuple(w[1:])}
    if pf == "deconvolution" and w and not kw.get("channel_last"):
        return {"outmaps": w[1] * int(kw.get("group", 1)), "kernel": tuple(w[2:])}
    if pf == "embed" and w:
        return {"n_inputs": w[0], "n_features": w[1] if len(w) == 2 else tuple(w[1:])}
    if pf == "prelu" and "slope" in shapes:
        return {"shared": shapes["slope"] == ()}
    if pf in ("batch_normalization", "layer_normalization", "instance_normalization",
              "group_normalization", "mean_subtraction"):  # fmt: skip
        return {}
    return None


@dataclass
class CallWriter:
    """Writes steps of one network (or unit body) for one target."""

    network: str
    parameters: Mapping[str, ParameterDecl]
    target: str = "neurocanvas"
    param_prefix: str = ""  # a unit body: its parameter scope, stripped from names
    symbols: Symbols | None = None
    batch: str = "x.shape[0]"  # the batch size, for calls without data inputs (F.constant)

    def error(self, step: Step, message: str) -> ExportError:
        return ExportError(f'network "{self.network}", layer "{step.name}": {message}')

    # ------------------------------------------------------------------ values
    def symbol(self, step: Step, key: str) -> str | None:
        """The unit argument that ``key`` of ``step`` comes from, or None."""
        return self.symbols(step.name, key, step.kwargs[key]) if self.symbols else None

    def _omit(self, sig: inspect.Signature, step: Step, test: Step | None, key: str) -> bool:
        """A default in both modes, and not a unit argument (whose value may vary)."""
        value = step.kwargs[key]
        same = test is None or test.kwargs.get(key, value) == value
        return same and _is_default(sig, key, value, step.kwargs) and not self.symbol(step, key)

    def value(self, step: Step, key: str, value: object, first: str) -> str:
        symbol = self.symbols(step.name, key, value) if self.symbols else None
        if symbol is not None:
            return symbol
        try:
            text = literal(value)
        except ExportError as exc:
            raise self.error(step, f"argument {key}: {exc}") from None
        if key in step.batch_kwargs:  # written without the batch axis in the project
            items = ", ".join(literal(v) for v in value)  # type: ignore[attr-defined]
            size = f"{first}.shape[0]" if first else self.batch
            return f"({size}, {items})"
        return text

    def moded(self, step: Step, test: Step | None, key: str, first: str) -> str:
        value = step.kwargs[key]
        text = self.value(step, key, value, first)
        other = test.kwargs.get(key, value) if test is not None else value
        if isinstance(value, bool) and other is False and self.symbol(step, key):
            return f"{text} and not test"  # a unit argument switched off at test time
        if other == value:
            return text
        if value is True and other is False:
            return "not test"
        return f"({self.value(step, key, other, first)} if test else {text})"

    # ------------------------------------------------------------------- calls
    def call(self, step: Step, test: Step | None, args: list[str]) -> str:
        """The expression for ``step``; ``args`` are the data inputs' source texts."""
        fname = getattr(step.function, "__name__", "")
        if getattr(F, fname, None) is not step.function:
            raise self.error(step, f"{step.type} has no public F function")
        for key in step.kwargs:
            if not key.isidentifier():
                raise self.error(step, f"bad argument name {key!r}")
        text = self._parametric(step, test, fname, args)
        if text is None:
            text = self._function(step, test, fname, args)
        if any(step.kwargs.get(k) for k in _TUPLE_KWARGS):
            return text + "[0]"
        if step.item is not None:  # one output of F.split: a recurrent loop's time step
            return text + f"[{int(step.item)}]"
        return text

    def _function(self, step: Step, test: Step | None, fname: str, args: list[str]) -> str:
        sig = _signature(step.function)
        data = iter(args)
        inputs = [next(data) if r[0] in ("step", "feed", "gen")
                  else "None" if r[0] == "none" else self.param(step, r[1])
                  for r in step.inputs]  # fmt: skip
        first = inputs[0] if inputs else ""
        out = list(inputs)
        for key in step.kwargs:
            if self._omit(sig, step, test, key):
                continue
            param = sig.parameters.get(key)
            text = self.moded(step, test, key, first)
            required = param is not None and param.default is inspect.Parameter.empty
            positional = required and param.kind is param.POSITIONAL_OR_KEYWORD
            out.append(text if positional and len(out) == self._index(sig, key) else
                       f"{key}={text}")  # fmt: skip
        return f"F.{fname}({', '.join(out)})"

    @staticmethod
    def _index(sig: inspect.Signature, key: str) -> int:
        return list(sig.parameters).index(key)

    def param(self, step: Step, name: str) -> str:
        decl = self.parameters[name]
        if decl.file:
            raise self.error(step, f"parameter {name} is read from a file; load it with "
                                   f"nn.load_parameters instead")  # fmt: skip
        short = name[len(self.param_prefix) :] if name.startswith(self.param_prefix) else name
        init = initializer_text(decl.initializer, decl.multiplier, tuple(decl.shape))
        return (f"nn.parameter.get_parameter_or_create({literal(short)}, "
                f"{literal(tuple(decl.shape))}, {init})")  # fmt: skip

    def _parametric(self, step: Step, test: Step | None, fname: str, args: list[str]) -> str | None:
        """``PF.<fname>(...)`` when the step owns its parameters like a PF call, else None."""
        spec = find_spec(step.type)
        pf = getattr(PF, fname, None)
        if spec is None or pf is None or not spec.fn_scope:
            return None
        if getattr(pf, "__scope_name__", None) != spec.fn_scope:
            return None
        f_names = list(_signature(step.function).parameters)
        owned: dict[str, ParameterDecl] = {}
        extra: dict[str, object] = {}
        scopes = set()
        for i, ref in enumerate(step.inputs):
            if i == 0:
                if ref[0] not in ("step", "feed", "gen"):
                    return None
                continue
            if ref[0] == "none" and i < len(f_names) and f_names[i] in _ABSENT:
                key, flag = _ABSENT[f_names[i]]
                extra[key] = flag
                continue
            if ref[0] != "param":
                return None
            scope, fn_scope, pname = _split(ref[1][len(self.param_prefix) :])
            if fn_scope != spec.fn_scope or not ref[1].startswith(self.param_prefix):
                return None
            scopes.add(scope)
            owned[pname] = self.parameters[ref[1]]
        if len(scopes) != 1 or any(d.file for d in owned.values()):
            return None
        sizes = _sizes(fname, {p: tuple(d.shape) for p, d in owned.items()}, step.kwargs)
        sig = _signature(pf)
        if sizes is None or any(k not in sig.parameters for k in (*step.kwargs, *extra)):
            return None
        texts = {key: self._size(step, key, value, args[0]) for key, value in sizes.items()}
        inits = self._inits(step, fname, sig, owned, self._fan_texts(fname, step, texts, args[0]))
        if inits is None:
            return None
        out = [args[0]]
        for key, text in texts.items():
            out.append(text if key != "shared" else f"shared={text}")
        if out[-1] == "shared=True":
            out.pop()
        for key in step.kwargs:
            if self._omit(sig, step, test, key):
                continue
            out.append(f"{key}={self.moded(step, test, key, args[0])}")
        out += [f"{k}={literal(v)}" for k, v in extra.items()]
        out += inits
        out.append(f"name={literal(next(iter(scopes)))}")
        return f"PF.{fname}({', '.join(out)})"

    def _size(self, step: Step, key: str, value: object, first: str) -> str:
        prop = _SIZE_PROPERTY.get(key, key)
        symbol = self.symbols(step.name, prop, value) if self.symbols else None
        return symbol if symbol is not None else self.value(step, key, value, first)

    def _fan_texts(self, pf: str, step: Step, sizes: dict[str, str], x: str
                   ) -> tuple[str, str] | None:  # fmt: skip
        """In a unit body, the weight's fans as source text (they follow the input and the
        arguments), for the layers whose weight is (in, out) or (out, in, *kernel)."""
        kw = step.kwargs
        if self.symbols is None or kw.get("base_axis", 1) != 1:
            return None
        if pf in _AFFINES:  # a tuple n_outmaps would need its product: numbers then
            out = sizes["n_outmaps"]
            return (
                (f"{x}.size // {x}.shape[0]", out) if out.isidentifier() or out.isdigit() else None
            )
        plain = kw.get("group", 1) == 1 and not kw.get("channel_last", False)
        if pf in _CONVOLUTIONS and plain:
            return f"{x}.shape[1]", sizes["outmaps"]
        if pf == "depthwise_convolution" and kw.get("multiplier", 1) == 1:  # W (C, *kernel)
            return f"{x}.shape[1]", f"{x}.shape[1]"
        return None

    def _inits(self, step: Step, pf: str, sig: inspect.Signature,
               owned: dict[str, ParameterDecl], fans: tuple[str, str] | None
               ) -> list[str] | None:  # fmt: skip
        """``w_init=...``, ``param_init={...}``, ``fix_parameters``/``lr_mult`` where the
        project differs from the target's defaults; None when PF cannot express it."""
        spec = find_spec(step.type)
        lr_default = {p.name: p.lr_multiplier for p in spec.parameters} if spec else {}
        out, grouped, lr = [], {}, {}
        for pname, decl in owned.items():
            default = pf_default(self.target, step.type, pf, pname, dict(step.kwargs))
            if default != (decl.initializer, float(decl.multiplier)):
                weight = fans if pname in ("W", "Wb") else None
                text = initializer_text(decl.initializer, decl.multiplier, tuple(decl.shape),
                                        weight)  # fmt: skip
                if "param_init" in sig.parameters:
                    grouped[pname] = text
                elif f"{pname.lower()}_init" in sig.parameters:
                    out.append(f"{pname.lower()}_init={text}")
                elif pname == "W" and "initializer" in sig.parameters:
                    out.append(f"initializer={text}")
                else:
                    return None
            # parameters the catalogue does not declare (alpha) are buffers PF creates itself
            if pname in lr_default and float(decl.lr_multiplier) != lr_default[pname]:
                lr[pname] = float(decl.lr_multiplier)
        if grouped:
            items = ", ".join(f"{literal(k)}: {v}" for k, v in grouped.items())
            out.append(f"param_init={{{items}}}")
        trained = [p for p in owned if lr_default.get(p, 0.0) != 0.0]
        if lr and trained and all(lr.get(p) == 0.0 for p in trained):
            out.append("fix_parameters=True")
        elif lr and self.target == "nnabla":
            return None  # nnabla's PF has no per-parameter learning rate: write F instead
        elif lr:
            out.append(f"lr_mult={{{', '.join(f'{literal(k)}: {v!r}' for k, v in lr.items())}}}")
        return out


def _split(name: str) -> tuple[str, str, str]:
    """``A/B/conv/W`` -> (``A/B``, ``conv``, ``W``)."""
    parts = name.split("/")
    if len(parts) < 3:
        return "", "", parts[-1]
    return "/".join(parts[:-2]), parts[-2], parts[-1]


def data_refs(step: Step) -> list[Ref]:
    """The inputs that are data (other steps, dataset variables, generators)."""
    return [r for r in step.inputs if r[0] in ("step", "feed", "gen")]
