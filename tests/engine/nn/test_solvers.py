"""Each solver's first steps against its formula (docs/nnc-behaviour.md §4), written out here."""

import math

import numpy as np
import pytest

import engine.nn as nn
from engine.nn import solvers as S

W0 = np.array([0.5, -1.5, 2.0])
GRADS = [np.array([0.1, -0.4, 0.3]), np.array([-0.2, 0.05, 0.3]), np.array([0.3, 0.3, -0.1])]
MORE = [np.array([0.05, -0.1, 0.2]), np.array([-0.3, 0.2, 0.1])]  # for rectified AdaBelief


def run(solver, steps=3, wd=None, lr_at=None):
    """Apply ``steps`` updates with GRADS to a float64 copy of W0; return the weights after each."""
    w = nn.Variable(W0.copy(), need_grad=True)
    solver.set_parameters({"w": w})
    out = []
    for i in range(steps):
        solver.zero_grad()
        w.grad = (GRADS + MORE)[i].copy()
        if wd is not None:
            solver.weight_decay(wd)
        if lr_at is not None:
            solver.set_learning_rate(lr_at(i))
        solver.update()
        out.append(w.data.copy())
    return out


def expect(solver, reference, **kw):
    got = run(solver, **kw)
    for k, (a, b) in enumerate(zip(got, reference, strict=True)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15, err_msg=f"step {k + 1}")


def test_sgd():
    w, ref = W0.copy(), []
    for g in GRADS:
        w = w - 0.05 * g
        ref.append(w)
    expect(S.Sgd(lr=0.05), ref)


def test_momentum():
    w, v, ref = W0.copy(), 0 * W0, []
    for g in GRADS:
        v = 0.8 * v + 0.1 * g
        w = w - v
        ref.append(w)
    expect(S.Momentum(0.1, 0.8), ref)


def test_nesterov():
    w, v, ref = W0.copy(), 0 * W0, []
    for g in GRADS:
        v_new = 0.8 * v - 0.1 * g
        w = w - 0.8 * v + 1.8 * v_new
        v = v_new
        ref.append(w)
    expect(S.Nesterov(0.1, 0.8), ref)


def test_adagrad():
    w, G, ref = W0.copy(), 0 * W0, []
    for g in GRADS:
        G = G + g * g
        w = w - 0.1 * g / (np.sqrt(G) + 1e-3)
        ref.append(w)
    expect(S.Adagrad(0.1, eps=1e-3), ref)


def test_adadelta():
    w, eg, ed, ref = W0.copy(), 0 * W0, 0 * W0, []
    for g in GRADS:
        eg = 0.9 * eg + 0.1 * g * g
        d = np.sqrt((ed + 1e-2) / (eg + 1e-2)) * g
        ed = 0.9 * ed + 0.1 * d * d
        w = w - 0.5 * d
        ref.append(w)
    expect(S.Adadelta(0.5, decay=0.9, eps=1e-2), ref)


def test_rmsprop():
    w, v, ref = W0.copy(), 0 * W0, []
    for g in GRADS:
        v = 0.7 * v + 0.3 * g * g
        w = w - 0.01 * g / (np.sqrt(v) + 1e-4)
        ref.append(w)
    expect(S.RMSprop(0.01, decay=0.7, eps=1e-4), ref)


def adam_reference(alpha, b1, b2, eps, wd=0.0, alpha0=None, lrs=None):
    w, m, v, ref = W0.copy(), 0 * W0, 0 * W0, []
    for t, g in enumerate(GRADS, start=1):
        a = alpha if lrs is None else lrs[t - 1]
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        step = a * math.sqrt(1 - b2**t) / (1 - b1**t) * m / (np.sqrt(v) + eps)
        w = w - step - (a / (alpha0 or alpha)) * wd * w
        ref.append(w)
    return ref


def test_adam():
    expect(S.Adam(0.01, 0.8, 0.9, 1e-3), adam_reference(0.01, 0.8, 0.9, 1e-3))


def test_adamw_decay_follows_the_schedule_ratio():
    lrs = [0.01, 0.005, 0.0025]
    ref = adam_reference(0.01, 0.8, 0.9, 1e-3, wd=0.1, alpha0=0.01, lrs=lrs)
    expect(S.AdamW(0.01, 0.8, 0.9, 1e-3, wd=0.1), ref, lr_at=lambda i: lrs[i])


