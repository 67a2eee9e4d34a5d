"""Recurrent loops against hand-written NumPy loops, with finite-difference gradients (BPTT)."""

from __future__ import annotations

import numpy as np
import pytest

from engine.graph.project import Link
from engine.runtime.compiler import CompileError, compile_network
from engine.testing import check_function

T, FEATURES, HIDDEN, BATCH = 4, 3, 5, 2


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _elman(kit, delay_props=None, axis=0):
    size = (T, FEATURES) if axis == 0 else (FEATURES, T)
    layers = [
        kit.layer("Input", "Input", Size=size, Dataset="x"),
        kit.layer("RecurrentInput", "RecurrentInput", Axis=axis),
        kit.layer("Delay", "Delay", Size=(HIDDEN,), **(delay_props or {})),
        kit.layer("Concatenate", "Concatenate", Axis=0),
        kit.layer("Affine", "Affine", OutShape=HIDDEN),
        kit.layer("Tanh", "Tanh"),
        kit.layer("RecurrentOutput", "RecurrentOutput", Axis=0),
        kit.layer("SquaredError", "SquaredError", T__Dataset="y"),
    ]
    links = [
        *kit.chain("Input", "RecurrentInput", "Concatenate"),
        Link("Delay", "Concatenate"),
        *kit.chain("Concatenate", "Affine", "Tanh", "Delay"),
        *kit.chain("Tanh", "RecurrentOutput", "SquaredError"),
    ]
    return kit.make_project([kit.network("Main", layers, links)])


def _elman_loop(x, w, b, h0):
    """The Elman network written by hand: h_t = tanh([x_t, h_{t-1}] W + b)."""
    h, out = h0, []
    for t in range(x.shape[1]):
        h = np.tanh(np.concatenate([x[:, t], h], axis=1) @ w + b)
        out.append(h)
    return np.stack(out, axis=1)


def _data(shape, seed):
    # float32 values held in float64: the feed is float32, the reference float64.
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32).astype(np.float64)


def _runner(program, output, feeds=("x",)):
    names = [p.name for p in program.parameters]

    def run(*arrays):
        batch = {k: v.data for k, v in zip(feeds, arrays, strict=False)}
        batch["y"] = np.zeros((BATCH, *program.feeds["y"]))  # the loss's target
        params = dict(zip(names, arrays[len(feeds) :], strict=True))
        return program.forward(batch, params)[output]

    return names, run


def test_elman_forward_is_the_hand_written_loop_and_bptt_matches_finite_differences(kit):
    program = compile_network(_elman(kit), "Main")
    names, run = _runner(program, "RecurrentOutput")
    assert names == ["Affine/affine/W", "Affine/affine/b"]  # one set, shared by the 4 steps
    assert [s.name for s in program.steps if s.type == "Affine"] == [
        f"Affine[t={t}]" for t in range(T)
    ]
    x, w, b = _data((BATCH, T, FEATURES), 0), _data((8, HIDDEN), 1), _data((HIDDEN,), 2)
    check_function(
        run, [x, w, b], need_grad=[False, True, True],
        reference=lambda x, w, b: _elman_loop(x, w, b, np.zeros((BATCH, HIDDEN))),
    )  # fmt: skip


def test_delay_initial_from_a_dataset_variable_and_axis_one(kit):
    project = _elman(kit, {"Initial.Generator": "None", "Initial.Dataset": "h0"}, axis=1)
    program = compile_network(project, "Main")
    assert set(program.feeds) == {"x", "h0", "y"}
    names, run = _runner(program, "RecurrentOutput", feeds=("x", "h0"))
    x, h0 = _data((BATCH, FEATURES, T), 3), _data((BATCH, HIDDEN), 4)
    w, b = _data((8, HIDDEN), 5), _data((HIDDEN,), 6)
    check_function(
        run, [x, h0, w, b], need_grad=[False, False, True, True],
        reference=lambda x, h0, w, b: _elman_loop(np.swapaxes(x, 1, 2), w, b, h0),
    )  # fmt: skip


