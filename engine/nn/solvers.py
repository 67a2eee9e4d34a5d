"""Solvers (optimizers): every solver NNC offers, with NNC's defaults and nnabla's update rules.

``import engine.nn.solvers as S``; the API is nnabla's::

    solver = S.Adam(alpha=0.001)
    solver.set_parameters(nn.get_parameters())
    solver.zero_grad(); loss.backward()
    solver.weight_decay(1e-4)      # only when the CONFIG weight decay is > 0
    solver.set_learning_rate(scheduler.get_learning_rate(i))
    solver.update()

The update rules are nnabla's C++ (``src/nbla/solver/generic/*.cpp``) as written in
nnc-behaviour.md section 4; the defaults are NNC's ``solver_component.txt`` (nnabla's own differ
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
  parameters with multiplier 0 (nnc-layers.md section 1.7). Off by default.
"""

from __future__ import annotations

import math
import os
from typing import Any

from engine.core.autograd import Variable
from engine.core.backend import asarray, get_array_module
from engine.nn.parameter import ParameterFileError, get_lr_multiplier, load_arrays, save_arrays

__all__ = [
    "Solver", "SolverState", "Sgd", "Momentum", "Nesterov", "Adagrad", "Adadelta", "RMSprop",
    "Adam", "AdamW", "Adamax", "AMSGRAD", "AdaBound", "AMSBound", "AdaBelief", "Lars", "SgdW",
    "SOLVERS", "create_solver",
]  # fmt: skip

FORMAT_STATES = "neurocanvas-solver-states"
_T_MAX = 2**32 - 2  # nnabla saturates t at uint32 max - 1


class SolverState:
    """nnabla's ``SolverState``: the per-parameter state arrays ``pstate`` and update count ``t``."""

    __slots__ = ("pstate", "t")

    def __init__(self, pstate: dict[str, Any] | None = None, t: int = 0) -> None:
        self.pstate = {} if pstate is None else pstate
        self.t = int(t)

    def __repr__(self) -> str:
        return f"SolverState(t={self.t}, pstate={sorted(self.pstate)})"


class _Slot:
    """One registered parameter: its variable, state arrays, update count and LR factor."""

    __slots__ = ("var", "state", "t", "mult")

    def __init__(self, var: Variable, state: dict[str, Any], mult: float) -> None:
        self.var, self.state, self.t, self.mult = var, state, 0, mult


