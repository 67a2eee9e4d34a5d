"""Others: Dropout, Concatenate, Reshape, Broadcast, BroadcastTo, Tile, Pad, Flip, Shift,
Transpose, Slice, Stack, MatrixDiag, MatrixDiagPart, ClipGradByValue, ClipGradByNorm, TopKData,
TopKGrad, Sort, Prune, Interpolate, ResetNaN, ResetInf, NmsDetection2d, VATNoise, Unlink,
Identity, Comment, Output, Unsupported, ClipByNorm, ClipByValue, Flatten.

Declarations follow docs/layers.md §4.19
(Sony's ``Others/*.txt``).
"""

from __future__ import annotations

from engine.layers.declare import (
    INPUT,
    INPUT_IO,
    INPUTS,
    SKIP_AT_TEST,
    Component,
    Inputs,
    OnnxRule,
    Outputs,
    Support,
    data,
    data_props,
    layer,
    output,
    prop,
)
from engine.layers.onnx_rules import others as onnx
from engine.layers.onnx_rules import recurrent as onnx_recurrent
from engine.layers.property_types import (
    BOOLEAN,
    FLOAT,
    INT,
    INT_ARRAY,
    OPTION,
    PINT,
    PINT_ARRAY,
    PINT_ARRAYS,
    TEXT,
    UINT,
    UINT_ARRAY,
)

CATEGORY = "Others"

