"""Where the tests find NNC's sample projects: an unmodified copy in tests/fixtures/nnc-samples
(Apache-2.0, see its NOTICE.md), so a clean clone tests without anything outside the repository."""

import csv
from pathlib import Path

from runtime_kit import write_csv

SAMPLES_DIR = Path(__file__).resolve().parent / "fixtures" / "nnc-samples"
LENET = SAMPLES_DIR / "image_recognition" / "MNIST" / "LeNet.sdcproj"
VAT = SAMPLES_DIR / "image_recognition" / "MNIST" / "semi_supervised_learning_VAT.sdcproj"
ALL_SAMPLES = sorted(SAMPLES_DIR.rglob("*.sdcproj"))
# NNC's loops: recurrent tutorials (RecurrentInput, Delay, LSTM) and repeat blocks.
LOOP_SAMPLES = [
    *sorted((SAMPLES_DIR / "tutorial" / "recurrent_neural_networks").glob("*.sdcproj")),
    SAMPLES_DIR / "tutorial" / "basics" / "12_residual_learning.sdcproj",
    SAMPLES_DIR / "image_recognition" / "CIFAR10" / "resnet" / "resnet-110.sdcproj",
]


def vat_on_digits(folder: Path) -> Path:
    """NNC's VAT sample (two executors) with its three datasets replaced by rows of digits.

    The sample reads MNIST (``mnist_training_100.csv``, ``mnist_training_unlabeled.csv``, a
    download); the built-in ``digits`` has the same layout (``x:image`` 1x28x28, 10 classes),
    so it runs unchanged on 100 labeled rows, 300 unlabeled ones (column ``xu``) and 150
    validation rows (one full batch of 100 and a partial one of 50).
    """
    from engine.data import builtin  # test helpers import the engine lazily
    from engine.formats import load_project, save_project

    digits = builtin.ensure("digits", root=folder / "cache")
    train, valid = _rows(digits["training"]), _rows(digits["validation"])
    uris = {
        "Labeled": write_csv(folder / "labeled.csv", ["x:image", "y:label"], train[:100]),
        "Unlabeled": write_csv(folder / "unlabeled.csv", ["xu:image"],
                            [[r[0]] for r in train[100:400]]),
        "Validation": write_csv(folder / "valid.csv", ["x:image", "y:label"], valid[:150]),
    }  # fmt: skip
    project = load_project(VAT)
    for i, dataset in enumerate(project.datasets):
        project.replace_section(("datasets", i), dataset.with_value("URI", str(uris[dataset.name])))
    save_project(project, folder / "vat.sdcproj")
    return folder / "vat.sdcproj"


def _rows(path: Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))[1:]
    return [[str(path.parent / r[0]), r[1]] for r in rows]
