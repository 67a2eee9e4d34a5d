"""Dataset URIs: built-in names, NNC sample URIs, CSV paths."""

from __future__ import annotations

import pytest

from engine.data import DatasetError
from engine.runtime.datasets import builtin_uri, resolve_uri


def test_builtin_uri_generates_the_dataset(tmp_path):
    path = resolve_uri(builtin_uri("iris", "validation"), None)
    assert path.name == "iris_validation.csv" and path.is_file()
    assert str(path).startswith(str(tmp_path / "user-cache"))  # NEUROCANVAS_CACHE
    assert resolve_uri("builtin:iris", None).name == "iris_training.csv"


def test_nnc_sample_uri_maps_to_builtin():
    uri = "{SDCPATH}samples\\sample_dataset\\iris\\iris_flower_dataset_validation_delo.csv"
    assert resolve_uri(uri, None).name == "iris_validation.csv"


def test_relative_paths_and_errors(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "t.csv").write_text("x,y\n1,2\n")
    assert resolve_uri("data\\t.csv", tmp_path) == tmp_path / "data" / "t.csv"
    with pytest.raises(DatasetError, match=r'dataset "Training": the dataset CSV .*nope.csv does'):
        resolve_uri("nope.csv", tmp_path, dataset="Training")
    with pytest.raises(DatasetError, match=r"the split must be training or validation"):
        resolve_uri("builtin:iris/test", None)
    with pytest.raises(DatasetError, match=r"unknown built-in dataset 'nope'"):
        resolve_uri("builtin:nope/training", None)
