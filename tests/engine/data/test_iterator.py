import gc
import json
import threading
import time

import numpy as np
import pytest
from PIL import Image

from engine.data import DataIterator, DatasetError, batches_once, open_dataset


def numbers(tmp_path, n):
    path = tmp_path / "numbers.csv"
    path.write_text("i,v__0,v__1\n" + "".join(f"{k},{k},{-k}\n" for k in range(n)), "utf-8")
    return open_dataset(path)


def stream(it, batches):
    return np.concatenate([it.next()["i"][:, 0] for _ in range(batches)]).astype(int).tolist()


def prefetch_threads():
    return [t for t in threading.enumerate() if t.name == "nc-data-prefetch" and t.is_alive()]


def test_sequential_stream_continues_across_epochs(tmp_path):
    with DataIterator(numbers(tmp_path, 10), 4) as it:
        assert it.iter_per_epoch == 2
        assert stream(it, 4) == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5]
        assert (it.batches_done, it.position, it.epoch) == (4, 16, 1)


def test_batches_are_float32_of_the_selected_variables(tmp_path):
    with DataIterator(numbers(tmp_path, 6), 3, variables=["v"]) as it:
        batch = it.next()
    assert list(batch) == ["v"]
    assert batch["v"].dtype == np.float32 and batch["v"].shape == (3, 2)
    np.testing.assert_array_equal(batch["v"], [[0, 0], [1, -1], [2, -2]])
    with pytest.raises(DatasetError, match="no variable 'w'"):
        DataIterator(numbers(tmp_path, 6), 3, variables=["w"])


def test_shuffle_new_permutation_every_epoch_same_seed_same_order(tmp_path):
    ds = numbers(tmp_path, 12)
    with DataIterator(ds, 4, shuffle=True, seed=7) as a, DataIterator(ds, 4, shuffle=True,
                                                                        seed=7) as b:  # fmt: skip
        first, again = stream(a, 9), stream(b, 9)
    assert first == again
    epochs = [first[k : k + 12] for k in (0, 12, 24)]
    assert all(sorted(e) == list(range(12)) for e in epochs)
    assert epochs[0] != epochs[1] != epochs[2] and epochs[0] != list(range(12))
    with DataIterator(ds, 4, shuffle=True, seed=8) as other:
        assert stream(other, 9) != first


def test_shuffled_batch_straddles_epochs_like_nnabla(tmp_path):
    ds = numbers(tmp_path, 10)
    with DataIterator(ds, 4, shuffle=True, seed=3) as it:
        got = stream(it, 5)
        p0, p1 = it._order.permutation(0).tolist(), it._order.permutation(1).tolist()
    assert got == p0 + p1  # batch 3 holds the last 2 rows of epoch 0 and the first 2 of epoch 1


def test_batch_larger_than_dataset_wraps(tmp_path):
    with DataIterator(numbers(tmp_path, 3), 7, prefetch=0) as it:
        assert it.iter_per_epoch == 0
        assert stream(it, 1) == [0, 1, 2, 0, 1, 2, 0]


@pytest.mark.parametrize("prefetch", [0, 3])
def test_exact_resume_from_state(tmp_path, prefetch):
    ds = numbers(tmp_path, 11)
    it = DataIterator(ds, 4, shuffle=True, seed=5, prefetch=prefetch)
    stream(it, 3)
    state = json.loads(json.dumps(it.state_dict()))
    expected = stream(it, 6)
    it.close()
    resumed = DataIterator(ds, 4, shuffle=True, seed=999, prefetch=prefetch)
    resumed.load_state_dict(state)  # the seed comes from the state
    assert resumed.seed == 5 and resumed.batches_done == 3
    assert stream(resumed, 6) == expected
    resumed.load_state_dict(state)  # rewinding while the prefetch thread runs ahead
    assert stream(resumed, 6) == expected
    resumed.close()


def test_state_of_other_settings_is_refused(tmp_path):
    ds = numbers(tmp_path, 8)
    state = DataIterator(ds, 4, shuffle=True).state_dict()
    with pytest.raises(DatasetError, match="batch_size=4 but this one has batch_size=2"):
        DataIterator(ds, 2, shuffle=True).load_state_dict(state)
    with pytest.raises(DatasetError, match="not a data iterator state"):
        DataIterator(ds, 4).load_state_dict({"batches": 1})


