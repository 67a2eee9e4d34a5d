"""LoopControl: RepeatStart, RepeatEnd, RecurrentInput, RecurrentOutput, Delay.

Declarations follow docs/layers.md §4.7
(Sony's ``LoopControl/*.txt``).
"""

from __future__ import annotations

from engine.layers.declare import (
    INPUT,
    OnnxRule,
    Support,
    data,
    data_props,
    layer,
    output,
    prop,
)
from engine.layers.onnx_rules import recurrent as onnx
from engine.layers.property_types import (
    PINT,
    PINT_ARRAY,
    TEXT,
    UINT,
)

CATEGORY = "LoopControl"

# Loop layer type -> the nnabla message holding its arguments (NNP files keep these beside the
# function's parameter oneof).
LOOP_TYPES = {"RepeatStart": "repeat_param", "RepeatEnd": "repeat_param",
              "RecurrentInput": "recurrent_param", "RecurrentOutput": "recurrent_param",
              "Delay": "recurrent_param"}  # fmt: skip

SPECS = (
    layer(
        "RepeatStart",
        CATEGORY,
        (
            "Opens a repeat block. The layers between RepeatStart and the matching RepeatEnd are "
            "unrolled `Times` times; each copy gets its own parameters."
        ),
        (
            INPUT,
            prop("Times", PINT, "3", search=True),
            prop("ID", TEXT, "*Name", computed=True, arg="repeat_param.repeat_id"),
            output(),
        ),
        support=Support.GRAPH,
        color=0xA18FB2,
    ),
    layer(
        "RepeatEnd",
        CATEGORY,
        (
            "Closes the repeat block opened by the RepeatStart whose name is in `ID` (filled "
            "automatically)."
        ),
        (
            INPUT,
            prop("ID", TEXT, "RepeatStart", computed=True, arg="repeat_param.repeat_id"),
            prop("Times", PINT, "*RepeatTimes", computed=True, arg="repeat_param.times"),
            output(),
        ),
        support=Support.GRAPH,
        color=0xA18FB2,
    ),
    layer(
        "RecurrentInput",
        CATEGORY,
        (
            "Opens a recurrent block: splits the input along `Axis` into time steps; the block is "
            "unrolled over the length of that axis."
        ),
        (
            INPUT,
            prop("Axis", UINT, "0", arg="recurrent_param.axis -a"),
            prop("ID", TEXT, "*Name", computed=True, arg="recurrent_param.repeat_id"),
            output("*ShapeExceptAxis"),
        ),
        support=Support.GRAPH,
        color=0xA18FB2,
        onnx=OnnxRule("Gather", onnx.write_time_step, onnx.read_gather),
    ),
    layer(
        "RecurrentOutput",
        CATEGORY,
        "Closes a recurrent block: stacks the per-step outputs along `Axis`.",
        (
            INPUT,
            prop("Axis", UINT, "0", arg="recurrent_param.axis -a"),
            prop("ID", TEXT, "RecurrentInput", computed=True, arg="recurrent_param.repeat_id"),
            prop("Length", PINT, "*RecurrentLength", computed=True, arg="recurrent_param.length"),
            output("*RecurrentOutputSize"),
        ),
        support=Support.GRAPH,
        color=0xA18FB2,
        onnx=OnnxRule("Concat", onnx.write_stack, reads=()),
    ),
    layer(
        "Delay",
        CATEGORY,
        (
            "Inside a recurrent block: outputs the value of its input at the previous time step; "
            "at step 0 it outputs `Initial` (side input, dataset or generator)."
        ),
        (
            INPUT,
            prop("Size", PINT_ARRAY, "*Input", canvas=True, arg="size"),
            *data_props("Initial", dataset="c", multiplier="0.0", optional=False),
            prop("ID", TEXT, computed=True, arg="recurrent_param.repeat_id"),
            output("*Size"),
        ),
        connectors=(data("Initial", "*Size"),),
        support=Support.GRAPH,
        color=0xA18FB2,
        is_param=False,
        onnx=OnnxRule("ConstantOfShape", onnx.write_initial, reads=()),
    ),
)
