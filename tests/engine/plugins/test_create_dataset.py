"""DATASET > Create Dataset: the pre-process plugins (NNC's Simple Tabular Dataset, Split Image
and its Restore, String Classification) on fixed data with hand-checked numbers, run from the
CLI without a job, read back with the engine's dataset reader (and an independent one), the
tabular dataset trained for an epoch, and bad input: one line, nothing half-written."""

from __future__ import annotations

import csv
import json
import math

import numpy as np
import pytest
from PIL import Image
from plugin_kit import cli

from engine.data import open_dataset
from engine.plugins import create_dataset as cd
from engine.plugins.errors import PluginError

PEOPLE = [
    ["Name", "Address", "Age", "Gender", "Buys"],
    ["a", "Tokyo", "40", "Male", "yes"],
    ["b", "Osaka", "23", "Others", "no"],
    ["c", "Kanagawa", "65", "Female", "yes"],
    ["d", "Tokyo", "30", "Female", "no"],
    ["e", "Osaka", "52", "Male", "yes"],
]
AGE_MEAN, AGE_STD = 42.0, math.sqrt(((-2) ** 2 + 19**2 + 23**2 + 12**2 + 10**2) / 5)  # 15.0864


def _write(path, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
    return path


def _read(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def _source(tmp_path, rows=PEOPLE):
    return cd.read_source(_write(tmp_path / "people.csv", rows))


# -- Simple Tabular Dataset
def test_tabular_standardises_numbers_one_hot_categories_and_indexes_the_objective(tmp_path):
    header, rows, transforms = cd.tabular(_source(tmp_path), objective=["Buys"], comment=["Name"])
    assert header == [
        "# Name",
        "x__0:Address=Kanagawa",
        "x__1:Address=Osaka",
        "x__2:Address=Tokyo",
        "x__3:Age",
        "x__4:Gender=Female",
        "x__5:Gender=Male",
        "x__6:Gender=Others",
        "y__0:Buys",
    ]
    assert [r[1:4] for r in rows] == [[0, 0, 1], [0, 1, 0], [1, 0, 0], [0, 0, 1], [0, 1, 0]]
    assert [r[5:8] for r in rows] == [[0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 1, 0]]
    ages = np.array([r[4] for r in rows])
    assert ages == pytest.approx((np.array([40, 23, 65, 30, 52]) - 42) / AGE_STD, abs=1e-12)
    assert ages.mean() == pytest.approx(0, abs=1e-12) and ages.std() == pytest.approx(1)
    assert [r[8] for r in rows] == [1, 0, 1, 0, 1]  # "no" = 0, "yes" = 1 (sorted categories)
    age = next(t for t in transforms if t.name == "Age")
    assert (age.kind, age.mean, age.std) == ("numeric", 42.0, pytest.approx(15.0864, abs=1e-4))
    assert [t.row() for t in transforms if t.kind == "category"] == [
        ["Address", "category", "Kanagawa", "Osaka", "Tokyo"],
        ["Gender", "category", "Female", "Male", "Others"],
        ["Buys", "category", "no", "yes"],
    ]


def test_sensitive_columns_are_z_and_include_picks_the_explanatory_ones(tmp_path):
    header, rows, _ = cd.tabular(
        _source(tmp_path),
        objective=["Buys"],
        include=["Age"],
        sensitive=["Gender"],
        standardize=False,
    )
    assert header == [
        "x__0:Age",
        "y__0:Buys",
        "z__0:Gender=Female",
        "z__1:Gender=Male",
        "z__2:Gender=Others",
    ]
    assert rows[1] == [23, 0, 0, 0, 1] and isinstance(rows[1][0], int)  # the age as written
    _, rows, _ = cd.tabular(_source(tmp_path), objective=["Age"], comment=["Name"])
    assert [r[-1] for r in rows] == [40, 23, 65, 30, 52]  # a numeric objective stays itself


def test_saved_parameters_apply_the_same_transform_to_new_rows(tmp_path):
    _, _, transforms = cd.tabular(_source(tmp_path), objective=["Buys"], comment=["Name"])
    params = _write(tmp_path / "params.csv", [t.row() for t in transforms])
    new = [PEOPLE[0], ["f", "Osaka", "57.0864", "Female", "no"]]  # 42 + one standard deviation
    source = cd.read_source(_write(tmp_path / "new.csv", new))
    header, rows, _ = cd.tabular(
        source, objective=["Buys"], comment=["Name"], parameters=cd.read_parameters(params)
    )
    assert rows == [["f", 0, 1, 0, pytest.approx(1.0, abs=1e-5), 1, 0, 0, 0]]
    unknown = cd.read_source(
        _write(tmp_path / "odd.csv", [PEOPLE[0], ["g", "Nara", "1", "Male", "no"]])
    )
    with pytest.raises(
        PluginError,
        match=r"odd.csv, line 2, column 'Address': category 'Nara' "
        r"is not one of Kanagawa, Osaka, Tokyo",
    ):
        cd.tabular(
            unknown, objective=["Buys"], comment=["Name"], parameters=cd.read_parameters(params)
        )


def test_split_is_seeded_and_keeps_every_row_once():
    first, second = cd.split_rows(10, 80, 20, True, 3)
    assert (len(first), len(second)) == (8, 2)
    assert sorted(first + second) == list(range(10))
    assert cd.split_rows(10, 80, 20, True, 3) == (first, second)
    assert cd.split_rows(10, 80, 20, True, 4) != (first, second)
    assert cd.split_rows(4, 100, 0, False, 0) == ([0, 1, 2, 3], [])
    with pytest.raises(PluginError, match="sum to 100"):
        cd.split_rows(10, 70, 20, True, 0)


# -- Split Image and Restore
def test_tiles_step_by_patch_minus_twice_the_overlap_and_restore_exactly():
    # 50 x 70, patch 32, overlap 4: the step is 24, tiles start at -4, 20, 44 (3 x 3)
    assert cd.tile_origins(50, 70, 32, 4) == [(t, x) for t in (-4, 20, 44) for x in (-4, 20, 44)]
    assert len(cd.tile_origins(40, 40, 32, 4)) == 4
    image = np.random.default_rng(0).integers(0, 256, (50, 70, 3), dtype=np.uint8)
    tiles = cd.cut_tiles(image, 32, 4)
    top, left, first = tiles[0]
    assert (top, left, first.shape) == (-4, -4, (32, 32, 3))
    assert not first[:4].any() and not first[:, :4].any()  # outside the image: 0
    assert np.array_equal(first[4:, 4:], image[:28, :28])
    assert tiles[4][:2] == (20, 20)  # the middle tile: rows 20 to 51, the image ends at 49
    assert np.array_equal(tiles[4][2][:30], image[20:50, 20:52]) and not tiles[4][2][30:].any()
    assert np.array_equal(cd.restore_image(tiles, 50, 70, 4), image)
    grey = image[:, :, 0]
    assert np.array_equal(cd.restore_image(cd.cut_tiles(grey, 16, 0), 50, 70, 0), grey)
    with pytest.raises(PluginError, match="larger than twice the overlap"):
        cd.tile_origins(50, 70, 8, 4)


# -- String Classification
def test_character_index_by_frequency_and_sequences_padded_with_eos():
    texts = ["(^^)", "(;_;)", ":-)", "(T_T)"]  # NNC's manual's example
    chars = cd.vocabulary(texts, max_length=6, max_characters=256, min_occurrences=2)
    # ) 4 times, ( 3, then ^ ; _ T twice each (first seen first); : and - once: others
    assert chars == ["(EOS)", "(others)", ")", "(", "^", ";", "_", "T"]
    index = {ch: k for k, ch in enumerate(chars) if k >= 2}
    assert cd.encode("(;_;)", index, 6) == (5, [3, 5, 6, 5, 2, 0])
    assert cd.encode(":-)", index, 6) == (3, [1, 1, 2, 0, 0, 0])
    assert cd.encode("(^^^^^^)", index, 6) == (6, [3, 4, 4, 4, 4, 4])
    assert cd.vocabulary(texts, 6, 4, 1) == ["(EOS)", "(others)", ")", "("]


# -- from the CLI, without a job
def test_plugin_list_shows_the_pre_process_plugins_apart():
    done = cli("plugin", "list")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    pre, post = (
        lines.index("Pre-process (DATASET > Create Dataset; no job):"),
        lines.index("Post-process (EVALUATION; on a job):"),
    )
    assert lines[pre + 1 : post] == [
        "Create_Dataset/Simple Tabular Dataset",
        "Create_Dataset/Split Image",
        "Create_Dataset/String Classification",
    ]
    assert "Utils/Restore Split Image" in lines[post:]
    listing = json.loads(cli("plugin", "list", "--json").stdout)
    stages = {p["name"]: p["stage"] for p in listing}
    assert stages["Create_Dataset/Split Image"] == "pre" and stages["XAI/Grad-CAM"] == "post"
    from engine.plugins.protocol import discover

    evaluation = [p.name for p in discover(stage="post")]  # EVALUATION's menu reads these
    assert "Utils/Restore Split Image" in evaluation
    assert not [n for n in evaluation if n.startswith("Create_Dataset/")]


def _table(n=60, seed=0):
    """A table where buying follows age and gender (so an epoch of training learns)."""
    rng = np.random.default_rng(seed)
    rows = [["Name", "Address", "Age", "Gender", "Buys"]]
    for k in range(n):
        age, gender = int(rng.integers(18, 80)), ["Male", "Female", "Others"][k % 3]
        buys = "yes" if age > 45 or gender == "Female" else "no"
        rows.append([f"p{k}", ["Tokyo", "Osaka", "Kanagawa"][k % 3], str(age), gender, buys])
    return rows


def test_tabular_from_the_cli_is_read_back_and_trains_an_epoch(tmp_path):
    import runtime_kit as kit

    from engine.formats import save_project

    source = _write(tmp_path / "people.csv", _table())
    out = tmp_path / "dataset"
    done = cli(
        "plugin",
        "run",
        "Simple Tabular Dataset",
        f"input={source}",
        f"output-dir={out}",
        "objective-variables=Buys",
        "comment-cols=Name",
        "seed=5",
    )
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.iterdir()) == [
        "preprocessing_parameters.csv",
        "train.csv",
        "validation.csv",
    ]
    train, valid = _read(out / "train.csv"), _read(out / "validation.csv")
    assert (len(train), len(valid)) == (49, 13)  # 80 % of 60 rows, and the header
    names = sorted(r[0] for r in train[1:] + valid[1:])
    assert names == sorted(f"p{k}" for k in range(60))  # every row once
    ages = np.array([float(r[4]) for r in train[1:] + valid[1:]])
    assert ages.mean() == pytest.approx(0, abs=1e-9) and ages.std() == pytest.approx(1)
    params = {r[0]: r for r in _read(out / "preprocessing_parameters.csv")}
    raw = np.array([float(r[2]) for r in _table()[1:]])
    assert float(params["Age"][2]) == pytest.approx(raw.mean())
    assert float(params["Age"][3]) == pytest.approx(raw.std())
    with open_dataset(out / "train.csv", cache=False) as data:
        shapes = {v.name: v.shape for v in data.select(None)}
        assert shapes == {"x": (7,), "y": (1,)} and data.size == 48
    layers = [
        kit.layer("Input", "Input", Size=(7,), Dataset="x"),
        kit.layer("Affine", "Affine", OutShape=2),
        kit.layer("Softmax", "Softmax"),
        kit.layer("CategoricalCrossEntropy", "CategoricalCrossEntropy", T__Dataset="y"),
    ]
    project = kit.make_project(
        [kit.network("Main", layers, kit.chain(*(x.name for x in layers)))],
        train=out / "train.csv",
        valid=out / "validation.csv",
        max_epoch=1,
        batch=8,
    )
    save_project(project, tmp_path / "p.ncproj")
    done = cli("train", str(tmp_path / "p.ncproj"), "-o", str(tmp_path / "job"), "--seed", "0")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "job" / "results.nnp").is_file()


