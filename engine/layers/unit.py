"""Unit: Unit, Argument, LSTM.

Declarations follow docs/layers.md §4.9
(Sony's ``Unit/*.txt``).
"""

from __future__ import annotations

from engine.layers.declare import (
    AFFINE_INIT,
    BIAS_INIT,
    INPUT,
    PARAMETER_SCOPE,
    Component,
    Inputs,
    Outputs,
    Support,
    data,
    data_props,
    layer,
    output,
    param,
    param_props,
    prop,
)
from engine.layers.property_types import (
    BOOLEAN,
    OPTION,
    PINT,
    PINT_ARRAY,
    TEXT,
    UINT,
    UINT_ARRAY,
)

CATEGORY = "Unit"

SPECS = (
    layer(
        "Unit",
        CATEGORY,
        (
            "Inserts (inlines) another network of the project, given by `Network`. Each Argument "
            "layer of that network becomes an extra property of the Unit layer."
        ),
        (
            INPUT,
            prop("Network", TEXT, canvas=True, short="Net"),
            prop("ParameterScope", TEXT, "*Name", optional=True),
            output("*UnitOutput"),
        ),
        costs={
            "CostParameter": "0",
            "CostAdd": "0",
            "CostMultiply": "0",
            "CostMultiplyAdd": "0",
            "CostDivision": "0",
            "CostExp": "0",
            "CostIf": "0",
        },
        support=Support.GRAPH,
        color=0x6AA1BD,
    ),
    layer(
        "Argument",
        CATEGORY,
        (
            "Declares a unit argument (name = layer name). Other layers of the same network refer "
            "to it by name."
        ),
        (
            prop("Value", TEXT, "1", canvas=True),
            prop(
                "Type",
                OPTION,
                "Text",
                options=(
                    "Boolean",
                    "BooleanOrMacro",
                    "Int",
                    "IntArray",
                    "PInt",
                    "PIntArray",
                    "PIntArrays",
                    "UInt",
                    "UIntArray",
                    "Float",
                    "FloatArray",
                    "FloatArrays",
                    "Text",
                    "File",
                ),
            ),
            prop("Search", BOOLEAN, "False"),
        ),
        support=Support.ANNOTATION,
        inputs=Inputs.NONE,
        outputs=Outputs.NONE,
        component=Component.ARGUMENT,
        is_param=False,
    ),
    layer(
        "LSTM",
        CATEGORY,
        (
            "Built-in LSTM unit (a recurrent block made of Affine/Sigmoid/Tanh/Mul2/Add2/Delay "
            "layers, see Unit/LSTM.sdcproj). Documented by Sony as experimental."
        ),
        (
            INPUT,
            prop("Size", UINT_ARRAY, "100", canvas=True),
            prop("Axis", UINT, "0"),
            prop(
                "RecurrentGroupID",
                TEXT,
                "*Name",
                canvas=True,
                short="RGID",
                arg="recurrent_param.repeat_id",
            ),
            prop("InnerShape", PINT_ARRAY, "*ShapeExceptAxis", computed=True),
            prop("Length", PINT, "*AxisSize", computed=True),
            PARAMETER_SCOPE,
            *data_props("H.Initial", dataset="h", multiplier="0.0"),
            *data_props("C.Initial", dataset="c", multiplier="0.0"),
            *param_props("Affine.W", "NormalAffineGlorot", AFFINE_INIT),
            *param_props("Affine.b", "Constant", BIAS_INIT, multiplier="0.0"),
            *param_props("IGate.W", "NormalAffineGlorot", AFFINE_INIT),
            *param_props("IGate.b", "Constant", BIAS_INIT, multiplier="0.0"),
            *param_props("FGate.W", "NormalAffineGlorot", AFFINE_INIT),
            *param_props("FGate.b", "Constant", BIAS_INIT, multiplier="0.0"),
            *param_props("OGate.W", "NormalAffineGlorot", AFFINE_INIT),
            *param_props("OGate.b", "Constant", BIAS_INIT, multiplier="0.0"),
            output("*RecurrentOutputSize2"),
        ),
        connectors=(
            data("H.Initial", "*Size"),
            data("C.Initial", "*Size"),
            param("Affine.W", "*LSTMWeightShape", short="AW", path="Affine/affine/W"),
            param("Affine.b", "*Size", short="Ab", path="Affine/affine/b"),
            param("IGate.W", "*LSTMWeightShape", short="IW", path="IGate/affine/W"),
            param("IGate.b", "*Size", short="Ib", path="IGate/affine/b"),
            param("FGate.W", "*LSTMWeightShape", short="FW", path="FGate/affine/W"),
            param("FGate.b", "*Size", short="Fb", path="FGate/affine/b"),
            param("OGate.W", "*LSTMWeightShape", short="OW", path="OGate/affine/W"),
            param("OGate.b", "*Size", short="Ob", path="OGate/affine/b"),
        ),
        costs={
            "CostParameter": "*SumParameterSize",
            "CostAdd": "*Calc +*Size:**Length:*4",
            "CostMultiplyAdd": "*Calc +*InnerShape:+*Size:**Size:**Length:*4",
        },
        support=Support.GRAPH,
        fn_scope="lstm",
        color=0x6AA1BD,
    ),
)
