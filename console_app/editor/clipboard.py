"""Copy and paste of layers as plain JSON text (no Qt, no code execution).

``copy_layers`` writes the selected layers and the links among them; ``paste_layers`` adds them
to any network of the project as one undo step, renaming where a name is taken (NNC's ``_2``)
and shifting them until they do not sit on existing layers.
"""

from __future__ import annotations

import json
import re
from typing import Any

from console_app.document import Document
from engine.core.messages import QT_TRANSLATE_NOOP
from engine.graph import commands as C
from engine.graph.project import Layer, Link, ModelError, Network

FORMAT = "neurocanvas-layers"
STEP = 48.0  # file units: one grid row/column of Sony's samples


def copy_layers(network: Network, names: list[str]) -> str:
    chosen = [network.layer(n) for n in network.layer_names if n in set(names)]
    inside = {layer.name for layer in chosen}
    data = {
        "format": FORMAT,
        "version": 1,
        "layers": [
            {
                "name": layer.name,
                "type": layer.type,
                "properties": dict(layer.properties),
                "position": list(layer.position),
            }
            for layer in chosen
        ],
        "links": [
            {"source": k.source, "destination": k.destination, "dest_pin": k.dest_pin}
            for k in network.links
            if k.source in inside and k.destination in inside
        ],
    }
    return json.dumps(data, indent=1)


def parse_clipboard(text: str) -> dict[str, Any] | None:
    """The copied layers, or None when the text is not something NeuroCanvas copied."""
    try:
        data = json.loads(text)
    except (ValueError, TypeError):
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return None
    layers, links = data.get("layers"), data.get("links", [])
    if not isinstance(layers, list) or not isinstance(links, list):
        return None
    for item in layers:
        if not (
            isinstance(item, dict)
            and isinstance(item.get("name"), str)
            and isinstance(item.get("type"), str)
            and isinstance(item.get("properties", {}), dict)
            and all(isinstance(v, str) for v in item.get("properties", {}).values())
        ):
            return None
    return data


def paste_layers(document: Document, network: Network, text: str) -> list[str]:
    """Add the copied layers to ``network`` (one undo step); returns their new names."""
    data = parse_clipboard(text)
    if data is None:
        raise ModelError("the clipboard holds no layers")
    offset = _free_offset(network, data["layers"])
    renamed: dict[str, str] = {}
    with document.macro(QT_TRANSLATE_NOOP("Commands", "Paste")):
        for item in data["layers"]:
            x, y = _position(item)
            name = _free_name(network, item["name"])
            layer = Layer(name, item["type"], dict(item.get("properties", {})),
                          position=(x + offset, y + offset))  # fmt: skip
            document.push(C.AddLayer(network, layer))
            renamed[item["name"]] = name
        for k in data["links"]:
            source, dest = renamed.get(k.get("source")), renamed.get(k.get("destination"))
            pin = k.get("dest_pin", 0)
            if source and dest and isinstance(pin, int):
                document.push(C.Connect(network, Link(source, dest, pin)))
    return list(renamed.values())


def _free_name(network: Network, name: str) -> str:
    """The name if free, else NNC's next ``<base>_<k>`` (``ReLU_2`` pasted again: ``ReLU_3``)."""
    if not network.has_layer(name):
        return name
    return network.unique_name(re.sub(r"_\d+$", "", name) or name)


def _position(item: dict[str, Any]) -> tuple[float, float]:
    pos = item.get("position", [0, 0])
    try:
        return float(pos[0]), float(pos[1])
    except (TypeError, ValueError, IndexError):
        return 0.0, 0.0


def _free_offset(network: Network, layers: list[dict[str, Any]]) -> float:
    """The smallest diagonal shift (in steps) at which no pasted layer covers an existing one."""
    taken = {(round(layer.position[0]), round(layer.position[1])) for layer in network.layers}
    wanted = [_position(item) for item in layers]
    shift = 0.0
    while any((round(x + shift), round(y + shift)) in taken for x, y in wanted):
        shift += STEP
    return shift