SPECS = (
    layer(
        "Dropout",
        CATEGORY,
        (
            "Zeroes elements with probability P in training and scales the rest by 1/(1-P); "
            "removed at test time when SkipAtTest is true."
        ),
        (
            INPUT,
            prop("P", FLOAT, "0.5", canvas=True, search=True, arg="dropout_param.p"),
            prop("Seed", INT, "-1", arg="dropout_param.seed"),
            SKIP_AT_TEST,
            output(),
        ),
        costs={
            "CostMultiply": "*Calc +*Input",
        },
        function="dropout",
        onnx=OnnxRule("Dropout", onnx.write_dropout, onnx.read_dropout),
    ),
    layer(
        "Concatenate",
        CATEGORY,
        "Concatenates the inputs along `Axis`.",
        (
            INPUTS,
            prop("Axis", UINT, "0", arg="concatenate_param.axis -a -n -f"),
            output("*ConcatenateOutputSize"),
        ),
        function="concatenate",
        inputs=Inputs.MULTIPLE,
        onnx=OnnxRule("Concat", onnx.write_concatenate, onnx.read_concat),
    ),
    layer(
        "Reshape",
        CATEGORY,
        "Reshapes to `OutShape` (same element count; no -1 wildcard in NNC).",
        (
            INPUT,
            prop("OutShape", PINT_ARRAY, "100", arg="reshape_param.shape -b"),
            output("*ReshapeOutputSize"),
        ),
        function="reshape",
        onnx=OnnxRule(
            "Reshape",
            onnx.write_reshape,
            onnx.read_reshape,
            reads=("Reshape", "Flatten", "Squeeze", "Unsqueeze"),
        ),
    ),
    layer(
        "Broadcast",
        CATEGORY,
        "Broadcasts size-1 axes to `OutShape`.",
        (
            INPUT,
            prop("OutShape", PINT_ARRAY, "*Input", arg="broadcast_param.shape -b"),
            output("*OutShape"),
        ),
        function="broadcast",
    ),
    layer(
        "BroadcastTo",
        CATEGORY,
        ("Broadcasts the input to the shape of side input y (nnabla BroadcastTo, axis argument)."),
        (
            INPUT,
            *data_props("y", canvas=True),
            prop("Axis", INT, "-1", arg="broadcast_to_param.axis -a"),
            output(),
        ),
        connectors=(data("y"),),
        function="broadcast_to",
    ),
    layer(
        "Tile",
        CATEGORY,
        "Repeats the input `Reps` times along the trailing axes (numpy tile).",
        (
            INPUT,
            prop("Reps", PINT_ARRAY, "2", canvas=True, short="Shape", arg="tile_param.reps -f -r"),
            output("*UnpoolingOutputSize"),
        ),
        function="tile",
    ),
    layer(
        "Pad",
        CATEGORY,
        (
            "Pads the trailing axes by (before, after) pairs in `PadWidth` (constant, reflect or "
            "repeat)."
        ),
        (
            INPUT,
            prop("PadWidth", UINT_ARRAY, "0,0,0,0", canvas=True, arg="pad_param.pad_width -r"),
            prop(
                "Mode",
                OPTION,
                "constant",
                options=("constant", "reflect", "repeat"),
                arg="pad_param.mode",
            ),
            prop("ConstantValue", FLOAT, "0.0", arg="pad_param.constant_value"),
            output("*PadOutputSize"),
        ),
        function="pad",
        onnx=OnnxRule("Pad", onnx.write_pad, onnx.read_pad),
    ),
    layer(
        "Flip",
        CATEGORY,
        "Reverses the order along `Axes`.",
        (
            INPUT,
            prop("Axes", UINT_ARRAY, "0", canvas=True, arg="flip_param.axes -a"),
            output(),
        ),
        function="flip",
        onnx=OnnxRule("Slice", onnx.write_flip, reads=()),
    ),
    layer(
        "Shift",
        CATEGORY,
        "Shifts the trailing axes by `Shift` elements, filling with `BorderMode`.",
        (
            INPUT,
            prop("Shift", INT_ARRAY, "0,0", canvas=True, arg="shift_param.shifts -r"),
            prop(
                "BorderMode",
                OPTION,
                "nearest",
                options=("nearest", "reflect"),
                canvas=True,
                arg="shift_param.border_mode",
            ),
            output(),
        ),
        function="shift",
    ),
    layer(
        "Transpose",
        CATEGORY,
        "Permutes the axes.",
        (
            INPUT,
            prop("Axes", UINT_ARRAY, "0,1,2", canvas=True, arg="transpose_param.axes -a -0"),
            output("*TransposeOutputSize"),
        ),
        function="transpose",
        onnx=OnnxRule("Transpose", onnx.write_transpose, onnx.read_transpose),
    ),
    layer(
        "Slice",
        CATEGORY,
        "Takes start:stop:step along every axis.",
        (
            INPUT,
            prop("Start", UINT_ARRAY, "0,0,0", canvas=True, arg="slice_param.start -r -f"),
            prop("Stop", UINT_ARRAY, "*Input", canvas=True, arg="slice_param.stop -r -f"),
            prop("Step", UINT_ARRAY, "1,1,1", arg="slice_param.step -r -f"),
            output("*SliceOutputSize"),
        ),
        function="slice",
        onnx=OnnxRule(
            "Slice", onnx.write_slice, onnx.read_slice, reads=("Slice", "Split"), all_outputs=True
        ),
    ),
    layer(
        "Stack",
        CATEGORY,
        "Stacks the inputs along a new axis `Axis`.",
        (
            INPUTS,
            prop("Axis", UINT, "0", arg="stack_param.axis -a"),
            output("*StackOutputSize"),
        ),
        function="stack",
        inputs=Inputs.MULTIPLE,
        onnx=OnnxRule("Concat", onnx_recurrent.write_stack, reads=()),  # Concatenate's reads it
    ),
    layer(
        "MatrixDiag",
        CATEGORY,
        "Builds a diagonal matrix from the last axis.",
        (
            INPUT,
            output("*MatrixDiagOutputSize"),
        ),
        function="matrix_diag",
    ),
    layer(
        "MatrixDiagPart",
        CATEGORY,
        "Extracts the diagonal of the last two axes.",
        (
            INPUT,
            output("*MatrixDiagPartOutputSize"),
        ),
        function="matrix_diag_part",
    ),
    layer(
        "ClipGradByValue",
        CATEGORY,
        "Identity in forward; clips the gradient to [min, Max] (side inputs) in backward.",
        (
            INPUT,
            *data_props("min", multiplier="-1.0", canvas=True),
            *data_props("Max", canvas=True),
            output(),
        ),
        connectors=(
            data("min"),
            data("Max"),
        ),
        function="clip_grad_by_value",
    ),
    layer(
        "ClipGradByNorm",
        CATEGORY,
        (
            "Identity in forward; rescales the gradient so its L2 norm over `Axes` is ClipNorm in "
            "backward."
        ),
        (
            INPUT,
            prop("ClipNorm", FLOAT, "1.0", arg="clip_grad_by_norm_param.clip_norm"),
            prop("Axes", UINT_ARRAY, "0", arg="clip_grad_by_norm_param.axes -a"),
            output(),
        ),
        function="clip_grad_by_norm",
    ),
    layer(
        "TopKData",
        CATEGORY,
        (
            "Keeps the K largest (by value or |value|) entries per sample; with Reduce the output "
            "holds only those K values."
        ),
        (
            INPUT,
            prop("K", PINT, "1", canvas=True, arg="top_k_data_param.k"),
            prop("Abs", BOOLEAN, "False", arg="top_k_data_param.abs"),
            prop("Reduce", BOOLEAN, "True", arg="top_k_data_param.reduce"),
            prop("BaseAxis", UINT, "0", arg="top_k_data_param.base_axis -a"),
            output("*TopKDataOutputSize"),
        ),
        function="top_k_data",
    ),
    layer(
        "TopKGrad",
        CATEGORY,
        "Identity in forward; keeps only the K largest gradient entries in backward.",
        (
            INPUT,
            prop("K", PINT, "1", canvas=True, arg="top_k_grad_param.k"),
            prop("Abs", BOOLEAN, "False", arg="top_k_grad_param.abs"),
            prop("BaseAxis", UINT, "0", arg="top_k_grad_param.base_axis -a"),
            output(),
        ),
        function="top_k_grad",
    ),
    layer(
        "Sort",
        CATEGORY,
        "Sorts along `Axis` (optionally returns indices only).",
        (
            INPUT,
            prop("Axis", INT, "0", canvas=True, arg="sort_param.axis -a -f"),
            prop("Reverse", BOOLEAN, "False", arg="sort_param.reverse"),
            prop("WithIndex", BOOLEAN, "False", computed=True, arg="sort_param.with_index"),
            prop("OnlyIndex", BOOLEAN, "False", arg="sort_param.only_index"),
            output(),
        ),
        function="sort",
    ),
    layer(
        "Prune",
        CATEGORY,
        "Zeroes the smallest-magnitude elements so that a fraction `Rate` becomes 0.",
        (
            INPUT,
            prop("Rate", FLOAT, "0.9", canvas=True, arg="prune_param.rate"),
            output(),
        ),
        function="prune",
    ),
    layer(
        "Interpolate",
        CATEGORY,
        "Resizes the 2 trailing axes to `OutputSize` (linear or nearest).",
        (
            INPUT,
            prop(
                "OutputSize",
                PINT_ARRAY,
                "32,32",
                canvas=True,
                arg="interpolate_param.output_size -r -f",
            ),
            prop("Mode", OPTION, "linear", options=("linear",), arg="interpolate_param.mode"),
            prop("AlignCorners", BOOLEAN, "True", arg="interpolate_param.align_corners"),
            prop("Output", PINT_ARRAY, "Input[0],OutputSize[0],OutputSize[1]"),
        ),
        function="interpolate",
    ),
    layer(
        "ResetNaN",
        CATEGORY,
        "Replaces NaN with 0 (nnabla default value).",
        (
            INPUT,
            output(),
        ),
        function="reset_nan",
        export_name="reset_nan",
    ),
    layer(
        "ResetInf",
        CATEGORY,
        "Replaces +-inf with 0 (nnabla default value).",
        (
            INPUT,
            output(),
        ),
        function="reset_inf",
    ),
    layer(
        "NmsDetection2d",
        CATEGORY,
        "Non-maximum suppression on YOLO-style detection outputs.",
        (
            INPUT,
            prop("Thresh", FLOAT, "0.5", canvas=True, arg="nms_detection2d_param.thresh"),
            prop("NMS", FLOAT, "0.45", arg="nms_detection2d_param.nms"),
            prop("NMSPerClass", BOOLEAN, "True", arg="nms_detection2d_param.nms_per_class"),
            output(),
        ),
        function="nms_detection2d",
        export_name="nms_detection2d",
        reference=(
            "Joseph Redmon, Ali Farhadi, YOLO9000: Better, Faster, Stronger. "
            "https://arxiv.org/abs/1612.08242"
        ),
    ),
    layer(
        "VATNoise",
        CATEGORY,
        (
            "Noise generator for virtual adversarial training: normalizes the buffer `Buf` and "
            "scales it by Epsilon; its backward writes the gradient into the buffer."
        ),
        (
            INPUT,
            prop("BaseAxis", UINT, "0", arg="vat_noise_param.base_axis -a"),
            prop("Epsilon", FLOAT, "0.0001", arg="vat_noise_param.eps"),
            *data_props("Buf", dataset="buf", generator="None", canvas=True),
            prop("Output", PINT_ARRAY, "*Input"),
        ),
        connectors=(data("Buf"),),
        function="vat_noise",
        reference=(
            "Miyato et.al, Distributional Smoothing with Virtual Adversarial Training. "
            "https://arxiv.org/abs/1507.00677"
        ),
    ),
    layer(
        "Unlink",
        CATEGORY,
        "Identity in forward; stops the gradient in backward.",
        (
            INPUT,
            output(),
        ),
        function="unlink",
    ),
    layer(
        "Identity",
        CATEGORY,
        "Identity.",
        (
            INPUT,
            output(),
        ),
        function="identity",
        onnx=OnnxRule("Identity", read=onnx.read_identity, reads=("Identity", "Cast", "CastLike")),
    ),
    layer(
        "Comment",
        CATEGORY,
        "A text note on the canvas. No computation.",
        (prop("Comment", TEXT, optional=True),),
        support=Support.ANNOTATION,
        inputs=Inputs.NONE,
        outputs=Outputs.NONE,
        component=Component.COMMENT,
    ),
    layer(
        "Output",
        CATEGORY,
        (
            "Hidden layer type (not in the palette menus): marks a network output under the "
            "variable name `VariableName`."
        ),
        (
            INPUT,
            prop("VariableName", TEXT, "y"),
        ),
        support=Support.GRAPH,
        outputs=Outputs.NONE,
        hidden=True,
    ),
    layer(
        "Unsupported",
        CATEGORY,
        "Hidden placeholder for an imported function that NNC cannot represent.",
        (
            INPUT_IO,
            output("*GraphIO", PINT_ARRAYS),
        ),
        support=Support.UNSUPPORTED,
        inputs=Inputs.MULTIPLE,
        outputs=Outputs.MULTIPLE,
        hidden=True,
    ),
    layer(
        "ClipByNorm",
        CATEGORY,
        "Hidden definition: clips the input so that its L2 norm over Axes is at most ClipNorm.",
        (
            INPUT,
            prop("ClipNorm", FLOAT, "1.0", arg="clip_by_norm_param.clip_norm"),
            prop("Axis", UINT_ARRAY, "0", arg="clip_by_norm_param.axis -a"),
            output(),
        ),
        support=Support.UNSUPPORTED,
        in_palette=False,
    ),
    layer(
        "ClipByValue",
        CATEGORY,
        "Hidden definition: clips the input to [min, Max].",
        (
            INPUT,
            *data_props("min", multiplier="-1.0", canvas=True),
            *data_props("Max", canvas=True),
            output(),
        ),
        connectors=(
            data("min"),
            data("Max"),
        ),
        support=Support.UNSUPPORTED,
        in_palette=False,
    ),
    layer(
        "Flatten",
        CATEGORY,
        "Hidden definition: flattens the sample to one axis.",
        (
            INPUT,
            output("*Calc +*Input", PINT),
        ),
        support=Support.UNSUPPORTED,
        in_palette=False,
    ),
)
