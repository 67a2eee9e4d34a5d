"""The solver base class: parameter registry, update loop, weight decay, states and their files.

The update rules live in :mod:`engine.nn.solvers` (one class per NNC solver); this module holds
what they share, so that each stays a few lines long.
"""

from __future__ import annotations

import os
from typing import Any

from engine.core.autograd import Variable
from engine.core.backend import asarray, get_array_module
from engine.nn.parameter import get_lr_multiplier
from engine.nn.parameter_file import ParameterFileError, load_arrays, save_arrays

__all__ = ["Solver", "SolverState", "FORMAT_STATES"]

FORMAT_STATES = "neurocanvas-solver-states"
_T_MAX = 2**32 - 2  # nnabla saturates t at uint32 max - 1


class SolverState:
    """nnabla's ``SolverState``: per-parameter state arrays ``pstate`` and update count ``t``."""

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
    # AdamW, SgdW, Lars, AdaBelief(weight_decouple): weight_decay() sets the next update's rate
    decouples_decay = False

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
        skip = {"use_lr_multipliers", "decouples_decay"}
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
        if self.decouples_decay:
            self._wd_next = float(decay_rate)
            return
        if decay_rate == 0:
            return
        for var in self._grads():
            var.grad += var.data * var.data.dtype.type(decay_rate)

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
        """True when some gradient holds inf or NaN (one host synchronisation in all)."""
        flags = [get_array_module(v.grad).isfinite(v.grad).all() for v in self._grads()]
        if not flags:
            return False
        return not bool(get_array_module(flags[0]).stack(flags).all())

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
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ParameterFileError(f"{path}: {exc}") from exc
