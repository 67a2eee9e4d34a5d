"""Errors that a layer's declarations raise for the code above them.

``ExportError`` lives here, at the floor of its lowest user: the layers' ONNX rules raise it,
and the writers above them (NNP, ONNX, Python, C) raise and catch it.
"""

from __future__ import annotations

__all__ = ["ExportError"]


class ExportError(ValueError):
    """A network that cannot be exported; the message names the network and the layer."""