def _images(tmp_path):
    rng = np.random.default_rng(1)
    a = rng.integers(0, 256, (50, 70, 3), dtype=np.uint8)
    b = rng.integers(0, 256, (40, 40, 3), dtype=np.uint8)
    Image.fromarray(a).save(tmp_path / "a.png")
    Image.fromarray(b).save(tmp_path / "b.png")
    return _write(
        tmp_path / "images.csv", [["x:image", "y:label"], ["a.png", "0"], ["b.png", "1"]]
    ), {0: a, 1: b}


def test_split_image_tiles_read_back_and_restore_exactly(tmp_path):
    source, originals = _images(tmp_path)
    out = tmp_path / "tiles"
    done = cli(
        "plugin",
        "run",
        "split_image",
        f"input-csv={source}",
        f"output-dir={out}",
        "patch-size1=32",
        "overlap-size1=4",
        "ratio1=100",
        "ratio2=0",
        "shuffle=false",
    )
    assert done.returncode == 0, done.stderr
    rows = _read(out / "train.csv")
    assert rows[0] == [
        "# x:image",
        "y:label",
        "index",
        "x_original_height",
        "x_original_width",
        "x_patch_size",
        "x_overlap_size",
        "x_top",
        "x_left",
        "x:image",
    ]
    assert len(rows) - 1 == 9 + 4  # 3 x 3 tiles of the 50 x 70 image, 2 x 2 of the 40 x 40
    assert [(int(r[7]), int(r[8])) for r in rows[1:10]] == [
        (t, x) for t in (-4, 20, 44) for x in (-4, 20, 44)
    ]
    assert [(int(r[7]), int(r[8])) for r in rows[10:]] == [(-4, -4), (-4, 20), (20, -4), (20, 20)]
    assert rows[1][0] == str(tmp_path / "a.png") and rows[1][2:7] == ["0", "50", "70", "32", "4"]
    middle = np.asarray(Image.open(out / rows[5][9]))  # an independent reader: Pillow
    assert np.array_equal(middle[:30], originals[0][20:50, 20:52]) and not middle[30:].any()
    with open_dataset(out / "train.csv", normalize=False, cache=False) as data:
        assert data.size == 13 and data.variable("x").shape == (3, 32, 32)
        assert np.array_equal(data.load_sample(4)["x"], middle.transpose(2, 0, 1))
    done = cli(
        "plugin",
        "run",
        "restore_split_image",
        str(out),
        "input-csv=train.csv",
        "input-variable=x",
        "height-variable=x_original_height",
        "width-variable=x_original_width",
        "patch-size-variable=x_patch_size",
        "overlap-size-variable=x_overlap_size",
        "top-variable=x_top",
        "left-variable=x_left",
        "inherit-cols=y",
    )
    assert done.returncode == 0, done.stderr
    [result] = (out / "plugin_results").glob("restore_split_image_*")
    restored = _read(result / "restored_images.csv")
    assert restored[0] == ["index", "x:image", "y:label"] and len(restored) == 3
    for index, path, label in restored[1:]:
        image = np.asarray(Image.open(result / path))
        assert np.array_equal(image, originals[int(index)]) and label == index  # exact


