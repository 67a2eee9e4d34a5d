"""A job's trained network as the plugins use it: forward a batch, read any layer's output,
and back-propagate a class score to any layer or to the input.

The network is the job's first executor (as NNC's plugins read the executor of ``results.nnp``)
with its best (or last) parameters. Dataset variables the network reads besides the input
(the label of a loss layer) are fed zeros: a plugin asks about the prediction, not the loss.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import engine.nn as nn
from engine.core import backend
from engine.core.autograd import backward
from engine.data.loaders import FileLoadError, load_file, normalization_scale
from engine.plugins.errors import PluginError
from engine.runtime import inference_plan
from engine.runtime.compiler import compile_network
from engine.runtime.evaluator import load_parameters
from engine.runtime.job import Job
from engine.runtime.program import Program
from engine.runtime.session import RunPlan

__all__ = ["JobModel", "PluginError"]


class JobModel:
    """The job's executor network with its trained parameters."""

    def __init__(self, job_dir: str | Path, checkpoint: str = "best") -> None:
        self.job = Job.open(Path(job_dir))
        plan = RunPlan.from_json(self.job.plan(), str(self.job.config_file))
        if not plan.executors:
            raise PluginError(f"{self.job.root}: the project has no executor (CONFIG)")
        info = plan.executors[0]
        self.program: Program = compile_network(self.job.load_project(), info["network"])
        self.params = load_parameters(self.job, [self.program], checkpoint)[0]
        dataset = plan.datasets.get(str(info.get("dataset")), {})
        self.normalize = bool(dataset.get("normalize", True))
        self.seed = plan.seed
        self.input = self.program.variables()[0]
        self.input_shape = tuple(self.program.feeds[self.input])

    # -- names -------------------------------------------------------------------------------
    def outputs(self) -> list[str]:
        return [name for name, _ in self.program.outputs]

    def layers(self, layer_type: str | None = None) -> list[str]:
        return [s.name for s in self.program.steps if layer_type in (None, s.type)]

    def variable(self, name: str, what: str) -> str:
        """``name`` as a key of the activations: an output variable (``y'``) or a layer."""
        if name in self.outputs():
            return f"output:{name}"
        if name in self.layers():
            return name
        known = ", ".join(self.outputs() + self.layers())
        raise PluginError(f"{what} {name!r}: the network {self.program.network!r} has no such "
                          f"output variable or layer (it has {known})")  # fmt: skip

    # -- inputs ------------------------------------------------------------------------------
    def load(self, path: str | Path) -> np.ndarray:
        """One sample file as the network reads it (images scaled by 1/255 as NNC does)."""
        try:
            raw = load_file(Path(path))
        except FileLoadError as exc:
            raise PluginError(f"image {path}: {exc}") from None
        scale = normalization_scale(raw.dtype) if self.normalize else None
        value = raw.astype(np.float32) * np.float32(scale or 1.0)
        if value.size != int(np.prod(self.input_shape)):
            raise PluginError(f"image {path}: shape {value.shape} does not fit the input "
                              f"{self.input!r} of shape {self.input_shape}")  # fmt: skip
        return value.reshape(self.input_shape)

    def _batch(self, x: np.ndarray) -> dict[str, Any]:
        x = np.asarray(x, np.float32).reshape((-1, *self.input_shape))
        batch: dict[str, Any] = {self.input: x}
        for name, shape in self.program.feeds.items():
            if name != self.input:
                batch[name] = np.zeros((x.shape[0], *shape), np.float32)
        return batch

    # -- running -----------------------------------------------------------------------------
    def forward(self, x: np.ndarray, names: list[str], chunk: int = 256) -> list[np.ndarray]:
        """The values of ``names`` (activation keys, :meth:`variable`) for a batch of inputs."""
        x = np.asarray(x, np.float32).reshape((-1, *self.input_shape))
        parts: list[list[np.ndarray]] = [[] for _ in names]
        # Output variables only (LIME, SHAP, the Inference plugin): the runtime's test-mode
        # plan, built for this call (the parameters may change between calls); a layer's
        # activation needs the generic pass, which keeps every step's output.
        plan = inference_plan.build(self.program, self.params) if all(
            n.startswith("output:") for n in names) else None  # fmt: skip
        with nn.no_grad():
            for start in range(0, len(x), chunk):
                batch = self._batch(x[start : start + chunk])
                if plan is not None:
                    outs = plan.run(batch)
                    values = [outs[n[len("output:") :]] for n in names]
                else:
                    acts = self.program.forward(batch, self.params)
                    values = [acts[n].data for n in names]
                for k, value in enumerate(values):
                    parts[k].append(backend.to_numpy(value).astype(np.float64))
        return [np.concatenate(p) for p in parts]

    def gradient(
        self, x: np.ndarray, output: str, seed: Callable[[np.ndarray], np.ndarray], at: list[str]
    ) -> tuple[np.ndarray, list[tuple[np.ndarray, np.ndarray]]]:
        """Back-propagate ``output`` seeded by ``seed(output value)`` (a one-hot of the class
        to explain) to the keys ``at`` (a layer, or ``feed:<input>``): ``(output value,
        [(activation, gradient) per key])``."""
        acts = self.program.forward(self._batch(x), self.params, input_grad=True)
        out = acts[output]
        value = backend.to_numpy(out.data).astype(np.float64)
        try:
            backward([out], [backend.asarray(seed(value).astype(np.float32))], retain_grad=True)
            found = []
            for key in at:
                var = acts[key]
                grad = var.grad if var.grad is not None else np.zeros_like(var.data)
                found.append((backend.to_numpy(var.data).astype(np.float64),
                              backend.to_numpy(grad).astype(np.float64)))  # fmt: skip
        finally:
            for var in self.params.values():
                var.grad = None
        return value, found

    def training(self) -> tuple[Program, dict[str, Any]]:
        """The optimizer's network (with its loss), sharing the trained parameters."""
        if getattr(self, "_training", None) is None:
            plan = self.job.plan()
            optimizers = plan.get("optimizers") or []
            if not optimizers:
                raise PluginError(f"{self.job.root}: the project has no optimizer (CONFIG)")
            program = compile_network(self.job.load_project(), optimizers[0]["network"])
            if not program.losses:
                raise PluginError(f"network {program.network!r} has no loss layer")
            self._training = (program, program.create_parameters(self.job.project_base()))
        return self._training

    def parameter_gradients(self, x: np.ndarray, t: np.ndarray) -> dict[str, np.ndarray]:
        """Gradients of the training network's loss for one labelled batch, by parameter."""
        program, params = self.training()
        x = np.asarray(x, np.float32)
        batch: dict[str, Any] = {}
        feeds = list(program.feeds)
        label = next((n for n in feeds if n != self.input), None)
        batch[self.input] = x.reshape((-1, *program.feeds[self.input]))
        if label is not None:
            batch[label] = np.asarray(t, np.float32).reshape((-1, *program.feeds[label]))
        for var in params.values():
            var.grad = None
        acts = program.forward(batch, params)
        backward(program.loss_values(acts))
        grads = {}
        for name, var in program.trainable(params).items():
            g = var.grad if var.grad is not None else np.zeros_like(var.data)
            grads[name] = backend.to_numpy(g).astype(np.float64)
            var.grad = None
        return grads

    def label_variable(self) -> str | None:
        program, _ = self.training()
        return next((n for n in program.feeds if n != self.input), None)

    def row_input(self, header: list[str], cells: list[str]) -> np.ndarray:
        """The network's input of one output-table row: its file (``x:image``, ``x``) or
        its ``x__0``, ``x__1``... columns."""
        names = [h.split(":")[0] for h in header]
        if self.input in names:
            return self.load(cells[names.index(self.input)])
        picks = [k for k, n in enumerate(names) if n.startswith(f"{self.input}__")]
        if not picks:
            raise PluginError(f"the table has no column {self.input!r} (the network's input)")
        try:
            values = np.array([float(cells[k]) for k in picks], np.float32)
        except ValueError as exc:
            raise PluginError(f"column {self.input!r}: not a number: {exc}") from None
        if values.size != int(np.prod(self.input_shape)):
            raise PluginError(f"columns {self.input}__*: {values.size} values for an input of "
                              f"shape {self.input_shape}")  # fmt: skip
        return values.reshape(self.input_shape)

    def class_score(self, output: str, class_index: int) -> Callable[[np.ndarray], np.ndarray]:
        """``x batch -> output[class_index]`` (a flat index into the output)."""
        key = self.variable(output, "--output_variable")

        def score(x: np.ndarray) -> np.ndarray:
            (value,) = self.forward(x, [key])
            flat = value.reshape(len(value), -1)
            if not 0 <= class_index < flat.shape[1]:
                raise PluginError(f"--class_index {class_index}: the output has {flat.shape[1]} "
                                  f"values")  # fmt: skip
            return flat[:, class_index]

        return score
