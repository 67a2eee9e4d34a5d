"""Solvers (optimizers): every solver NNC offers, with NNC's defaults and nnabla's update rules.

``import engine.nn.solvers as S``; the API is nnabla's::

    solver = S.Adam(alpha=0.001)
    solver.set_parameters(nn.get_parameters())
    solver.zero_grad(); loss.backward()
    solver.weight_decay(1e-4)      # only when the CONFIG weight decay is > 0
    solver.set_learning_rate(scheduler.get_learning_rate(i))
    solver.update()

The shared machinery (registry, update loop, decay, states) is in ``_solver_base``; the update
rules below are nnabla's C++ (``src/nbla/solver/generic/*.cpp``) as written in
docs/nnc-behaviour.md §4; the defaults are NNC's ``solver_component.txt`` (nnabla's own differ
for some solvers, e.g. ``Sgd(lr=0.01)`` here, 0.001 in nnabla). Semantics worth knowing:

* ``zero_grad()`` sets gradients to None ("received no gradient"); ``update()`` skips those
  parameters, and each parameter's step count ``t`` counts only its own updates.
* ``weight_decay(wd)``: plain solvers add ``wd * w`` to the gradient now. Solvers with their own
  (decoupled or fused) decay -- AdamW, SgdW, Lars and AdaBelief with ``weight_decouple`` -- use
  ``wd`` instead of their own rate for the next ``update()`` only.
* Updates are in place on ``Variable.data`` (shared and unlinked views stay in sync) and never
  record a graph.
* ``use_lr_multipliers=True`` (keyword, all solvers) applies each parameter's NNC
  LRateMultiplier as a real factor, as if that parameter had its own solver whose learning rate
  (initial and scheduled) is multiplied by it. **NNC does not do this**: its trainer only freezes
  parameters with multiplier 0 (docs/layers.md §1.7). Off by default.
"""

from __future__ import annotations

import math
from typing import Any

from engine.core.backend import get_array_module
from engine.nn import _adam_cpu
from engine.nn._solver_base import FORMAT_STATES, Solver, SolverState

__all__ = [
    "Solver", "SolverState", "Sgd", "Momentum", "Nesterov", "Adagrad", "Adadelta", "RMSprop",
    "Adam", "AdamW", "Adamax", "AMSGRAD", "AdaBound", "AMSBound", "AdaBelief", "Lars", "SgdW",
    "SOLVERS", "create_solver", "FORMAT_STATES",
]  # fmt: skip


# ------------------------------------------------------------------------------ SGD family
class Sgd(Solver):
    """w ← w − lr·g."""

    def __init__(self, lr: float = 0.01, **kw: Any) -> None:
        super().__init__(lr, **kw)

    def _update(self, w, g, st, t, lr):
        w -= lr * g


class Momentum(Solver):
    """v ← μv + lr·g; w ← w − v."""

    state_names = ("m",)

    def __init__(self, lr: float = 0.01, momentum: float = 0.9, **kw: Any) -> None:
        super().__init__(lr, **kw)
        self.momentum = float(momentum)

    def _update(self, w, g, st, t, lr):
        v = st["m"]
        v *= self.momentum
        v += lr * g
        w -= v


class Nesterov(Solver):
    """v' ← μv − lr·g; w ← w − μv + (1+μ)v'; v ← v'."""

    state_names = ("m",)

    def __init__(self, lr: float = 0.01, momentum: float = 0.9, **kw: Any) -> None:
        super().__init__(lr, **kw)
        self.momentum = float(momentum)

    def _update(self, w, g, st, t, lr):
        v, mu = st["m"], self.momentum
        v_new = mu * v - lr * g
        w += (1 + mu) * v_new - mu * v
        v[...] = v_new


class SgdW(Solver):
    """v ← μv + lr·g; w ← w − v − (lr/lr₀)·λ·w (λ = ``wd``, or ``weight_decay()``'s value)."""

    state_names = ("m",)

    def __init__(self, lr: float = 0.001, momentum: float = 0.9, wd: float = 1e-4, **kw: Any):
        super().__init__(lr, **kw)
        self.momentum = float(momentum)
        self.wd = float(wd)

    decouples_decay = True

    def _update(self, w, g, st, t, lr):
        v = st["m"]
        v *= self.momentum
        v += lr * g
        w -= v + (self._ratio() * self._decay_now(self.wd)) * w