def _lstm_loop(x, h, c, params):
    """NNC's LSTM unit by hand: [H, x_t] through four affine gates, C and H updated."""
    out = []
    for t in range(x.shape[1]):
        hx = np.concatenate([h, x[:, t]], axis=1)
        a, i, f, o = ((hx @ params[f"LSTM/{g}/affine/W"] + params[f"LSTM/{g}/affine/b"])
                      for g in ("Affine", "IGate", "FGate", "OGate"))  # fmt: skip
        c = _sigmoid(i) * np.tanh(a) + _sigmoid(f) * c
        h = _sigmoid(o) * np.tanh(c)
        out.append(h)
    return np.stack(out, axis=1)


@pytest.mark.parametrize("axis", [0, 1])
def test_lstm_layer_is_nnc_lstm_unit_with_shared_parameters(kit, axis):
    layers = [
        kit.layer("Input", "Input", Size=(T, FEATURES)[:: 1 - 2 * axis], Dataset="x"),
        kit.layer("LSTM", "LSTM", Size=HIDDEN, Axis=axis),
        kit.layer("SquaredError", "SquaredError", T__Dataset="y"),
    ]
    project = kit.make_project([kit.network("Main", layers, kit.chain(*(x.name for x in layers)))])
    program = compile_network(project, "Main")
    names, run = _runner(program, "LSTM")
    assert names == [f"LSTM/{g}/affine/{p}" for g in ("Affine", "IGate", "FGate", "OGate")
                     for p in ("W", "b")]  # fmt: skip
    assert program.parameters[0].shape == (HIDDEN + FEATURES, HIDDEN)
    rng = np.random.default_rng(7)
    arrays = [_data(p.shape, int(rng.integers(1 << 30))) for p in program.parameters]

    def reference(x, *values):
        zero = np.zeros((BATCH, HIDDEN))
        out = _lstm_loop(
            np.moveaxis(x, 1 + axis, 1), zero, zero, dict(zip(names, values, strict=True))
        )
        return np.moveaxis(out, 1, 1 + axis)  # (batch, T, H) or (batch, H, T)

    x = _data((BATCH, *(T, FEATURES)[:: 1 - 2 * axis]), 8)
    check_function(run, [x, *arrays], need_grad=[False] + [True] * 8, reference=reference)


def test_a_delay_outside_a_loop_is_named(kit):
    layers = [kit.layer("Input", "Input", Size=(4,), Dataset="x"), kit.layer("Delay", "Delay")]
    project = kit.make_project([kit.network("Main", layers, kit.chain("Input", "Delay"))])
    with pytest.raises(CompileError, match=r'layer "Delay": Delay is not inside a recurrent loop'):
        compile_network(project, "Main")


def test_a_delay_without_initial_value_names_the_property(kit):
    project = _elman(kit, {"Initial.Generator": "None", "Initial.Dataset": ""})
    message = r'layer "Delay": Initial: not connected and Generator None, but Initial.Dataset'
    with pytest.raises(CompileError, match=message):
        compile_network(project, "Main")


def test_a_normal_generator_draws_a_new_initial_state_per_batch(kit):
    project = _elman(kit, {"Initial.Generator": "Normal", "Initial.GeneratorMultiplier": "1.0"})
    program = compile_network(project, "Main")
    assert [(g.kind, g.shape) for g in program.generators] == [("Normal", (HIDDEN,))]
    params = program.create_parameters()
    x = np.zeros((BATCH, T, FEATURES), np.float32)
    batch = {"x": x, "y": np.zeros((BATCH, T, HIDDEN), np.float32)}
    first, second = (program.forward(batch, params)["RecurrentOutput"].d for _ in range(2))
    assert not np.allclose(first[:, 0], second[:, 0])  # step 0 sees the drawn state


def test_the_time_steps_share_one_split(kit):
    program = compile_network(_elman(kit), "Main")
    params = program.create_parameters()
    x = np.zeros((BATCH, T, FEATURES), np.float32)
    acts = program.forward({"x": x, "y": np.zeros((BATCH, T, HIDDEN), np.float32)}, params)
    creators = {id(acts[f"RecurrentInput[t={t}]"].creator) for t in range(T)}
    assert len(creators) == 1  # one Split, one backward: not T copies of the input
