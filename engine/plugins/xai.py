"""Gradient explanations of one image's class score: Grad-CAM, SmoothGrad, Integrated Gradients.

``mode="nnc"`` Grad-CAM is the NNC plugin's: ReLU of each channel's activation weighted by its
mean gradient, averaged over channels, scaled to [0, 1]. ``mode="paper"`` is Selvaraju et
al.'s (and Captum's ``LayerGradCam``): ReLU of the weighted sum over channels, unscaled.
SmoothGrad (Smilkov et al.) averages ``|d score / d input|`` over noisy copies of the input,
noise ~ N(0, (noise_level * (max - min))^2); ``noise`` may be given (tests pass Captum's draw).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

from engine.core import optional
from engine.plugins.model import JobModel, PluginError

matplotlib = optional.lazy("matplotlib")  # only plugins that draw need it

__all__ = ["grad_cam", "integrated_gradients", "overlay", "save_overlay", "smooth_grad"]


def _one_hot(index: int):  # type: ignore[no-untyped-def]
    def seed(value: np.ndarray) -> np.ndarray:
        flat = value.reshape(value.shape[0], -1)
        if not 0 <= index < flat.shape[1]:
            raise PluginError(f"--class_index {index}: the output has {flat.shape[1]} classes "
                              f"(0 to {flat.shape[1] - 1})")  # fmt: skip
        g = np.zeros_like(flat)
        g[:, index] = 1.0
        return g.reshape(value.shape)

    return seed


def grad_cam(
    model: JobModel,
    image: np.ndarray,
    class_index: int,
    output: str = "y'",
    layer: str | None = None,
    mode: str = "nnc",
) -> np.ndarray:
    """The (H', W') class activation map at ``layer`` (default: the last Convolution)."""
    if layer is None:
        convs = model.layers("Convolution") + model.layers("DepthwiseConvolution")
        if not convs:
            raise PluginError(f"network {model.program.network!r} has no Convolution layer; "
                              f"Grad-CAM needs one")  # fmt: skip
        layer = [s.name for s in model.program.steps if s.name in convs][-1]
    key = model.variable(output, "--output_variable")
    layer_key = model.variable(layer, "--layer")
    _, [(act, grad)] = model.gradient(image[None], key, _one_hot(class_index), [layer_key])
    if act.ndim != 4:
        raise PluginError(f"layer {layer!r} output has shape {act.shape[1:]}; Grad-CAM needs "
                          f"a (C, H, W) map")  # fmt: skip
    if mode == "paper":
        weights = grad.mean(axis=(2, 3), keepdims=True)
        return np.maximum((weights * act).sum(axis=1), 0.0)[0]
    weights = grad.mean(axis=(0, 2, 3), keepdims=True)
    cam = np.maximum(weights * act, 0.0).mean(axis=(0, 1))
    low, high = cam.min(), cam.max()
    return (cam - low) / (high - low) if high > low else cam


def _input_gradients(model: JobModel, x: np.ndarray, output: str, class_index: int) -> np.ndarray:
    key = model.variable(output, "--output_variable")
    _, [(_, grad)] = model.gradient(x, key, _one_hot(class_index), [f"feed:{model.input}"])
    return grad


def smooth_grad(
    model: JobModel,
    image: np.ndarray,
    class_index: int,
    output: str = "y'",
    *,
    samples: int = 25,
    noise_level: float = 0.15,
    seed: int = 0,
    noise: np.ndarray | None = None,
    absolute: bool = True,
) -> np.ndarray:
    """Mean (absolute) input gradient over noisy copies of ``image``: shape of the input."""
    if noise is None:
        sigma = noise_level * float(image.max() - image.min())
        noise = np.random.default_rng(seed).normal(0.0, sigma, (samples, *image.shape))
    grads = _input_gradients(model, image[None] + noise, output, class_index)
    grads = np.abs(grads) if absolute else grads
    return grads.mean(axis=0)


def integrated_gradients(
    model: JobModel,
    image: np.ndarray,
    class_index: int,
    output: str = "y'",
    *,
    steps: int = 50,
    baseline: np.ndarray | None = None,
) -> np.ndarray:
    """(x - baseline) times the mean gradient along the straight path (Gauss-Legendre points,
    as Captum's default method)."""
    baseline = np.zeros_like(image) if baseline is None else baseline
    points, weights = np.polynomial.legendre.leggauss(steps)
    alphas, weights = (points + 1) / 2, weights / 2
    path = baseline[None] + alphas.reshape(-1, *([1] * image.ndim)) * (image - baseline)[None]
    grads = _input_gradients(model, path, output, class_index)
    total = (grads * weights.reshape(-1, *([1] * image.ndim))).sum(axis=0)
    return (image - baseline) * total


def overlay(image: np.ndarray, heat: np.ndarray, alpha: float = 0.5) -> np.ndarray:
    """An (H, W, 3) uint8 picture: ``heat`` (any size, scaled to [0, 1]) in the jet colormap
    resized over the grey or colour ``image`` (C, H, W) in [0, 1]."""
    picture = image if image.ndim == 3 else image[None]
    if picture.shape[0] == 1:
        picture = np.repeat(picture, 3, axis=0)
    picture = np.clip(picture[:3].transpose(1, 2, 0), 0.0, 1.0)
    h, w = picture.shape[:2]
    low, high = float(heat.min()), float(heat.max())
    scaled = (heat - low) / (high - low) if high > low else np.zeros_like(heat)
    resized = Image.fromarray(scaled.astype(np.float32), mode="F").resize((w, h), Image.BILINEAR)
    colours = matplotlib.colormaps["jet"](np.asarray(resized))[..., :3]
    return (255 * ((1 - alpha) * picture + alpha * colours)).round().astype(np.uint8)


def save_overlay(path: str | Path, image: np.ndarray, heat: np.ndarray, scale: int = 1) -> None:
    picture = Image.fromarray(overlay(image, heat))
    if scale > 1:
        picture = picture.resize((picture.width * scale, picture.height * scale), Image.NEAREST)
    picture.save(path)
