"""Parameter names (docs/layers.md §1.7).

Parameter names are ``[unit scopes/]<ParameterScope>[{repeat ids}]/<fn scope>/<param>``
(:func:`parameter_name`); equal names mean shared parameters.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.layers.spec import LayerSpec, ParameterSpec

__all__ = [
    "parameter_name",
]


# MinMaxQuantize has no [Global] ParameterScope, so NNC names its parameters /r, /R, /l, /L and
# two such layers collide (quirk 6). NeuroCanvas scopes them like engine.nn.parametric does.
_MIN_MAX_NAMES = {"r": "qr_min", "R": "qr_max", "l": "ql_min", "L": "ql_max"}


def parameter_name(
    spec: LayerSpec,
    layer: str,
    scope: str,
    param: ParameterSpec | None,
    unit_scopes: Iterable[str] = (),
    repeat_ids: Iterable[str] = (),
) -> str:
    """The full parameter name, e.g. ``SE1/Squeeze/conv/W`` or ``Conv{RepeatStart}/conv/W``.

    ``scope`` is the layer's resolved ParameterScope; ``unit_scopes`` the non-empty
    ParameterScopes of the enclosing Unit layers, outermost first. ``param`` is None for the
    layers that are a parameter themselves (Parameter, WorkingMemory): they are named after
    the layer.
    """
    prefix = [s for s in unit_scopes if s]
    ids = "".join(f"{{{i}}}" for i in repeat_ids)
    if param is None:
        return "/".join([*prefix, layer + ids])
    if spec.type == "MinMaxQuantize":
        return "/".join([*prefix, layer + ids, "min_max_quantize", _MIN_MAX_NAMES[param.name]])
    if param.path:  # LSTM: fixed paths inside the built-in unit
        return "/".join([*prefix, *([scope + ids] if scope else []), param.path])
    parts = [*prefix, *([scope + ids] if scope or ids else []), spec.fn_scope or "", param.name]
    return "/".join(p for p in parts if p)
