"""Arithmetic (N Inputs): AddN, MulN.

Declarations follow docs/layers.md §4.15
(Sony's ``Arithmetic (N Inputs)/*.txt``).
"""

from __future__ import annotations

from engine.layers.declare import (
    INPUTS,
    Inputs,
    layer,
    output,
)

CATEGORY = "Arithmetic (N Inputs)"

SPECS = (
    layer(
        "AddN",
        CATEGORY,
        "Element-wise sum of any number of inputs.",
        (
            INPUTS,
            output("*BasicMathOutputSizewBC"),
        ),
        costs={
            "CostAdd": "*Calc +*Output",
        },
        function="add_n",
        inputs=Inputs.MULTIPLE,
        color=0x848484,
    ),
    layer(
        "MulN",
        CATEGORY,
        "Element-wise product of any number of inputs.",
        (
            INPUTS,
            output("*BasicMathOutputSizewBC"),
        ),
        costs={
            "CostMultiply": "*Calc +*Output",
        },
        function="mul_n",
        inputs=Inputs.MULTIPLE,
        color=0x848484,
    ),
)
