"""Loss: SquaredError, HuberLoss, AbsoluteError, EpsilonInsensitiveLoss, BinaryCrossEntropy,
SigmoidCrossEntropy, CategoricalCrossEntropy, SoftmaxCrossEntropy, KLMultinomial.

Declarations follow docs/layers.md §4.2
(Sony's ``Loss/*.txt``).
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
    FLOAT,
    UINT,
    UINT_ARRAY,
)

CATEGORY = "Loss"

SPECS = (
    layer(
        "SquaredError",
        CATEGORY,
        (
            "Element-wise (x - t)^2. Loss layer. The mean over all elements and the batch is taken"
            " by the trainer, not by the layer."
        ),
        (
            INPUT,
            *data_props("T", dataset="y", generator="None", canvas=True),
            output(),
            IS_LOSS,
        ),
        connectors=(data("T"),),
        function="squared_error",
    ),
    layer(
        "HuberLoss",
        CATEGORY,
        (
            "Element-wise Huber loss: d^2 if |d| < Delta, else Delta(2|d| - Delta), where d = x - "
            "t (nnabla definition)."
        ),
        (
            INPUT,
            prop("Delta", FLOAT, "1.0", arg="huber_loss_param.delta"),
            *data_props("T", dataset="y", generator="None", canvas=True),
            output(),
            IS_LOSS,
        ),
        connectors=(data("T"),),
        function="huber_loss",
    ),
    layer(
        "AbsoluteError",
        CATEGORY,
        "Element-wise |x - t|. Loss layer.",
        (
            INPUT,
            *data_props("T", dataset="y", generator="None", canvas=True),
            output(),
            IS_LOSS,
        ),
        connectors=(data("T"),),
        function="absolute_error",
    ),
    layer(
        "EpsilonInsensitiveLoss",
        CATEGORY,
        "Element-wise max(0, |x - t| - Epsilon). Loss layer.",
        (
            INPUT,
            prop("Epsilon", FLOAT, "0.0", arg="epsilon_insensitive_loss_param.epsilon"),
            *data_props("T", dataset="y", generator="None", canvas=True),
            output(),
            IS_LOSS,
        ),
        connectors=(data("T"),),
        function="epsilon_insensitive_loss",
    ),
    layer(
        "BinaryCrossEntropy",
        CATEGORY,
        (
            "Element-wise -(t ln x + (1 - t) ln(1 - x)). Expects probabilities x in (0,1). Loss "
            "layer."
        ),
        (
            INPUT,
            *data_props("T", dataset="y", generator="None", canvas=True),
            output(),
            IS_LOSS,
        ),
        connectors=(data("T"),),
        function="binary_cross_entropy",
    ),
    layer(
        "SigmoidCrossEntropy",
        CATEGORY,
        "Element-wise binary cross entropy on logits (sigmoid is applied inside). Loss layer.",
        (
            INPUT,
            *data_props("T", dataset="y", generator="None", canvas=True),
            output(),
            IS_LOSS,
        ),
        connectors=(data("T"),),
        costs={
            "CostAdd": "*Calc +*Input",
            "CostDivision": "*Calc +*Input",
            "CostExp": "*Calc +*Input",
        },
        function="sigmoid_cross_entropy",
    ),
    layer(
        "CategoricalCrossEntropy",
        CATEGORY,
        (
            "Cross entropy -ln x[t] along `Axis` for probabilities x and an integer class label t."
            " The Axis dimension collapses to 1. Loss layer."
        ),
        (
            INPUT,
            prop("Axis", UINT, "0", arg="categorical_cross_entropy_param.axis -a"),
            *data_props("T", dataset="y", generator="None", canvas=True),
            output("*CCEOutputSize", UINT_ARRAY),
            IS_LOSS,
        ),
        connectors=(data("T", "*SoftmaxLabelShape"),),
        function="categorical_cross_entropy",
    ),
    layer(
        "SoftmaxCrossEntropy",
        CATEGORY,
        (
            "Softmax along `Axis` followed by categorical cross entropy against an integer label "
            "t. Loss layer."
        ),
        (
            INPUT,
            prop("Axis", UINT, "0", arg="softmax_cross_entropy_param.axis -a"),
            *data_props("T", dataset="y", generator="None", canvas=True),
            output("*CCEOutputSize", UINT_ARRAY),
            IS_LOSS,
        ),
        connectors=(data("T", "*SoftmaxLabelShape"),),
        costs={
            "CostAdd": "*Calc +*Input",
            "CostExp": "*Calc +*Input",
            "CostDivision": "*Calc +*Input",
        },
        function="softmax_cross_entropy",
    ),
    layer(
        "KLMultinomial",
        CATEGORY,
        (
            "KL divergence between multinomial distributions p (input) and q (side input), summed "
            "over the axes after BaseAxis. Output is 1 value per sample. Loss layer."
        ),
        (
            INPUT,
            prop("BaseAxis", UINT, "0", arg="kl_multinomial_param.base_axis -a"),
            *data_props("q", dataset="y", generator="None", canvas=True),
            output("1", UINT),
            IS_LOSS,
        ),
        connectors=(data("q"),),
        function="kl_multinomial",
    ),
)
