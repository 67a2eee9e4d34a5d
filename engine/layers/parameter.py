"""Parameter: Parameter, WorkingMemory.

Declarations follow docs/layers.md §4.3
(Sony's ``Parameter/*.txt``).
"""

from __future__ import annotations

from engine.layers.declare import (
    BIAS_INIT,
    Inputs,
    Support,
    layer,
    output,
    prop,
)
from engine.layers.property_types import (
    FILE,
    FLOAT,
    NONNEGATIVE_FLOAT,
    OPTION,
    PINT_ARRAY,
)

CATEGORY = "Parameter"

SPECS = (
    layer(
        "Parameter",
        CATEGORY,
        (
            "A free learnable tensor (no input). Its output is the parameter itself, so it can "
            "feed a side connector (for example Affine.W) or any data input."
        ),
        (
            prop("Size", PINT_ARRAY, "*GraphOutput"),
            prop("File", FILE, optional=True),
            prop(
                "Initializer",
                OPTION,
                "Normal",
                options=(
                    "Normal",
                    "NormalAffineHeForward",
                    "NormalAffineHeBackward",
                    "NormalAffineGlorot",
                    "NormalConvolutionHeForward",
                    "NormalConvolutionHeBackward",
                    "NormalConvolutionGlorot",
                    "NormalCLConvHeForward",
                    "NormalCLConvHeBackward",
                    "NormalCLConvGlorot",
                    "Uniform",
                    "UniformAffineGlorot",
                    "UniformConvolutionGlorot",
                    "UniformCLConvGlorot",
                    "Constant",
                ),
            ),
            prop("InitializerMultiplier", FLOAT, "0.01"),
            prop("LRateMultiplier", NONNEGATIVE_FLOAT, "1.0"),
            output("*Size"),
        ),
        costs={
            "CostParameter": "*Calc +*Output",
        },
        support=Support.GRAPH,
        inputs=Inputs.NONE,
        color=0x7A997A,
        is_param=True,
    ),
    layer(
        "WorkingMemory",
        CATEGORY,
        (
            "A named buffer kept between iterations and shared between networks by name. With an "
            "input it copies the input (Identity); without one it outputs the stored buffer. It is"
            " not trained (LRateMultiplier 0)."
        ),
        (
            prop("Size", PINT_ARRAY, "1,28,28"),
            prop("File", FILE, optional=True),
            prop("Initializer", OPTION, "Normal", options=BIAS_INIT),
            prop("InitializerMultiplier", FLOAT, "1.0"),
            prop("LRateMultiplier", NONNEGATIVE_FLOAT, "0.0"),
            output("*Size"),
        ),
        costs={
            "CostParameter": "*Calc +*Output",
        },
        support=Support.GRAPH,
        inputs=Inputs.SINGLE_OR_NONE,
        color=0x7A997A,
        is_param=False,
    ),
)
