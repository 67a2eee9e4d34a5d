"""Spectral: FFT, IFFT.

Declarations follow docs/layers.md §4.10
(Sony's ``Spectral/*.txt``).
"""

from __future__ import annotations

from engine.layers.declare import (
    INPUT,
    layer,
    output,
    prop,
)
from engine.layers.property_types import (
    BOOLEAN,
    PINT,
)

CATEGORY = "Spectral"

SPECS = (
    layer(
        "FFT",
        CATEGORY,
        (
            "Complex FFT over the last `SignalNDim` signal axes; the trailing axis of size 2 holds"
            " (real, imaginary)."
        ),
        (
            INPUT,
            prop("SignalNDim", PINT, "2", arg="fft_param.signal_ndim"),
            prop("Normalized", BOOLEAN, "False", arg="fft_param.normalized"),
            output(),
        ),
        costs={
            "CostMultiply": "*Calc +*Input:**Normalized",
            "CostMultiplyAdd": "*FFTMultiplyAddSize",
        },
        function="fft",
        export_name="fft",
    ),
    layer(
        "IFFT",
        CATEGORY,
        "Inverse complex FFT, same layout as FFT.",
        (
            INPUT,
            prop("SignalNDim", PINT, "2", arg="ifft_param.signal_ndim"),
            prop("Normalized", BOOLEAN, "False", arg="ifft_param.normalized"),
            output(),
        ),
        costs={
            "CostMultiply": "*Calc +*Input:**Normalized",
            "CostMultiplyAdd": "*FFTMultiplyAddSize",
        },
        function="ifft",
        export_name="ifft",
    ),
)
