"""The network picture without Qt: boxes at the project's positions, split when too tall."""

from __future__ import annotations

import io
from dataclasses import replace

import numpy as np
from PIL import Image
from runtime_kit import chain, layer

from engine.graph.network import Network
from engine.report import layout as g
from engine.report.network_picture import MIN_ZOOM, PX_PER_INCH, draw_network


def tall_chain(n: int) -> Network:
    layers = [layer("Input", "Input", Size=(1, 8))]
    layers += [layer(f"Affine_{k}", "Affine", OutShape=4) for k in range(1, n)]
    # Sony's vertical pitch: one layer per 48-unit grid row
    layers = [replace(item, position=(24, 24 + 48 * k)) for k, item in enumerate(layers)]
    return Network("Main", layers, chain(*[item.name for item in layers]))


def test_a_short_network_is_one_picture_of_every_layer():
    net = tall_chain(5)
    (picture,) = draw_network(net, {"Input": (1, 8)}, 7.0, 5.9)
    assert picture.layers == tuple(item.name for item in net.layers)
    assert picture.height <= 5.9 and picture.width <= 7.0
    image = np.asarray(Image.open(io.BytesIO(picture.png)).convert("RGB"))
    # The type colour stripes are drawn: the IO green of Input and the Affine blue.
    colours = {tuple(int(v) for v in px) for px in image.reshape(-1, 3)}
    assert (0x5B, 0x9E, 0x5B) in colours


def test_a_tall_network_is_split_between_rows_and_stays_legible():
    net = tall_chain(40)
    pictures = draw_network(net, {}, 7.0, 5.9)
    assert len(pictures) > 1
    shown = [name for p in pictures for name in p.layers]
    assert shown == [item.name for item in net.layers]  # each layer once, in order
    for p in pictures:
        assert p.height <= 5.9 + 1e-9
        rows = len(p.layers)
        # zoom = inches per scene px x 96: the boxes are drawn at MIN_ZOOM or larger
        assert p.height * PX_PER_INCH / (rows * g.CELL_H) >= MIN_ZOOM * 0.95