def test_adamax():
    w, m, u, ref = W0.copy(), 0 * W0, 0 * W0, []
    for t, g in enumerate(GRADS, start=1):
        m = 0.8 * m + 0.2 * g
        u = np.maximum(0.9 * u, np.abs(g))
        w = w - 0.02 / (1 - 0.8**t) * m / (u + 1e-3)
        ref.append(w)
    expect(S.Adamax(0.02, 0.8, 0.9, 1e-3), ref)


def test_amsgrad_without_bias_correction():
    w, m, v, vh, ref = W0.copy(), 0 * W0, 0 * W0, 0 * W0, []
    for g in GRADS:
        m = 0.8 * m + 0.2 * g
        v = 0.9 * v + 0.1 * g * g
        vh = np.maximum(vh, v)
        w = w - 0.01 * m / (np.sqrt(vh) + 1e-3)
        ref.append(w)
    expect(S.AMSGRAD(0.01, 0.8, 0.9, 1e-3), ref)


def bound_reference(ams, final_lr=0.05, gamma=10.0, alpha=0.01):
    w, m, v, vh, ref = W0.copy(), 0 * W0, 0 * W0, 0 * W0, []
    for t, g in enumerate(GRADS, start=1):
        m = 0.8 * m + 0.2 * g
        v = 0.9 * v + 0.1 * g * g
        if ams:
            vh = np.maximum(vh, v)
            a_t, denom, upper = alpha, np.sqrt(vh) + 1e-3, final_lr * (1 + t / gamma)
        else:
            a_t = alpha * math.sqrt(1 - 0.9**t) / (1 - 0.8**t)
            denom, upper = np.sqrt(v) + 1e-3, final_lr * (1 + 1 / (gamma * t))
        lower = final_lr * (1 - 1 / (gamma * t + 1))
        w = w - np.clip(a_t / denom, lower, upper) * m
        ref.append(w)
    return ref


def test_adabound_clips_the_step_size():
    ref = bound_reference(ams=False)
    expect(S.AdaBound(0.01, 0.8, 0.9, 1e-3, final_lr=0.05, gamma=10.0), ref)
    # step 1: alpha_t/(sqrt(v)+eps) is about 0.5, clipped to the upper bound 0.05·(1 + 1/10)
    np.testing.assert_allclose(ref[0], W0 - 0.055 * 0.2 * GRADS[0])


def test_amsbound_upper_bound_follows_the_cpp():
    ref = bound_reference(ams=True)
    expect(S.AMSBound(0.01, 0.8, 0.9, 1e-3, final_lr=0.05, gamma=10.0), ref)
    # step 2: the upper bound is 0.05·(1 + 2/10) = 0.06 (AdaBound's would be 0.0525)
    m2 = 0.8 * 0.2 * GRADS[0] + 0.2 * GRADS[1]
    np.testing.assert_allclose(ref[1], ref[0] - 0.06 * m2)


