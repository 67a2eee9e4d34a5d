"""The layer catalogue: one frozen :class:`LayerSpec` per NNC layer type (see registry)."""

from engine.layers.registry import all_specs, find_spec, get_spec, palette
from engine.layers.spec import LayerSpec

__all__ = ["LayerSpec", "all_specs", "find_spec", "get_spec", "palette"]
