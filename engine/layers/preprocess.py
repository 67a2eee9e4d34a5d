"""Others(Pre Process): OneHot, RandomCrop, RandomFlip, RandomShift, RandomErase, MeanSubtraction,
ImageAugmentation.

Declarations follow docs/layers.md §4.20
(Sony's ``Others(Pre Process)/*.txt``).
"""

from __future__ import annotations

from engine.layers.declare import (
    BIAS_INIT,
    INPUT,
    PARAMETER_SCOPE,
    SKIP_AT_TEST,
    layer,
    output,
    param,
    param_props,
    prop,
)
from engine.layers.property_types import (
    BOOLEAN,
    BOOLEAN_OR_MACRO,
    FLOAT,
    FLOAT_ARRAY,
    INT,
    INT_ARRAY,
    OPTION,
    PINT,
    PINT_ARRAY,
    UINT,
    UINT_ARRAY,
)

CATEGORY = "Others(Pre Process)"

SPECS = (
    layer(
        "OneHot",
        CATEGORY,
        "Integer indices to one-hot vectors of shape `Shape`.",
        (
            INPUT,
            prop("Shape", PINT_ARRAY, "100", canvas=True, arg="one_hot_param.shape"),
            output("*OneHotOutputSize"),
        ),
        function="one_hot",
    ),
    layer(
        "RandomCrop",
        CATEGORY,
        "Random crop to `Shape` (training); centre crop behaviour at test is nnabla-defined.",
        (
            INPUT,
            prop("Shape", PINT_ARRAY, "*Input", canvas=True, arg="random_crop_param.shape"),
            prop("BaseAxis", UINT, "0", computed=True, arg="random_crop_param.base_axis -a"),
            prop("Seed", INT, "-1", arg="random_crop_param.seed"),
            output("*Shape"),
        ),
        function="random_crop",
    ),
    layer(
        "RandomFlip",
        CATEGORY,
        "Random flip along `Axes` in training; skipped at test when SkipAtTest is true.",
        (
            INPUT,
            prop("Axes", UINT_ARRAY, "0", canvas=True, arg="random_flip_param.axes -a"),
            prop("BaseAxis", UINT, "0", computed=True, arg="random_flip_param.base_axis -a"),
            prop("Seed", INT, "-1", arg="random_flip_param.seed"),
            SKIP_AT_TEST,
            output(),
        ),
        function="random_flip",
    ),
    layer(
        "RandomShift",
        CATEGORY,
        "Random shift of up to `Shift` pixels in training.",
        (
            INPUT,
            prop("Shift", INT_ARRAY, "0,0", canvas=True, arg="random_shift_param.shifts -r"),
            prop(
                "BorderMode",
                OPTION,
                "nearest",
                options=("nearest", "reflect"),
                canvas=True,
                arg="random_shift_param.border_mode",
            ),
            prop("BaseAxis", UINT, "0", computed=True, arg="random_shift_param.base_axis -a"),
            prop("Seed", INT, "-1", arg="random_shift_param.seed"),
            SKIP_AT_TEST,
            output(),
        ),
        function="random_shift",
    ),
    layer(
        "RandomErase",
        CATEGORY,
        "Random erasing (cutout-style) of rectangles in training.",
        (
            INPUT,
            prop("Prob", FLOAT, "0.5", canvas=True, arg="random_erase_param.prob -r"),
            prop("AreaRatios", FLOAT_ARRAY, "0.02,0.4", arg="random_erase_param.area_ratios -r"),
            prop(
                "AspectRatios",
                FLOAT_ARRAY,
                "0.3,3.3333",
                arg="random_erase_param.aspect_ratios -r",
            ),
            prop("Replacements", FLOAT_ARRAY, "0.0,1.0", arg="random_erase_param.replacements -r"),
            prop("N", PINT, "1", arg="random_erase_param.n"),
            prop("Share", BOOLEAN, "True", arg="random_erase_param.share"),
            prop("InPlace", BOOLEAN_OR_MACRO, "*AutoInPlaceOnce", arg="random_erase_param.inplace"),
            prop("BaseAxis", UINT, "0", computed=True, arg="random_erase_param.base_axis -a"),
            prop("Seed", INT, "-1", arg="random_erase_param.seed"),
            prop("ChannelLast", BOOLEAN, "False", arg="random_erase_param.channel_last"),
            prop("STEFineGrained", BOOLEAN, "True", arg="random_erase_param.ste_fine_grained"),
            SKIP_AT_TEST,
            output(),
        ),
        function="random_erase",
    ),
    layer(
        "MeanSubtraction",
        CATEGORY,
        "Subtracts a running mean that is updated during training (t counts the updates).",
        (
            INPUT,
            prop("BaseAxis", UINT, "0", arg="mean_subtraction_param.base_axis -a"),
            prop(
                "UpdateRunningMean",
                BOOLEAN,
                "True",
                arg="mean_subtraction_param.update_running_mean -test=False",
            ),
            PARAMETER_SCOPE,
            *param_props("mean", "Constant", BIAS_INIT, multiplier="0.0", lr="0.0"),
            *param_props("t", "Constant", BIAS_INIT, multiplier="0.0", lr="0.0"),
            output(),
        ),
        connectors=(
            param("mean", "*RunningMeanShape"),
            param("t", "1"),
        ),
        costs={
            "CostAdd": "*Calc +*Input",
        },
        function="mean_subtraction",
        fn_scope="mean_subtraction",
    ),
    layer(
        "ImageAugmentation",
        CATEGORY,
        (
            "Random geometric and photometric image augmentation in training; skipped at test when"
            " SkipAtTest is true."
        ),
        (
            INPUT,
            prop("Shape", PINT_ARRAY, "*Input", canvas=True, arg="image_augmentation_param.shape"),
            prop("Pad", UINT_ARRAY, "0,0", arg="image_augmentation_param.pad"),
            prop("MinScale", FLOAT, "1.0", arg="image_augmentation_param.min_scale"),
            prop("MaxScale", FLOAT, "1.0", arg="image_augmentation_param.max_scale"),
            prop("Angle", FLOAT, "0.0", arg="image_augmentation_param.angle"),
            prop("AspectRatio", FLOAT, "1.0", arg="image_augmentation_param.aspect_ratio"),
            prop("Distortion", FLOAT, "0.0", arg="image_augmentation_param.distortion"),
            prop("FlipLR", BOOLEAN, "False", arg="image_augmentation_param.flip_lr"),
            prop("FlipUD", BOOLEAN, "False", arg="image_augmentation_param.flip_ud"),
            prop("Brightness", FLOAT, "0.0", arg="image_augmentation_param.brightness"),
            prop(
                "BrightnessEach",
                BOOLEAN,
                "False",
                arg="image_augmentation_param.brightness_each",
            ),
            prop("Contrast", FLOAT, "1.0", arg="image_augmentation_param.contrast"),
            prop("ContrastCenter", FLOAT, "0.5", arg="image_augmentation_param.contrast_center"),
            prop("ContrastEach", BOOLEAN, "False", arg="image_augmentation_param.contrast_each"),
            prop("Noise", FLOAT, "0.0", arg="image_augmentation_param.noise"),
            prop("Seed", INT, "-1", arg="image_augmentation_param.seed"),
            SKIP_AT_TEST,
            output("*Shape"),
        ),
        function="image_augmentation",
    ),
)
