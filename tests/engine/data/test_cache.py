import types

import numpy as np
import pytest

from engine.data import cache
from engine.data.cache import ArraySpec, cache_root, open_or_build


def test_cache_root_environment_then_platform_folders(tmp_path, monkeypatch):
    monkeypatch.setenv("NEUROCANVAS_CACHE", str(tmp_path / "mine"))
    assert cache_root() == tmp_path / "mine"
    monkeypatch.delenv("NEUROCANVAS_CACHE")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setattr(cache, "sys", types.SimpleNamespace(platform="linux"))
    assert cache_root() == tmp_path / ".cache" / "neurocanvas"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_root() == tmp_path / "xdg" / "neurocanvas"
    monkeypatch.setattr(cache, "sys", types.SimpleNamespace(platform="darwin"))
    assert cache_root() == tmp_path / "Library" / "Caches" / "neurocanvas"
    monkeypatch.setattr(cache, "sys", types.SimpleNamespace(platform="win32"))
    monkeypatch.setenv("LOCALAPPDATA", str(tmp_path / "local"))
    assert cache_root() == tmp_path / "local" / "neurocanvas" / "Cache"


def fill_rows(calls):
    def fill(start, stop):
        calls.append((start, stop))
        rows = np.arange(start, stop)
        return {"img": (rows[:, None, None] * np.ones((1, 2, 2))).astype(np.uint8),
                "vec": rows[:, None].astype(np.float32) / 2}  # fmt: skip

    return fill


SPECS = [ArraySpec("img", (2, 2), "uint8"), ArraySpec("vec", (1,), "float32")]


def test_build_in_chunks_then_reuse_memory_mapped(tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "CHUNK_ROWS", 4)
    calls, reports = [], []
    arrays = open_or_build("k1", SPECS, 10, fill_rows(calls), root=tmp_path,
                           progress=lambda done, total: reports.append((done, total)))  # fmt: skip
    assert calls == [(0, 4), (4, 8), (8, 10)]
    assert reports == [(4, 10), (8, 10), (10, 10)]
    assert isinstance(arrays["img"], np.memmap) and arrays["img"].shape == (10, 2, 2)
    np.testing.assert_array_equal(arrays["img"][7], np.full((2, 2), 7))
    np.testing.assert_array_equal(arrays["vec"][:, 0], np.arange(10) / 2)
    again = open_or_build("k1", SPECS, 10, fill_rows(calls), root=tmp_path)
    assert len(calls) == 3  # reused, not rebuilt
    np.testing.assert_array_equal(again["img"], arrays["img"])
    assert [p.name for p in (tmp_path / "arrays").iterdir()] == ["k1"]


def test_failed_build_leaves_nothing(tmp_path):
    def fill(start, stop):
        raise ValueError("bad row")

    with pytest.raises(ValueError, match="bad row"):
        open_or_build("k2", SPECS, 3, fill, root=tmp_path)
    assert list((tmp_path / "arrays").iterdir()) == []


def test_unreadable_cache_is_rebuilt(tmp_path):
    calls = []
    open_or_build("k3", SPECS, 3, fill_rows(calls), root=tmp_path)
    (tmp_path / "arrays" / "k3" / "meta.json").write_text("{broken", encoding="utf-8")
    arrays = open_or_build("k3", SPECS, 3, fill_rows(calls), root=tmp_path)
    assert len(calls) == 2 and arrays["img"][2, 0, 0] == 2