class Lars(Solver):
    """LARS with the CONFIG weight decay fused in (``lars.cpp``, docs/nnc-behaviour.md §4)."""

    state_names = ("v",)

    def __init__(self, lr: float = 0.001, momentum: float = 0.9, coefficient: float = 0.001,
                 eps: float = 1e-6, **kw: Any) -> None:  # fmt: skip
        super().__init__(lr, **kw)
        self.momentum = float(momentum)
        self.coefficient = float(coefficient)
        self.eps = float(eps)

    decouples_decay = True

    def _update(self, w, g, st, t, lr):
        xp = get_array_module(w)
        wd = self._decay_now(0.0)
        # The norms stay on the device (no host sync per parameter).
        g_norm = xp.sqrt(xp.sum(g * g))
        d_norm = xp.sqrt(xp.sum(w * w))
        x = g_norm + wd * d_norm
        x = xp.where(x < self.eps, x + self.eps, x)
        local = xp.where(d_norm < self.eps, lr, lr * self.coefficient * d_norm / x)
        local = local.astype(w.dtype)
        v = st["v"]
        v *= self.momentum
        v += local * (g + wd * w)
        w -= v


# ------------------------------------------------------------------------- adaptive rates
class Adagrad(Solver):
    """G ← G + g²; w ← w − lr·g/(√G + ε)."""

    state_names = ("v",)

    def __init__(self, lr: float = 0.01, eps: float = 1e-8, **kw: Any) -> None:
        super().__init__(lr, **kw)
        self.eps = float(eps)

    def _update(self, w, g, st, t, lr):
        xp = get_array_module(w)
        G = st["v"]
        G += g * g
        w -= lr * g / (xp.sqrt(G) + self.eps)


class Adadelta(Solver):
    """E_g ← ρE_g + (1−ρ)g²; Δ ← √((E_Δ+ε)/(E_g+ε))·g; E_Δ ← ρE_Δ + (1−ρ)Δ²; w ← w − lr·Δ."""

    state_names = ("e_sqr_grad", "e_sqr_delta")

    def __init__(self, lr: float = 1.0, decay: float = 0.95, eps: float = 1e-6, **kw: Any):
        super().__init__(lr, **kw)
        self.decay = float(decay)
        self.eps = float(eps)

    def _update(self, w, g, st, t, lr):
        xp = get_array_module(w)
        rho, eps = self.decay, self.eps
        eg, ed = st["e_sqr_grad"], st["e_sqr_delta"]
        eg *= rho
        eg += (1 - rho) * g * g
        delta = xp.sqrt((ed + eps) / (eg + eps)) * g
        ed *= rho
        ed += (1 - rho) * delta * delta
        w -= lr * delta


class RMSprop(Solver):
    """v ← ρv + (1−ρ)g²; w ← w − lr·g/(√v + ε)."""

    state_names = ("v",)

    def __init__(self, lr: float = 0.001, decay: float = 0.9, eps: float = 1e-8, **kw: Any):
        super().__init__(lr, **kw)
        self.decay = float(decay)
        self.eps = float(eps)

    def _update(self, w, g, st, t, lr):
        xp = get_array_module(w)
        v = st["v"]
        v *= self.decay
        v += (1 - self.decay) * g * g
        w -= lr * g / (xp.sqrt(v) + self.eps)


class _AdamBase(Solver):
    """Shared constructor and moment updates of the Adam family."""

    state_names = ("mean", "var")

    def __init__(self, alpha: float, beta1: float, beta2: float, eps: float, **kw: Any) -> None:
        super().__init__(alpha, **kw)
        self.beta1 = float(beta1)
        self.beta2 = float(beta2)
        self.eps = float(eps)

    @property
    def alpha(self) -> float:
        return self._lr

    def _moments(self, g: Any, m: Any, v: Any) -> Any:
        """Update m and v in place; return a scratch array of g's shape for the caller to reuse."""
        xp = get_array_module(g)
        b1, b2 = self.beta1, self.beta2
        tmp = xp.multiply(g, g, dtype=v.dtype)  # the one temporary: updates are memory-bound
        tmp *= 1 - b2
        v *= b2
        v += tmp
        xp.multiply(g, 1 - b1, out=tmp)
        m *= b1
        m += tmp
        return tmp

    def _bias_correction(self, t: int) -> float:
        return math.sqrt(1 - self.beta2**t) / (1 - self.beta1**t)