class Solver:
    """Base class: parameter registry, the update loop, weight decay, states and their files.

    Subclasses list their state arrays in ``state_names`` and implement
    ``_update(w, g, state, t, lr)``, changing ``w`` and the state arrays in place.
    """

    state_names: tuple[str, ...] = ()

    def __init__(self, lr: float, *, use_lr_multipliers: bool = False) -> None:
        self._lr = float(lr)
        self._lr0 = float(lr)
        self._slots: dict[str, _Slot] = {}
        self._wd_next: float | None = None
        self.use_lr_multipliers = bool(use_lr_multipliers)

    # ------------------------------------------------------------------ description
    @property
    def name(self) -> str:
        return type(self).__name__

    @property
    def info(self) -> dict[str, Any]:
        """The hyper-parameters, as nnabla's ``solver.info``."""
        skip = {"use_lr_multipliers"}
        return {k: v for k, v in vars(self).items() if not k.startswith("_") and k not in skip}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.info.items())
        return f"{self.name}(lr={self._lr!r}, {args})"

    def learning_rate(self) -> float:
        """The current learning rate (``lr`` or ``alpha``)."""
        return self._lr

    def set_learning_rate(self, learning_rate: float) -> None:
        """Set the learning rate used by the next updates (the scheduler calls this)."""
        self._lr = float(learning_rate)

    # ------------------------------------------------------------------ parameters
    def set_parameters(
        self, param_dict: dict[str, Variable], reset: bool = True, retain_state: bool = False
    ) -> None:
        """Register parameters ``{name: Variable}`` (usually ``nn.get_parameters()``).

        Args:
            reset: forget the previously registered parameters first.
            retain_state: keep the state of a re-registered name (same shape), as nnabla.
        """
        old = self._slots
        if reset:
            self._slots = {}
        for name, var in param_dict.items():
            if not isinstance(var, Variable):
                raise TypeError(
                    f"{self.name}.set_parameters: {name!r} is not a Variable. "
                    f"Received: {type(var).__name__}"
                )
            prev = old.get(name)
            mult = get_lr_multiplier(var) if self.use_lr_multipliers else 1.0
            if prev is not None and (retain_state or not reset) and prev.var.shape == var.shape:
                slot = _Slot(var, prev.state, mult)
                slot.t = prev.t
            else:
                xp = get_array_module(var.data)
                slot = _Slot(var, {k: xp.zeros_like(var.data) for k in self.state_names}, mult)
            self._slots[name] = slot

    def get_parameters(self) -> dict[str, Variable]:
        """The registered parameters ``{name: Variable}``."""
        return {k: s.var for k, s in self._slots.items()}

    def remove_parameters(self, keys: Any) -> None:
        """Forget the named parameters and their states."""
        for key in keys:
            self._slots.pop(key, None)

    def clear_parameters(self) -> None:
        """Forget every parameter and state."""
        self._slots.clear()

    # ------------------------------------------------------------------ gradients
    def zero_grad(self) -> None:
        """Set every registered gradient to None (the parameter "received no gradient")."""
        for slot in self._slots.values():
            slot.var.grad = None

    def _grads(self) -> Any:
        for slot in self._slots.values():
            if slot.var.grad is not None:
                yield slot.var

    def weight_decay(self, decay_rate: float) -> None:
        """L2 decay: ``g += decay_rate * w`` now, or the decoupled rate of the next update."""
        if self._decouples_decay():
            self._wd_next = float(decay_rate)
            return
        if decay_rate == 0:
            return
        for var in self._grads():
            var.grad += var.data * var.data.dtype.type(decay_rate)

    def _decouples_decay(self) -> bool:
        return False

    def _decay_now(self, own: float) -> float:
        """The decoupled decay rate of this update: ``weight_decay()``'s value, else ``own``."""
        return own if self._wd_next is None else self._wd_next

    def clip_grad_by_norm(self, clip_norm: float) -> None:
        """Scale each gradient so that its L2 norm is at most ``clip_norm`` (nnabla)."""
        for var in self._grads():
            xp = get_array_module(var.grad)
            norm = xp.sqrt(xp.sum(var.grad * var.grad))
            # No host sync: the factor is 1 when the norm is below the limit.
            var.grad *= (clip_norm / xp.maximum(norm, clip_norm)).astype(var.grad.dtype)

    def scale_grad(self, scale: float) -> None:
        """Multiply every gradient by ``scale`` (loss scaling)."""
        for var in self._grads():
            var.grad *= var.grad.dtype.type(scale)

    def check_inf_or_nan_grad(self) -> bool:
        """True when some gradient holds inf or NaN."""
        for var in self._grads():
            xp = get_array_module(var.grad)
            if not bool(xp.isfinite(var.grad).all()):
                return True
        return False

    # ------------------------------------------------------------------ update
    def update(self) -> None:
        """One step for every parameter that received a gradient (others are skipped)."""
        lr = self._lr
        update = self._update
        for slot in self._slots.values():
            g = slot.var.grad
            if g is None:
                continue
            slot.t = t = slot.t + 1 if slot.t < _T_MAX else _T_MAX
            update(slot.var.data, g, slot.state, t, lr * slot.mult)
        self._wd_next = None

    def _update(self, w: Any, g: Any, st: dict[str, Any], t: int, lr: float) -> None:
        raise NotImplementedError

    def _ratio(self) -> float:
        """Schedule ratio lr / lr0 (decoupled decay and AdaBound's final rate scale with it)."""
        return self._lr / self._lr0 if self._lr0 else 0.0

    # ------------------------------------------------------------------ states
    def get_states(self) -> dict[str, SolverState]:
        """``{name: SolverState}``; the arrays are the live state (copy them to keep them)."""
        return {k: SolverState(dict(s.state), s.t) for k, s in self._slots.items()}

    def set_states(self, states: dict[str, Any]) -> None:
        """Restore states from :meth:`get_states` (or dicts with ``pstate`` and ``t``)."""
        for name, st in states.items():
            slot = self._slots.get(name)
            if slot is None:
                raise KeyError(f"{self.name}.set_states: no registered parameter {name!r}")
            pstate = st.pstate if isinstance(st, SolverState) else st["pstate"]
            t = st.t if isinstance(st, SolverState) else st["t"]
            for key, value in pstate.items():
                if key not in slot.state:
                    raise KeyError(f"{self.name}.set_states: {name!r} has no state {key!r}")
                target = slot.state[key]
                value = asarray(value)
                if tuple(value.shape) != tuple(target.shape):
                    raise ValueError(
                        f"{self.name}.set_states: state {name!r}/{key!r} has shape "
                        f"{tuple(value.shape)}, the parameter needs {tuple(target.shape)}"
                    )
                target[...] = value
            slot.t = int(t)

    def save_states(self, path: str | os.PathLike) -> None:
        """Write the states to an ``.npz`` file (no pickle), atomically."""
        arrays, entries = {}, []
        for name, slot in self._slots.items():
            keys = {}
            for k, a in slot.state.items():
                keys[k] = f"s{len(arrays)}"
                arrays[keys[k]] = a
            entries.append({"name": name, "t": slot.t, "pstate": keys})
        meta = {"format": FORMAT_STATES, "version": 1, "solver": self.name, "states": entries}
        save_arrays(path, arrays, meta)

    def load_states(self, path: str | os.PathLike) -> None:
        """Read a file written by :meth:`save_states` into the registered parameters.

        Raises:
            ParameterFileError: unreadable file, another solver type, or unknown parameters.
        """
        path = os.fspath(path)
        arrays, meta = load_arrays(path)
        if meta is None or meta.get("format") != FORMAT_STATES:
            raise ParameterFileError(f"{path}: not a solver-state file")
        if meta.get("solver") != self.name:
            raise ParameterFileError(
                f"{path}: states of a {meta.get('solver')} solver cannot be loaded into {self.name}"
            )
        states = {}
        try:
            for e in meta["states"]:
                pstate = {k: arrays[key] for k, key in e["pstate"].items()}
                states[e["name"]] = SolverState(pstate, int(e["t"]))
            self.set_states(states)
        except (KeyError, TypeError, ValueError) as exc:
            raise ParameterFileError(f"{path}: {exc}") from exc


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

    def _decouples_decay(self) -> bool:
        return True

    def _update(self, w, g, st, t, lr):
        v = st["m"]
        v *= self.momentum
        v += lr * g
        w -= v + (self._ratio() * self._decay_now(self.wd)) * w


