"""Grad-CAM, SmoothGrad and Integrated Gradients on the default project's trained LeNet:
against Captum on a PyTorch twin built from the job's parameters (torch and captum are the
``xai-check`` extra that .ci/run installs), against finite differences, and as plugins run
from the CLI on a misclassified digit."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
from PIL import Image
from plugin_kit import cli

from engine.plugins import JobModel, xai


def _rows(job):
    rows = list(csv.reader(open(job / "output_result.csv")))
    return rows[0], rows[1:]


def _misclassified(job):
    header, rows = _rows(job)
    for k, r in enumerate(rows):
        scores = [float(v) for v in r[2:12]]
        if int(np.argmax(scores)) != int(r[1]):
            return k, r, int(np.argmax(scores))
    raise AssertionError("every digit right: no mistake to explain")


def test_input_gradient_matches_finite_differences(lenet_job):
    model = JobModel(lenet_job)
    header, rows = _rows(lenet_job)
    image = model.row_input(header, rows[0]).astype(np.float64)
    score = model.class_score("y'", 3)
    grad = xai.smooth_grad(model, image, 3, noise=np.zeros((1, *image.shape)), absolute=False)
    rng = np.random.default_rng(0)
    for _ in range(6):
        c, i, j = 0, *rng.integers(8, 20, 2)
        step = np.zeros_like(image)
        step[c, i, j] = 1e-2
        up, down = score((image + step)[None]), score((image - step)[None])
        assert grad[c, i, j] == pytest.approx((up[0] - down[0]) / 2e-2, rel=0.05, abs=2e-4)


def test_grad_cam_and_smoothgrad_plugins_on_a_misclassified_digit(lenet_job):
    row, cells, predicted = _misclassified(lenet_job)
    for name, png in (("Grad-CAM", "grad_cam.png"), ("SmoothGrad", "smoothgrad.png")):
        done = cli("plugin", "run", name, str(lenet_job), "--row", str(row))
        assert done.returncode == 0, done.stderr
        folder = max((lenet_job / "plugin_results").glob(f"{name.lower().replace('-', '')}_*"))
        record = json.loads((folder / "plugin.json").read_text())
        args = record["arguments"]
        assert args[args.index("--image") + 1] == cells[0]  # the row's digit
        assert args[args.index("--class_index") + 1] == str(predicted)  # the class it chose
        picture = np.asarray(Image.open(folder / png))
        assert picture.shape == (112, 112, 3) and picture.std() > 10


# -- Captum ---------------------------------------------------------------------------------


def _twin(model):
    torch = pytest.importorskip("torch", reason="torch is the xai-check extra (.ci/run)")
    nn = torch.nn
    p = {k: torch.tensor(v.d.astype(np.float64)) for k, v in model.params.items()}

    class LeNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 16, 7)
            self.conv2 = nn.Conv2d(16, 30, 3)
            self.fc1 = nn.Linear(480, 150)
            self.fc2 = nn.Linear(150, 10)
            with torch.no_grad():
                for layer, name in ((self.conv1, "Convolution/conv"),
                                    (self.conv2, "Convolution_2/conv")):  # fmt: skip
                    layer.weight.copy_(p[f"{name}/W"])
                    layer.bias.copy_(p[f"{name}/b"])
                for layer, name in ((self.fc1, "Affine/affine"), (self.fc2, "Affine_2/affine")):
                    layer.weight.copy_(p[f"{name}/W"].T)  # nnabla's affine W is (in, out)
                    layer.bias.copy_(p[f"{name}/b"])

        def forward(self, x):
            f = torch.nn.functional
            x = f.max_pool2d(f.relu(self.conv1(x)), 2)
            x = torch.tanh(f.max_pool2d(self.conv2(x), 2))
            x = f.relu(self.fc1(x.flatten(1)))
            return f.softmax(self.fc2(x), dim=1)

    return torch, LeNet().double().eval()


@pytest.fixture(scope="module")
def twin(lenet_job):
    pytest.importorskip("captum", reason="captum is the xai-check extra (.ci/run)")
    model = JobModel(lenet_job)
    torch, net = _twin(model)
    header, rows = _rows(lenet_job)
    row, cells, predicted = _misclassified(lenet_job)
    image = model.row_input(header, cells)
    x = torch.tensor(image[None].astype(np.float64))
    ours = model.class_score("y'", predicted)(image[None])[0]
    assert net(x)[0, predicted].item() == pytest.approx(ours, abs=1e-5)  # the same network
    return torch, net, model, image, x, predicted


def test_grad_cam_matches_captum(twin):
    from captum.attr import LayerGradCam

    torch, net, model, image, x, cls = twin
    theirs = LayerGradCam(net, net.conv2).attribute(x, target=cls, relu_attributions=True)
    ours = xai.grad_cam(model, image, cls, mode="paper")
    assert ours.shape == tuple(theirs.shape[2:])
    np.testing.assert_allclose(ours, theirs[0, 0].detach().numpy(), atol=1e-4)
    assert ours.max() > 1e-3
    nnc = xai.grad_cam(model, image, cls)  # NNC's: per-channel ReLU, scaled to [0, 1]
    assert nnc.min() == 0.0 and nnc.max() == pytest.approx(1.0)


def test_smoothgrad_matches_captum_with_its_noise(twin):
    from captum.attr import NoiseTunnel, Saliency

    torch, net, model, image, x, cls = twin
    sigma, n = 0.15, 8
    torch.manual_seed(5)
    noise = torch.normal(0, torch.tensor(sigma).repeat((n, *x.shape[1:])))  # as Captum draws
    torch.manual_seed(5)  # Captum draws the same noise
    theirs = NoiseTunnel(Saliency(net)).attribute(
        x, nt_type="smoothgrad", nt_samples=n, nt_samples_batch_size=n, stdevs=sigma, target=cls
    )
    ours = xai.smooth_grad(model, image, cls, noise=noise.numpy())
    np.testing.assert_allclose(ours, theirs[0].detach().numpy(), atol=1e-4)
    assert ours.max() > 1e-3


def test_integrated_gradients_match_captum(twin):
    from captum.attr import IntegratedGradients

    torch, net, model, image, x, cls = twin
    theirs = IntegratedGradients(net).attribute(x, target=cls, n_steps=50)
    ours = xai.integrated_gradients(model, image, cls, steps=50)
    np.testing.assert_allclose(ours, theirs[0].detach().numpy(), atol=1e-4)
    # completeness: the attributions add up to f(x) - f(baseline)
    score = model.class_score("y'", cls)
    gap = score(image[None])[0] - score(np.zeros_like(image)[None])[0]
    assert ours.sum() == pytest.approx(gap, abs=2e-3)