class Adam(_AdamBase):
    """w ← w − α·√(1−β₂ᵗ)/(1−β₁ᵗ)·m/(√v + ε) (correction folded in, ε outside)."""

    def __init__(self, alpha: float = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 eps: float = 1e-8, **kw: Any) -> None:  # fmt: skip
        super().__init__(alpha, beta1, beta2, eps, **kw)

    def _update(self, w, g, st, t, lr):
        xp = get_array_module(w)
        m, v = st["mean"], st["var"]
        step = lr * self._bias_correction(t)
        if _adam_cpu.update(w, g, m, v, self.beta1, self.beta2, self.eps, step):
            return  # one compiled loop on the CPU, the same numbers
        tmp = self._moments(g, m, v)
        xp.sqrt(v, out=tmp)
        tmp += self.eps
        xp.divide(m, tmp, out=tmp)
        tmp *= step
        w -= tmp


class AdamW(_AdamBase):
    """Adam step, then w ← w − (α/α₀)·λ·w (λ = ``wd``, or ``weight_decay()``'s value)."""

    def __init__(self, alpha: float = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 eps: float = 1e-8, wd: float = 1e-4, **kw: Any) -> None:  # fmt: skip
        super().__init__(alpha, beta1, beta2, eps, **kw)
        self.wd = float(wd)

    decouples_decay = True

    def _update(self, w, g, st, t, lr):
        xp = get_array_module(w)
        m, v = st["mean"], st["var"]
        self._moments(g, m, v)
        decay = self._ratio() * self._decay_now(self.wd)
        w -= (lr * self._bias_correction(t)) * m / (xp.sqrt(v) + self.eps) + decay * w


class Adamax(_AdamBase):
    """u ← max(β₂u, |g|); w ← w − α/(1−β₁ᵗ)·m/(u + ε)."""

    state_names = ("mean", "u")

    def __init__(self, alpha: float = 0.002, beta1: float = 0.9, beta2: float = 0.999,
                 eps: float = 1e-8, **kw: Any) -> None:  # fmt: skip
        super().__init__(alpha, beta1, beta2, eps, **kw)

    def _update(self, w, g, st, t, lr):
        xp = get_array_module(w)
        m, u = st["mean"], st["u"]
        m *= self.beta1
        m += (1 - self.beta1) * g
        u *= self.beta2
        xp.maximum(u, xp.abs(g), out=u)
        w -= (lr / (1 - self.beta1**t)) * m / (u + self.eps)


class AMSGRAD(_AdamBase):
    """v̂ ← max(v̂, v); w ← w − α·m/(√v̂ + ε); Adam's correction only with bias_correction."""

    state_names = ("mean", "var", "var_hat")

    def __init__(self, alpha: float = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 eps: float = 1e-8, bias_correction: bool = False, **kw: Any) -> None:  # fmt: skip
        super().__init__(alpha, beta1, beta2, eps, **kw)
        self.bias_correction = bool(bias_correction)

    def _update(self, w, g, st, t, lr):
        xp = get_array_module(w)
        m, v, v_hat = st["mean"], st["var"], st["var_hat"]
        self._moments(g, m, v)
        xp.maximum(v_hat, v, out=v_hat)
        alpha_t = lr * self._bias_correction(t) if self.bias_correction else lr
        w -= alpha_t * m / (xp.sqrt(v_hat) + self.eps)


class AdaBound(_AdamBase):
    """η = clip(α_t/(√v+ε), f(1 − 1/(γt+1)), f(1 + 1/(γt))), f = final_lr·α/α₀; w ← w − η·m."""

    state_names = ("m", "v")

    def __init__(self, alpha: float = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 eps: float = 1e-8, final_lr: float = 0.1, gamma: float = 0.001,
                 **kw: Any) -> None:  # fmt: skip
        super().__init__(alpha, beta1, beta2, eps, **kw)
        self.final_lr = float(final_lr)
        self.gamma = float(gamma)

    def _bounds(self, t: int) -> tuple[float, float]:
        f = self.final_lr * self._ratio()
        return f * (1 - 1 / (self.gamma * t + 1)), f * (1 + 1 / (self.gamma * t))

    def _step(self, w, m, denom_sq, t, alpha_t):
        xp = get_array_module(w)
        lower, upper = self._bounds(t)
        eta = xp.clip(alpha_t / (xp.sqrt(denom_sq) + self.eps), lower, upper)
        w -= eta * m

    def _update(self, w, g, st, t, lr):
        m, v = st["m"], st["v"]
        self._moments(g, m, v)
        self._step(w, m, v, t, lr * self._bias_correction(t))