def test_prefetch_thread_shuts_down_cleanly(tmp_path):
    ds = numbers(tmp_path, 50)
    before = len(prefetch_threads())
    with DataIterator(ds, 5, shuffle=True, prefetch=2) as it:
        it.next()
        assert len(prefetch_threads()) == before + 1
    assert len(prefetch_threads()) == before
    it.next()  # a closed iterator restarts its thread when used again
    it.close()
    dropped = DataIterator(ds, 5, prefetch=2)
    dropped.next()
    del dropped
    gc.collect()
    assert len(prefetch_threads()) == before


def test_loading_errors_surface_in_the_callers_thread(tmp_path):
    for k in range(4):
        Image.fromarray(np.full((2, 2), k, np.uint8)).save(tmp_path / f"{k}.png")
    (tmp_path / "2.png").write_bytes(b"broken")
    path = tmp_path / "images.csv"
    path.write_text("x,y\n" + "".join(f"{k}.png,{k}\n" for k in range(4)), encoding="utf-8")
    ds = open_dataset(path, cache=False)
    with DataIterator(ds, 2, prefetch=2) as it:
        assert it.next()["y"][:, 0].tolist() == [0, 1]
        for _ in range(2):  # the failing batch is retried, and fails again
            with pytest.raises(DatasetError, match=r"line 4, column 1 \(x\): not a readable"):
                it.next()
        assert it.batches_done == 1
    deadline = time.monotonic() + 5
    while prefetch_threads() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert prefetch_threads() == []


def test_image_normalization_applies_to_images_only(tmp_path):
    Image.fromarray(np.full((1, 2), 51, np.uint8)).save(tmp_path / "a.png")
    path = tmp_path / "d.csv"
    path.write_text("x,y\na.png,51\na.png,51\n", encoding="utf-8")
    with DataIterator(open_dataset(path, normalize=True), 2, prefetch=0) as it:
        batch = it.next()
    np.testing.assert_allclose(batch["x"], np.full((2, 1, 1, 2), 0.2), rtol=1e-6)
    np.testing.assert_array_equal(batch["y"], [[51], [51]])


@pytest.mark.parametrize("prefetch", [0, 2])
def test_batches_once_covers_every_row_in_order(tmp_path, prefetch):
    ds = numbers(tmp_path, 7)
    got = [(start, b["i"][:, 0].astype(int).tolist(), list(b))
           for start, b in batches_once(ds, 3, ["i"], prefetch=prefetch)]  # fmt: skip
    assert got == [(0, [0, 1, 2], ["i"]), (3, [3, 4, 5], ["i"]), (6, [6], ["i"])]


def images(tmp_path, n, cache):
    for k in range(n):
        Image.fromarray(np.full((2, 3), k, np.uint8)).save(tmp_path / f"{k}.png")
    path = tmp_path / "images.csv"
    path.write_text("x,y\n" + "".join(f"{k}.png,{k}\n" for k in range(n)), encoding="utf-8")
    return open_dataset(path, normalize=False, cache=cache)


def test_batches_once_stops_its_thread_when_left_early(tmp_path):
    before = len(prefetch_threads())
    loop = batches_once(images(tmp_path, 40, cache=False), 4)  # files decoded batch by batch
    next(loop)
    assert len(prefetch_threads()) == before + 1
    loop.close()
    assert len(prefetch_threads()) == before


@pytest.mark.parametrize("cache", [True, False])
def test_batches_in_memory_are_read_without_a_thread(tmp_path, cache):
    """Numbers and the opened array cache are read in the caller's thread (no prefetch thread
    to start and feed); files decoded batch by batch still get one. Same batches either way."""
    before = len(prefetch_threads())
    ds = images(tmp_path, 10, cache)
    assert ds.in_memory(["y"])
    assert ds.in_memory(["x", "y"]) is cache
    got = []
    for start, batch in batches_once(ds, 4, ["x", "y"]):
        assert len(prefetch_threads()) == before + (not cache)
        got.append((start, batch["x"][:, 0, 1, 2].tolist(), batch["y"][:, 0].tolist()))
    assert got == [(0, [0, 1, 2, 3], [0, 1, 2, 3]), (4, [4, 5, 6, 7], [4, 5, 6, 7]),
                   (8, [8, 9], [8, 9])]  # fmt: skip
    assert len(prefetch_threads()) == before
