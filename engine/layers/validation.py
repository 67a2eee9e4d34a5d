"""Validation: BinaryError, TopNError.

Declarations follow docs/layers.md §4.17
(Sony's ``Validation/*.txt``).
"""

from __future__ import annotations

from engine.layers.declare import (
    INPUT,
    IS_LOSS,
    data,
    data_props,
    layer,
    output,
    prop,
)
from engine.layers.property_types import (
    UINT,
)

CATEGORY = "Validation"

SPECS = (
    layer(
        "BinaryError",
        CATEGORY,
        (
            "Error indicator for binary outputs: 1 where (x >= 0.5) != (t >= 0.5), else 0 (nnabla "
            "definition). Marked as a loss-type layer so it is monitored; not differentiable."
        ),
        (
            INPUT,
            *data_props("T", dataset="y", generator="None", canvas=True),
            output(),
            IS_LOSS,
        ),
        connectors=(data("T"),),
        function="binary_error",
    ),
    layer(
        "TopNError",
        CATEGORY,
        (
            "1 if the label t is not among the N largest entries of x along `Axis`, else 0. "
            "Monitored like a loss; not differentiable."
        ),
        (
            INPUT,
            prop("Axis", UINT, "0", arg="top_n_error_param.axis -a"),
            prop("N", UINT, "1", canvas=True, arg="top_n_error_param.n"),
            *data_props("T", dataset="y", generator="None", canvas=True),
            output("*CCEOutputSize"),
            IS_LOSS,
        ),
        connectors=(data("T", "*SoftmaxLabelShape"),),
        function="top_n_error",
    ),
)