class AMSBound(AdaBound):
    """AdaBound with v̂ = max(v̂, v), no correction by default, and upper bound f·(1 + t/γ).

    The upper bound follows nnabla's C++ (``1 + 1/gamma*t``), which differs from AdaBound's.
    """

    state_names = ("m", "v", "v_hat")

    def __init__(self, alpha: float = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 eps: float = 1e-8, final_lr: float = 0.1, gamma: float = 0.001,
                 bias_correction: bool = False, **kw: Any) -> None:  # fmt: skip
        super().__init__(alpha, beta1, beta2, eps, final_lr, gamma, **kw)
        self.bias_correction = bool(bias_correction)

    def _bounds(self, t: int) -> tuple[float, float]:
        f = self.final_lr * self._ratio()
        return f * (1 - 1 / (self.gamma * t + 1)), f * (1 + t / self.gamma)

    def _update(self, w, g, st, t, lr):
        xp = get_array_module(w)
        m, v, v_hat = st["m"], st["v"], st["v_hat"]
        self._moments(g, m, v)
        xp.maximum(v_hat, v, out=v_hat)
        alpha_t = lr * self._bias_correction(t) if self.bias_correction else lr
        self._step(w, m, v_hat, t, alpha_t)


class AdaBelief(_AdamBase):
    """AdaBelief as nnabla's ``adabelief.cpp`` (ε added to the stored s; optional rectify).

    ``wd`` is used only with ``weight_decouple`` (w ← w − w·λ·(1 if fixed_decay else α)); then
    ``weight_decay()`` replaces λ for the next update. Without it, ``weight_decay()`` is plain L2.
    """

    def __init__(self, alpha: float = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 eps: float = 1e-8, wd: float = 1e-4, amsgrad: bool = False,
                 weight_decouple: bool = False, fixed_decay: bool = False,
                 rectify: bool = False, **kw: Any) -> None:  # fmt: skip
        super().__init__(alpha, beta1, beta2, eps, **kw)
        self.wd = float(wd)
        self.amsgrad = bool(amsgrad)
        self.weight_decouple = bool(weight_decouple)
        self.fixed_decay = bool(fixed_decay)
        self.rectify = bool(rectify)
        self.decouples_decay = self.weight_decouple
        if self.amsgrad:
            self.state_names = ("mean", "var", "s_max")

    def _rectified(self, t: int, alpha: float) -> tuple[bool, float]:
        """(plain SGD step?, step size α_t) for update t."""
        b1t, b2t = self.beta1**t, self.beta2**t
        r_t = 1.0
        if self.rectify:
            rho_inf = 2.0 / (1.0 - self.beta2) - 1.0
            rho_t = rho_inf - 2.0 * t * b2t / (1.0 - b2t)
            if rho_t <= 4.0:
                return True, alpha
            r_t = math.sqrt(
                (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
            )
        return False, alpha * r_t / (1.0 - b1t)

    def _update(self, w, g, st, t, lr):
        xp = get_array_module(w)
        b1, b2, eps = self.beta1, self.beta2, self.eps
        m, s = st["mean"], st["var"]
        m *= b1
        m += (1 - b1) * g
        diff = g - m
        s *= b2
        s += (1 - b2) * diff * diff
        if self.weight_decouple:
            wd = self._decay_now(self.wd)
            w -= (wd if self.fixed_decay else wd * lr) * w
        if self.amsgrad:
            s_t = st["s_max"]
            xp.maximum(s_t, s, out=s_t)
            s_t += eps
        else:
            s += eps
            s_t = s
        sgd, alpha_t = self._rectified(t, lr)
        if sgd:
            w -= alpha_t * m
        else:
            w -= alpha_t * m / (xp.sqrt(s_t) / math.sqrt(1.0 - self.beta2**t) + eps)


SOLVERS: dict[str, type[Solver]] = {
    cls.__name__: cls
    for cls in (Sgd, Momentum, Nesterov, Adagrad, Adadelta, RMSprop, Adam, AdamW, Adamax,
                AMSGRAD, AdaBound, AMSBound, AdaBelief, Lars, SgdW)
}  # fmt: skip


def create_solver(name: str, **kwargs: Any) -> Solver:
    """The solver NNC calls ``name`` (``SolverName`` in a project), with nnabla argument names.

    Raises:
        ValueError: unknown solver name; the message lists the known ones.
    """
    cls = SOLVERS.get(name)
    if cls is None:
        raise ValueError(f"unknown solver {name!r}; expected one of: {', '.join(SOLVERS)}")
    return cls(**kwargs)
