"""IO: Input, Constant.

Declarations follow docs/layers.md §4.1
(Sony's ``IO/*.txt``).
"""

from __future__ import annotations

from engine.layers.declare import (
    Inputs,
    Support,
    layer,
    output,
    prop,
)
from engine.layers.property_types import (
    DATASET,
    FLOAT,
    INT,
    OPTION,
    PINT_ARRAY,
    TEXT,
)

CATEGORY = "IO"

SPECS = (
    layer(
        "Input",
        CATEGORY,
        (
            "Network input. Feeds a dataset variable (or a generator) into the graph. Shape `Size`"
            " excludes the batch axis."
        ),
        (
            prop("Size", PINT_ARRAY, "1,28,28"),
            prop("Dataset", DATASET, "x", canvas=True),
            prop(
                "Generator",
                OPTION,
                "None",
                options=("None", "Normal", "Uniform", "Constant", "Range"),
            ),
            prop("GeneratorMultiplier", FLOAT, "1.0"),
            prop("Order", INT, "-1"),
            output("*Size"),
        ),
        support=Support.GRAPH,
        inputs=Inputs.NONE,
        color=0x000000,
        is_param=False,
        position_top=True,
    ),
    layer(
        "Constant",
        CATEGORY,
        (
            "Named constant value (text/int/float). Used mainly by other engines and by units. It "
            "has no tensor output in the NNabla engine (uncertain)."
        ),
        (
            prop("Value", TEXT, canvas=True),
            prop("ValueType", OPTION, "Text", options=("Text", "Int", "Float")),
            prop("ArgName", TEXT, optional=True),
        ),
        support=Support.ANNOTATION,
        inputs=Inputs.NONE,
        color=0x000000,
        is_param=False,
        position_top=True,
    ),
)
