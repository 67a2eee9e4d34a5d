"""NNC's ``[Compatible]`` groups: layers that may be swapped for each other in place.

From ``layer_component.txt`` (docs/layers.md §1.1); the editor and structure search read them here.
"""

from __future__ import annotations

COMPATIBLE: tuple[tuple[str, ...], ...] = (
    ("MaxPooling", "AveragePooling"),
    ("Tanh", "ReLU", "PReLU", "LeakyReLU", "ELU", "SELU", "Swish"),
    ("CReLU", "CELU"),
    ("Add2", "Mul2"),
    ("Convolution", "DepthwiseConvolution"),
)


def compatible_with(type_: str) -> tuple[str, ...]:
    """The other layer types of ``type_``'s group (empty when it has none)."""
    for group in COMPATIBLE:
        if type_ in group:
            return tuple(t for t in group if t != type_)
    return ()
