"""Setting: Import, TestNetwork, StructureSearch.

Declarations follow docs/layers.md §4.21
(Sony's ``Setting/*.txt``).
"""

from __future__ import annotations

from engine.layers.declare import (
    Component,
    Inputs,
    Outputs,
    Support,
    layer,
    prop,
)
from engine.layers.property_types import (
    BOOLEAN,
    TEXT,
)

CATEGORY = "Setting"

SPECS = (
    layer(
        "Import",
        CATEGORY,
        "Setting layer: imports the layers of another network into this one (uncertain).",
        (prop("Network", TEXT, canvas=True, short="Net"),),
        costs={
            "CostParameter": "0",
            "CostAdd": "0",
            "CostMultiply": "0",
            "CostMultiplyAdd": "0",
            "CostDivision": "0",
            "CostExp": "0",
            "CostIf": "0",
        },
        support=Support.ANNOTATION,
        inputs=Inputs.NONE,
        outputs=Outputs.NONE,
        component=Component.SETTING,
        is_param=False,
    ),
    layer(
        "TestNetwork",
        CATEGORY,
        (
            "Setting layer: when ModifyForTesting is true, the network is rewritten for testing "
            "(SkipAtTest layers removed, BatchStat set to False)."
        ),
        (prop("ModifyForTesting", BOOLEAN, "True", canvas=True),),
        support=Support.ANNOTATION,
        inputs=Inputs.NONE,
        outputs=Outputs.NONE,
        component=Component.SETTING,
        is_param=False,
    ),
    layer(
        "StructureSearch",
        CATEGORY,
        "Setting layer: Search=False excludes this network from automatic structure search.",
        (prop("Search", BOOLEAN, "True", canvas=True),),
        support=Support.ANNOTATION,
        inputs=Inputs.NONE,
        outputs=Outputs.NONE,
        component=Component.SETTING,
        is_param=False,
    ),
)
