"""What to quantize and how: the :class:`Scheme` of one quantizer insertion.

Target names: ``weights`` (the ``W`` of every parametric layer), ``biases`` (``b``) and
``activations`` (the output of each layer); ``parameters`` is weights+biases and ``both``
(or ``all``) is all three. A sweep's target groups join names with ``+``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

__all__ = [
    "QuantizationError",
    "Scheme",
    "QUANTIZERS",
    "TARGETS",
    "parse_targets",
    "parse_bits",
    "power_of_two_delta",
]

# CLI name -> NNC layer type.
QUANTIZERS = {
    "fixed-point": "FixedPointQuantize",
    "pow2": "Pow2Quantize",
    "min-max": "MinMaxQuantize",
}
TARGETS = ("weights", "biases", "activations")
_ALIASES = {
    "parameters": ("weights", "biases"),
    "both": TARGETS,
    "all": TARGETS,
}


class QuantizationError(ValueError):
    """Bad input to a quantization experiment; the message names the option, layer or file."""


def parse_targets(text: str | Iterable[str]) -> frozenset[str]:
    """``"weights,activations"`` or ``"weights+biases"`` -> the set of target names."""
    names = text.replace("+", ",").split(",") if isinstance(text, str) else list(text)
    out: set[str] = set()
    for raw in names:
        name = raw.strip().lower()
        if name in _ALIASES:
            out.update(_ALIASES[name])
        elif name in TARGETS:
            out.add(name)
        else:
            known = ", ".join((*TARGETS, *_ALIASES))
            raise QuantizationError(f"unknown target {raw.strip()!r} (one of {known})")
    if not out:
        raise QuantizationError("no target given (weights, biases, activations, both)")
    return frozenset(out)


def parse_bits(text: str | int) -> int:
    """A bit width in 1..32."""
    try:
        bits = int(str(text).strip())
    except ValueError:
        raise QuantizationError(f"bits: expected an integer in 1..32. Received: {text!r}") from None
    if not 1 <= bits <= 32:
        raise QuantizationError(f"bits: expected an integer in 1..32. Received: {bits}")
    return bits


def power_of_two_delta(max_abs: float, bits: int, sign: bool) -> float:
    """The smallest power of two Delta whose range covers ``max_abs`` at ``bits`` bits.

    FixedPointQuantize represents up to (2^(n-1) - 1) Delta signed, (2^n - 1) Delta unsigned.
    """
    levels = 2 ** (bits - 1) - 1 if sign else 2**bits - 1
    if max_abs <= 0 or levels <= 0:
        return 2.0**-bits  # all values are 0 (or the width is refused later): any step works
    return 2.0 ** math.ceil(math.log2(max_abs / levels))


@dataclass(frozen=True)
class Scheme:
    """One insertion: quantizer, targets, bits, step and the layers it concerns.

    ``delta`` None means calibrated (ranges are required); ``sign`` None means automatic
    (unsigned after ReLU-like outputs, signed elsewhere). ``skip`` None skips the defaults
    (Input layers, losses, the layers after the last parametric one). ``layer_bits`` gives
    some layers other bits (mixed precision); ``only`` limits quantization to those layers
    (the sensitivity pass).
    """

    quantizer: str = "fixed-point"
    targets: frozenset[str] = frozenset(TARGETS)
    bits: int = 8
    delta: float | None = None
    sign: bool | None = None
    ste_fine_grained: bool = True
    skip: tuple[str, ...] | None = None
    layer_bits: Mapping[str, int] = field(default_factory=dict)
    only: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.quantizer not in QUANTIZERS:
            raise QuantizationError(
                f"unknown quantizer {self.quantizer!r} (one of {', '.join(QUANTIZERS)})"
            )
        parse_targets(self.targets)
        for bits in (self.bits, *self.layer_bits.values()):
            parse_bits(bits)
        if self.delta is not None and not (self.delta > 0 and math.isfinite(self.delta)):
            raise QuantizationError(f"delta: expected a number > 0. Received: {self.delta}")

    @property
    def layer_type(self) -> str:
        return QUANTIZERS[self.quantizer]

    def bits_of(self, layer: str) -> int:
        return int(self.layer_bits.get(layer, self.bits))