def test_string_classification_writes_index_sequences_and_the_vocabulary(tmp_path):
    source = _write(
        tmp_path / "faces.csv",
        [["x:input_text", "y:label"], ["(^^)", "0"], ["(;_;)", "1"], [":-)", "0"], ["(T_T)", "1"]],
    )
    out = tmp_path / "strings"
    done = cli(
        "plugin",
        "run",
        "String Classification",
        f"input={source}",
        f"output-dir={out}",
        "max-length=6",
        "min-occurrences=2",
        "ratio1=100",
        "ratio2=0",
        "shuffle=false",
    )
    assert done.returncode == 0, done.stderr
    assert _read(out / "index.csv") == [
        ["0", "(EOS)"],
        ["1", "(others)"],
        ["2", ")"],
        ["3", "("],
        ["4", "^"],
        ["5", ";"],
        ["6", "_"],
        ["7", "T"],
    ]
    rows = _read(out / "train.csv")
    assert rows[0] == ["# x:input_text", "y:label", "l", *(f"x__{k}" for k in range(6))]
    assert rows[2] == ["(;_;)", "1", "5", "3", "5", "6", "5", "2", "0"]
    assert rows[3] == [":-)", "0", "3", "1", "1", "2", "0", "0", "0"]
    with open_dataset(out / "train.csv", cache=False) as data:
        assert data.variable("x").shape == (6,) and data.size == 4
        assert data.load_sample(1)["x"].tolist() == [3, 5, 6, 5, 2, 0]


