"""Quantization experiments (NNC's FixedPointQuantize workflow, made one action and a sweep).

* :mod:`~engine.quantization.scheme`: what to quantize (quantizer, targets, bits, Delta, sign).
* :mod:`~engine.quantization.insert`: the graph transform that inserts quantizer layers.
* :mod:`~engine.quantization.calibrate`: the value ranges of a trained job, for Delta.
* :mod:`~engine.quantization.sweep`: PTQ/QAT sweeps, one job folder per point, results.csv.
* :mod:`~engine.quantization.sensitivity`: per-layer sensitivity, mixed-precision suggestion.
"""

from engine.quantization.insert import (
    Ranges,
    insert_quantizers,
    quantize_network,
    quantize_networks,
    strip_quantizers,
)
from engine.quantization.scheme import QuantizationError, Scheme, parse_bits, parse_targets

__all__ = [
    "QuantizationError",
    "Ranges",
    "Scheme",
    "insert_quantizers",
    "parse_bits",
    "parse_targets",
    "quantize_network",
    "quantize_networks",
    "strip_quantizers",
]