class Lars(Solver):
    """LARS with the CONFIG weight decay fused in (nnabla ``lars.cpp``, nnc-behaviour.md §4)."""

    state_names = ("v",)

    def __init__(self, lr: float = 0.001, momentum: float = 0.9, coefficient: float = 0.001,
                 eps: float = 1e-6, **kw: Any) -> None:  # fmt: skip
        super().__init__(lr, **kw)
        self.momentum = float(momentum)
        self.coefficient = float(coefficient)
        self.eps = float(eps)

    def _decouples_decay(self) -> bool:
        return True

    def _update(self, w, g, st, t, lr):
        xp = get_array_module(w)
        wd = self._decay_now(0.0)
        g_norm = float(xp.sqrt(xp.sum(g * g)))
        d_norm = float(xp.sqrt(xp.sum(w * w)))
        x = g_norm + wd * d_norm
        if x < self.eps:
            x += self.eps
        local = lr if d_norm < self.eps else lr * self.coefficient * d_norm / x
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

    def _moments(self, g: Any, m: Any, v: Any) -> None:
        b1, b2 = self.beta1, self.beta2
        m *= b1
        m += (1 - b1) * g
        v *= b2
        v += (1 - b2) * g * g

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
        self._moments(g, m, v)
        w -= (lr * self._bias_correction(t)) * m / (xp.sqrt(v) + self.eps)


class AdamW(_AdamBase):
    """Adam step, then w ← w − (α/α₀)·λ·w (λ = ``wd``, or ``weight_decay()``'s value)."""

    def __init__(self, alpha: float = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 eps: float = 1e-8, wd: float = 1e-4, **kw: Any) -> None:  # fmt: skip
        super().__init__(alpha, beta1, beta2, eps, **kw)
        self.wd = float(wd)

    def _decouples_decay(self) -> bool:
        return True

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
        if self.amsgrad:
            self.state_names = ("mean", "var", "s_max")

    def _decouples_decay(self) -> bool:
        return self.weight_decouple

    def _rectified(self, t: int, alpha: float) -> tuple[bool, float]:
        """(plain SGD step?, step size α_t) for update t."""
        b1t, b2t = self.beta1**t, self.beta2**t
        r_t = 1.0
        if self.rectify:
            rho_inf = 2.0 / (1.0 - self.beta2) - 1.0
            rho_t = rho_inf - 2.0 * t * b2t / (1.0 - b2t)
            if rho_t <= 4.0:
                return True, alpha
            r_t = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
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
