"""Where the tests find NNC's sample projects: an unmodified copy in tests/fixtures/nnc-samples
(Apache-2.0, see its NOTICE.md), so a clean clone tests without anything outside the repository."""

from pathlib import Path

SAMPLES_DIR = Path(__file__).resolve().parent / "fixtures" / "nnc-samples"
LENET = SAMPLES_DIR / "image_recognition" / "MNIST" / "LeNet.sdcproj"
ALL_SAMPLES = sorted(SAMPLES_DIR.rglob("*.sdcproj"))
# NNC's loops: recurrent tutorials (RecurrentInput, Delay, LSTM) and repeat blocks.
LOOP_SAMPLES = [
    *sorted((SAMPLES_DIR / "tutorial" / "recurrent_neural_networks").glob("*.sdcproj")),
    SAMPLES_DIR / "tutorial" / "basics" / "12_residual_learning.sdcproj",
    SAMPLES_DIR / "image_recognition" / "CIFAR10" / "resnet" / "resnet-110.sdcproj",
]
