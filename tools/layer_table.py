"""Print the README's layer table from the catalogue (``python tools/layer_table.py``).

tests/test_readme.py checks that the README holds exactly this table, so the README cannot drift
from the catalogue.
"""

from __future__ import annotations

from engine.layers import palette
from engine.layers.spec import Support

_SUPPORT = {
    Support.KERNEL: "runs",
    Support.GRAPH: "runs (graph construct)",
    Support.ANNOTATION: "setting / annotation",
    Support.UNSUPPORTED: "shapes and statistics only",
}


def layer_table() -> str:
    rows = ["| NNC category | Layer (`F.` function) | Engine |", "|---|---|---|"]
    for category, specs in palette():
        groups: dict[str, list[str]] = {}
        for spec in specs:
            name = f"{spec.type} (`{spec.function}`)" if spec.function else spec.type
            groups.setdefault(_SUPPORT[spec.support], []).append(name)
        for support, names in groups.items():
            rows.append(f"| {category} | {', '.join(names)} | {support} |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    print(layer_table(), end="")