# -- bad input: one line naming file/line/column, nothing half-written
def _fails(*args):
    done = cli("plugin", "run", *args)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    return done.stderr.strip()


def test_bad_input_is_one_line_and_leaves_the_output_folder_as_it_was(tmp_path):
    rows = [r[:] for r in PEOPLE]
    rows[3][2] = "sixty"
    source = _write(tmp_path / "people.csv", rows)
    out = tmp_path / "dataset"
    out.mkdir()
    (out / "train.csv").write_text("the old one\n")
    message = _fails(
        "simple_tabular_data",
        f"input={source}",
        f"output-dir={out}",
        "objective-variables=Buys",
        "numeric-variables=Age",
    )
    assert f"{source}, line 4, column 'Age': 'sixty' is not a number" in message
    message = _fails(
        "simple_tabular_data", f"input={source}", f"output-dir={out}", "objective-variables=Bought"
    )
    assert f"{source}: --objective-variables 'Bought': no such column" in message
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no staging
    assert [p.name for p in out.iterdir()] == ["train.csv"]
    assert (out / "train.csv").read_text() == "the old one\n"
    images, _ = _images(tmp_path)
    message = _fails(
        "split_image",
        f"input-csv={images}",
        f"output-dir={tmp_path / 'tiles'}",
        "patch-size1=48",
        "overlap-size1=4",
    )
    assert (
        f"{images}, line 3, column 'x:image': b.png is 40x40 pixels, smaller than a "
        "48-pixel patch" in message
    )
    assert not (tmp_path / "tiles").exists()
    message = _fails("split_image", str(tmp_path))  # a job folder given to a dataset plugin
    assert "creates a dataset and takes no job folder; give output-dir=DIR" in message
