"""The layer catalogue: every NNC layer type by name, in palette order.

Categories are listed in the order of NNC's palette (``layer_component.txt``, docs/layers.md §3);
inside a category module ``SPECS`` is in palette order too. The three definition files that are
not in the palette (ClipByNorm, ClipByValue, Flatten) come last in ``others`` with
``in_palette=False``.
"""

from __future__ import annotations

from collections.abc import Iterable
from types import MappingProxyType

from engine.layers import (
    activation,
    arithmetic_n,
    arithmetic_scalar,
    arithmetic_two,
    basic,
    io,
    logical,
    loop_control,
    loss,
    mathematics,
    normalization,
    others,
    parameter,
    pooling,
    preprocess,
    quantize,
    setting,
    spectral,
    trigonometric,
    unit,
    validation,
)
from engine.layers.spec import LayerSpec

__all__ = ["CATEGORIES", "get_spec", "find_spec", "all_specs", "palette", "UnknownLayerError"]

_MODULES = (
    io, loss, parameter, basic, pooling, activation, loop_control, quantize, unit, spectral,
    mathematics, trigonometric, arithmetic_scalar, arithmetic_two, arithmetic_n, logical,
    validation, normalization, others, preprocess, setting,
)  # fmt: skip

CATEGORIES: tuple[str, ...] = tuple(m.CATEGORY for m in _MODULES)


class UnknownLayerError(KeyError):
    """A layer type that NNC's catalogue does not have."""

    def __str__(self) -> str:
        return str(self.args[0])


def _build() -> dict[str, LayerSpec]:
    from dataclasses import replace

    table: dict[str, LayerSpec] = {}
    order = 0
    for module in _MODULES:
        for spec in module.SPECS:
            if spec.category != module.CATEGORY or spec.type in table:
                raise ValueError(f"layer {spec.type}: wrong category or declared twice")
            if spec.in_palette:
                spec = replace(spec, palette_order=order)
                order += 1
            table[spec.type] = spec
    _check_onnx_readers(table.values())
    return table


def _check_onnx_readers(specs: Iterable[LayerSpec]) -> None:
    """Each ONNX operator is read back by one entry (``OnnxRule.reads``), else import fails."""
    owner: dict[str, str] = {}
    for spec in specs:
        for op in spec.onnx.operators_read if spec.onnx else ():
            if op in owner:
                raise ValueError(f"ONNX operator {op} is read by both {owner[op]} and {spec.type}")
            owner[op] = spec.type


_SPECS = MappingProxyType(_build())
_LEGACY = MappingProxyType({old: s for s in _SPECS.values() for old in s.legacy_names})


def find_spec(type_: str) -> LayerSpec | None:
    """The spec of a layer type (or of a legacy type name), or None."""
    return _SPECS.get(type_) or _LEGACY.get(type_)


def get_spec(type_: str) -> LayerSpec:
    """The spec of a layer type; raises :class:`UnknownLayerError` naming the type."""
    spec = find_spec(type_)
    if spec is None:
        raise UnknownLayerError(f"unknown layer type {type_!r}")
    return spec


def all_specs() -> tuple[LayerSpec, ...]:
    """Every spec: the palette layers in palette order, then the hidden definition files."""
    return tuple(_SPECS.values())


def palette() -> tuple[tuple[str, tuple[LayerSpec, ...]], ...]:
    """(category, specs) in palette order, without the layers marked ``Hidden=True``."""
    return tuple(
        (
            m.CATEGORY,
            tuple(_SPECS[s.type] for s in m.SPECS if s.in_palette and not s.hidden),
        )
        for m in _MODULES
    )