def adabelief_reference(
    amsgrad=False, decouple=False, fixed=False, rectify=False, wd=0.1, b2=0.9, steps=3
):
    w, m, s, smax, ref = W0.copy(), 0 * W0, 0 * W0, 0 * W0, []
    a, b1, eps = 0.01, 0.8, 1e-3
    for t, g in enumerate((GRADS + MORE)[:steps], start=1):
        m = b1 * m + (1 - b1) * g
        s = b2 * s + (1 - b2) * (g - m) ** 2
        if decouple:
            w = w - w * (wd if fixed else wd * a)
        if amsgrad:
            smax = np.maximum(smax, s) + eps
            s_t = smax
        else:
            s = s + eps
            s_t = s
        r_t, sgd = 1.0, False
        if rectify:
            rho_inf = 2 / (1 - b2) - 1
            rho_t = rho_inf - 2 * t * b2**t / (1 - b2**t)
            sgd = rho_t <= 4
            if not sgd:
                r_t = math.sqrt(
                    (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
                )
        if sgd:
            w = w - a * m
        else:
            w = w - a * r_t / (1 - b1**t) * m / (np.sqrt(s_t) / math.sqrt(1 - b2**t) + eps)
        ref.append(w)
    return ref


@pytest.mark.parametrize(
    "amsgrad, decouple, fixed", [(False, False, False), (True, True, False), (False, True, True)]
)
def test_adabelief(amsgrad, decouple, fixed):
    solver = S.AdaBelief(
        0.01, 0.8, 0.9, 1e-3, wd=0.1, amsgrad=amsgrad, weight_decouple=decouple, fixed_decay=fixed
    )
    expect(solver, adabelief_reference(amsgrad, decouple, fixed))


def test_adabelief_rectify_takes_sgd_steps_while_rho_is_small():
    # beta2 = 0.999: rho_t <= 4 for the first steps, so w ← w − α·m
    expect(
        S.AdaBelief(0.01, 0.8, 0.999, 1e-3, rectify=True),
        adabelief_reference(rectify=True, b2=0.999),
    )
    # beta2 = 0.5: rho_inf = 3 < 4, always SGD-like
    expect(
        S.AdaBelief(0.01, 0.8, 0.5, 1e-3, rectify=True), adabelief_reference(rectify=True, b2=0.5)
    )


def test_adabelief_rectified_steps():
    # beta2 = 0.9: rho_4 = 3.74 (SGD step), rho_5 = 4.58 (rectified adaptive step)
    ref = adabelief_reference(rectify=True, b2=0.9, steps=5)
    expect(S.AdaBelief(0.01, 0.8, 0.9, 1e-3, rectify=True), ref, steps=5)
    unrectified = adabelief_reference(b2=0.9, steps=5)
    assert not np.allclose(ref[4] - ref[3], unrectified[4] - unrectified[3])


def test_lars_with_fused_weight_decay():
    lr, mu, eta, eps, wd = 0.1, 0.9, 0.01, 1e-6, 0.05
    w, v, ref = W0.copy(), 0 * W0, []
    for g in GRADS:
        gn, dn = np.linalg.norm(g), np.linalg.norm(w)
        x = gn + wd * dn
        local = lr * eta * dn / x
        v = mu * v + local * (g + wd * w)
        w = w - v
        ref.append(w)
    expect(S.Lars(lr, mu, eta, eps), ref, wd=wd)


def test_sgdw():
    lrs = [0.1, 0.05, 0.05]
    w, v, ref = W0.copy(), 0 * W0, []
    for lr, g in zip(lrs, GRADS, strict=True):
        v = 0.9 * v + lr * g
        w = w - v - (lr / 0.1) * 0.01 * w
        ref.append(w)
    expect(S.SgdW(0.1, 0.9, wd=0.01), ref, lr_at=lambda i: lrs[i])


# ---------------------------------------------------------------------------------- defaults
@pytest.mark.parametrize("cls, lr, attrs", [
    (S.Sgd, 0.01, {}),
    (S.Momentum, 0.01, {"momentum": 0.9}),
    (S.Nesterov, 0.01, {"momentum": 0.9}),
    (S.Adagrad, 0.01, {"eps": 1e-8}),
    (S.Adadelta, 1.0, {"decay": 0.95, "eps": 1e-6}),
    (S.RMSprop, 0.001, {"decay": 0.9, "eps": 1e-8}),
    (S.Adam, 0.001, {"beta1": 0.9, "beta2": 0.999, "eps": 1e-8}),
    (S.AdamW, 0.001, {"beta1": 0.9, "beta2": 0.999, "eps": 1e-8, "wd": 1e-4}),
    (S.Adamax, 0.002, {"beta1": 0.9, "beta2": 0.999, "eps": 1e-8}),
    (S.AMSGRAD, 0.001, {"beta1": 0.9, "beta2": 0.999, "eps": 1e-8, "bias_correction": False}),
    (S.AdaBound, 0.001, {"final_lr": 0.1, "gamma": 0.001}),
    (S.AMSBound, 0.001, {"final_lr": 0.1, "gamma": 0.001, "bias_correction": False}),
    (S.AdaBelief, 0.001, {"eps": 1e-8, "wd": 1e-4, "amsgrad": False, "weight_decouple": False,
                          "fixed_decay": False, "rectify": False}),
    (S.Lars, 0.001, {"momentum": 0.9, "coefficient": 0.001, "eps": 1e-6}),
    (S.SgdW, 0.001, {"momentum": 0.9, "wd": 1e-4}),
])  # fmt: skip
def test_nnc_defaults(cls, lr, attrs):
    solver = cls()
    assert solver.learning_rate() == lr
    for key, value in attrs.items():
        assert getattr(solver, key) == value, key
    assert S.create_solver(cls.__name__).info == solver.info


def test_create_solver_unknown_name():
    with pytest.raises(ValueError, match="unknown solver 'Adamm'"):
        S.create_solver("Adamm")


# ------------------------------------------------------------------------------ weight decay
def test_plain_weight_decay_adds_to_the_gradient():
    w, ref = W0.copy(), []
    for g in GRADS:
        w = w - 0.1 * (g + 0.2 * w)
        ref.append(w)
    expect(S.Sgd(0.1), ref, wd=0.2)


def test_adamw_weight_decay_replaces_its_own_rate_for_one_update():
    solver = S.AdamW(0.01, 0.8, 0.9, 1e-3, wd=0.1)
    w = nn.Variable(W0.copy(), need_grad=True)
    solver.set_parameters({"w": w})
    w.grad = GRADS[0].copy()
    solver.weight_decay(0.5)
    solver.update()
    m = 0.2 * GRADS[0]
    v = 0.1 * GRADS[0] ** 2
    expected = W0 - 0.01 * math.sqrt(0.1) / 0.2 * m / (np.sqrt(v) + 1e-3) - 0.5 * W0
    np.testing.assert_allclose(w.data, expected, rtol=1e-12)
    np.testing.assert_array_equal(w.grad, GRADS[0])  # the gradient is untouched
    solver.update()  # next update: back to the own rate 0.1
    assert solver._wd_next is None


def test_adabelief_without_decouple_uses_plain_decay():
    solver = S.AdaBelief(0.01, 0.8, 0.9, 1e-3, wd=0.3)
    w = nn.Variable(W0.copy(), need_grad=True)
    solver.set_parameters({"w": w})
    w.grad = GRADS[0].copy()
    solver.weight_decay(0.5)
    np.testing.assert_allclose(w.grad, GRADS[0] + 0.5 * W0)


# ----------------------------------------------------------------------- skipping and state
def test_parameters_without_gradient_are_skipped_and_keep_their_own_t():
    a = nn.Variable(W0.copy(), need_grad=True)
    b = nn.Variable(W0.copy(), need_grad=True)
    solver = S.Adam(0.01, 0.8, 0.9, 1e-3)
    solver.set_parameters({"a": a, "b": b})
    for g in GRADS[:2]:
        solver.zero_grad()
        assert a.grad is None and b.grad is None
        a.grad = g.copy()
        solver.update()
    np.testing.assert_array_equal(b.data, W0)
    states = solver.get_states()
    assert (states["a"].t, states["b"].t) == (2, 0)
    solver.zero_grad()
    b.grad = GRADS[0].copy()
    solver.update()  # b's first update uses t = 1
    np.testing.assert_allclose(b.data, adam_reference(0.01, 0.8, 0.9, 1e-3)[0], rtol=1e-12)


@pytest.mark.parametrize("name", sorted(S.SOLVERS))
def test_state_round_trip_gives_identical_continued_updates(name, tmp_path):
    def make():
        w = nn.Variable(W0.astype(np.float32), need_grad=True)
        solver = S.create_solver(name)
        solver.set_parameters({"layer/W": w})
        return solver, w

    s1, w1 = make()
    for g in GRADS[:2]:
        w1.grad = g.astype(np.float32)
        s1.weight_decay(1e-3)
        s1.update()
    path = tmp_path / "states.npz"
    s1.save_states(path)
    s2, w2 = make()
    w2.data[...] = w1.data
    s2.load_states(path)
    assert s2.get_states()["layer/W"].t == 2
    for s, w in ((s1, w1), (s2, w2)):
        w.grad = GRADS[2].astype(np.float32)
        s.weight_decay(1e-3)
        s.update()
    np.testing.assert_array_equal(w1.data, w2.data)
    assert w1.data.dtype == np.float32


def test_load_states_from_another_solver_is_refused(tmp_path):
    s = S.Adam()
    s.set_parameters({"w": nn.Variable(W0.copy(), need_grad=True)})
    s.save_states(tmp_path / "s.npz")
    other = S.Momentum()
    other.set_parameters({"w": nn.Variable(W0.copy(), need_grad=True)})
    with pytest.raises(nn.ParameterFileError, match="Adam solver cannot be loaded into Momentum"):
        other.load_states(tmp_path / "s.npz")


def test_set_states_checks_names_and_shapes():
    s = S.Momentum()
    s.set_parameters({"w": nn.Variable(W0.copy(), need_grad=True)})
    with pytest.raises(KeyError, match="'v'"):
        s.set_states({"v": S.SolverState({"m": np.zeros(3)}, 1)})
    with pytest.raises(ValueError, match=r"shape \(2,\)"):
        s.set_states({"w": {"pstate": {"m": np.zeros(2)}, "t": 1}})


def test_retain_state_on_re_registration():
    w = nn.Variable(W0.copy(), need_grad=True)
    s = S.Momentum(0.1)
    s.set_parameters({"w": w})
    w.grad = GRADS[0].copy()
    s.update()
    s.set_parameters({"w": w}, retain_state=True)
    assert s.get_states()["w"].t == 1
    s.set_parameters({"w": w})
    assert s.get_states()["w"].t == 0


# -------------------------------------------------------------------------- misc behaviour
def test_update_is_in_place_and_records_no_graph():
    w = nn.Variable(np.ones(3, np.float32), need_grad=True)
    view = w.unlinked()
    s = S.Adam()
    s.set_parameters({"w": w})
    w.grad = np.ones(3, np.float32)
    s.update()
    assert w.creator is None and view.data is w.data
    assert w.data.dtype == np.float32 and np.all(w.data < 1)


def test_clip_grad_by_norm_per_parameter():
    big = nn.Variable(np.zeros(2), need_grad=True)
    small = nn.Variable(np.zeros(2), need_grad=True)
    s = S.Sgd()
    s.set_parameters({"big": big, "small": small})
    big.grad = np.array([3.0, 4.0])
    small.grad = np.array([0.3, 0.4])
    s.clip_grad_by_norm(1.0)
    np.testing.assert_allclose(big.grad, [0.6, 0.8])
    np.testing.assert_allclose(small.grad, [0.3, 0.4])


def test_scale_grad_and_inf_check():
    w = nn.Variable(np.zeros(2), need_grad=True)
    s = S.Sgd()
    s.set_parameters({"w": w})
    w.grad = np.array([1.0, 2.0])
    s.scale_grad(0.5)
    np.testing.assert_allclose(w.grad, [0.5, 1.0])
    assert not s.check_inf_or_nan_grad()
    w.grad[0] = np.inf
    assert s.check_inf_or_nan_grad()


def test_lr_multipliers_are_opt_in():
    nn.clear_parameters()
    try:
        w = nn.get_parameter_or_create("W", (3,), W0.copy(), lr_mult=0.5)
        plain = S.Sgd(0.1)
        plain.set_parameters(nn.get_parameters())
        w.grad = np.ones(3)
        plain.update()
        np.testing.assert_allclose(w.data, W0 - 0.1, rtol=1e-6)  # NNC: the value is not used
        scaled = S.Sgd(0.1, use_lr_multipliers=True)
        scaled.set_parameters(nn.get_parameters())
        scaled.update()
        np.testing.assert_allclose(w.data, W0 - 0.15, rtol=1e-6)
    finally:
        nn.clear_parameters()


def test_set_parameters_rejects_non_variables():
    with pytest.raises(TypeError, match="'w' is not a Variable"):
        S.Adam().set_parameters({"w": np.zeros(3)})


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_adams_compiled_loop_gives_numpys_numbers_to_the_bit(monkeypatch, dtype):
    pytest.importorskip("numba", reason="Adam's compiled loop needs numba")
    from engine.core.ops import _jit
    from engine.nn import _adam_cpu

    rng = np.random.default_rng(3)
    w0 = rng.standard_normal((7, 5)).astype(dtype)
    grads = [rng.standard_normal((7, 5)).astype(dtype) * 10.0**k for k in range(-3, 2)]
    calls = []
    compiled = _adam_cpu.update
    monkeypatch.setattr(_adam_cpu, "update", lambda *a: calls.append(compiled(*a)) or calls[-1])
    results = []
    for enabled in (True, False):
        monkeypatch.setattr(_jit, "ENABLED", enabled)
        w = nn.Variable(w0.copy(), need_grad=True)
        solver = S.Adam(0.003, 0.85, 0.995, 1e-6)
        solver.set_parameters({"w": w})
        for g in grads:
            w.grad = g.copy()
            solver.update()
        state = solver.get_states()["w"].pstate
        results.append((w.data.copy(), state["mean"].copy(), state["var"].copy()))
    # the first run's updates went through the loop, the second's (numba off) through NumPy
    assert calls == [True] * len(grads) + [False] * len(grads)
    for got, want in zip(*results, strict=True):
        assert got.dtype == want.dtype == dtype
        np.testing.assert_array_equal(got, want)
    # A gradient of another dtype (mixed precision) is left to NumPy: nothing changed.
    w, g, m, v = (np.ones(3, dtype) for _ in range(4))
    assert not _adam_cpu.update(w, g.astype(np.float16), m, v, 0.9, 0.999, 1e-8, 0.1)
    np.testing.assert_array_equal(w, 1)
