"""Project settings as NNC keeps them: datasets and the CONFIG tab (docs/formats.md §1.6-§1.11).

Each settings section is a frozen :class:`Section` holding the section's keys as RAW strings in
file order (``values``), exactly as NNC writes them, so an ``.sdcproj`` round-trips byte for byte
and a key this version does not know survives. Typed views read those strings with NNC's
defaults for missing keys (``opt.solver``, ``cfg.max_epoch``, ``ds.shuffle``). Edits replace the
section: ``sec.with_value("MaxEpoch", "20")``. Count keys that NNC derives from the project
(``Num``, ``NumOptimizer``, ``NumMonitor``, ``NumExecutor``) are not stored; writers compute them.

Classes and their ``.sdcproj`` sections (typed views in parentheses):

- ``Engine`` ``[Engine]`` (engine_type, rnn_training_mode)
- ``DatasetIndex`` ``[Dataset]`` (main_index)
- ``Dataset`` ``[Dataset_<i>]`` (name, uri, shuffle, enable_cache, image_normalization, num_data)
- ``GlobalConfig`` ``[Config]`` (max_epoch, save_best, batch_size, precision, monitor_interval,
  auto_evaluation)
- ``Optimizer`` ``[Optimizer_<i>]`` (name, network, dataset, solver, solver_parameters,
  weight_decay, update_interval, lr_scheduler, lr_steps; ``with_solver``)
- ``Monitor`` ``[Monitor_<i>]`` and ``Executor`` ``[Executor_<i>]`` (name, network, dataset, ...)
- ``StructureSearch`` ``[StructureSearch]`` (enabled, method, objective)

``Cls.new(**raw)`` builds a section the way a new NNC project does (NNCD ``config.ts``);
``default_settings()`` gives a whole new project's settings.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Self

from engine.core.messages import QT_TRANSLATE_NOOP, text_of
from engine.graph.config_keys import (
    Key,
    Section,
    SettingError,
    parse_value,
    relabel,
)

_UNKNOWN = QT_TRANSLATE_NOOP("Problems", "{where}: unknown parameter {name} (it has {known})")


class Engine(Section):
    SECTION = "Engine"
    KEYS = (
        Key("SDeepEngineType", default="NNabla", choices=("NNabla", "Transformers")),
        Key("RNNTrainingMode", "int", "0"),
    )
    NEW = (("SDeepEngineType", "NNabla"), ("RNNTrainingMode", "0"))

    @property
    def engine_type(self) -> str:
        return self._typed("SDeepEngineType", str)

    @property
    def rnn_training_mode(self) -> int:
        return self._typed("RNNTrainingMode", int)


class DatasetIndex(Section):
    """``[Dataset]`` without ``Num``: which dataset link is the main one (sets iter_per_epoch)."""

    SECTION = "Dataset"
    KEYS = (Key("MainIndex", "int", "0"),)
    NEW = (("MainIndex", "0"),)

    @property
    def main_index(self) -> int:
        return self._typed("MainIndex", int)


class Dataset(Section):
    SECTION = "Dataset_<i>"
    KEYS = (
        Key("Name"),
        Key("URI"),
        Key("Shuffle", "bool", "1"),
        Key("EnableCache", "bool", "1"),
        Key("ImageNormalization", "bool", "1"),
        Key("NumData", "int", "0", minimum=0),
    )
    NEW = (
        ("Name", "Training"), ("URI", ""), ("Shuffle", "1"), ("EnableCache", "1"),
        ("ImageNormalization", "1"), ("NumData", "0"),
    )  # fmt: skip

    @property
    def name(self) -> str:
        return self._typed("Name", str)

    @property
    def uri(self) -> str:
        return self._typed("URI", str)

    @property
    def shuffle(self) -> bool:
        return self._typed("Shuffle", bool)

    @property
    def enable_cache(self) -> bool:
        return self._typed("EnableCache", bool)

    @property
    def image_normalization(self) -> bool:
        return self._typed("ImageNormalization", bool)

    @property
    def num_data(self) -> int:
        return self._typed("NumData", int)


class GlobalConfig(Section):
    """``[Config]`` without its Num* keys."""

    SECTION = "Config"
    KEYS = (
        Key("MaxEpoch", "int", "100", minimum=1),
        Key("SaveBest", "bool", "1"),
        Key("BatchSize", "int", "64", minimum=1),
        Key("TypeConfig", default="Float", choices=("Float", "Half")),
        Key("MonitorInterval", "int", "10", minimum=1),
        Key("AutoEvaluation", "bool", "0"),
    )
    NEW = (
        ("MaxEpoch", "100"), ("SaveBest", "1"), ("BatchSize", "64"), ("TypeConfig", "Float"),
        ("MonitorInterval", "10"),
    )  # fmt: skip

    @property
    def max_epoch(self) -> int:
        return self._typed("MaxEpoch", int)

    @property
    def save_best(self) -> bool:
        return self._typed("SaveBest", bool)

    @property
    def batch_size(self) -> int:
        return self._typed("BatchSize", int)

    @property
    def precision(self) -> str:
        """``Float`` or ``Half`` (TypeConfig)."""
        return self._typed("TypeConfig", str)

    @property
    def monitor_interval(self) -> int:
        """NNC reads a missing or non-numeric value as 10; 0 or less also means 10 in nnabla."""
        try:
            value = self._typed("MonitorInterval", int)
        except SettingError:
            return 10
        return value if value > 0 else 10

    @property
    def auto_evaluation(self) -> bool:
        return self._typed("AutoEvaluation", bool)


# Solver parameters in solver_component.txt order: (display name, default).
# docs/nnc-behaviour.md §4.
SOLVERS: dict[str, tuple[tuple[str, str], ...]] = {
    "Adam": (("Alpha", "0.001"), ("Beta1", "0.9"), ("Beta2", "0.999"), ("Epsilon", "1e-08")),
    "AdamW": (("Alpha", "0.001"), ("Beta1", "0.9"), ("Beta2", "0.999"), ("Epsilon", "1e-08"),
              ("WeightDecay", "0.0001")),
    "Adamax": (("Alpha", "0.002"), ("Beta1", "0.9"), ("Beta2", "0.999"), ("Epsilon", "1e-08")),
    "AMSGRAD": (("Alpha", "0.001"), ("Beta1", "0.9"), ("Beta2", "0.999"), ("Epsilon", "1e-08")),
    "AMSBound": (("Alpha", "0.001"), ("Beta1", "0.9"), ("Beta2", "0.999"), ("Epsilon", "1e-08"),
                 ("FinalLR", "0.1"), ("Gamma", "0.001")),
    "AdaBound": (("Alpha", "0.001"), ("Beta1", "0.9"), ("Beta2", "0.999"), ("Epsilon", "1e-08"),
                 ("FinalLR", "0.1"), ("Gamma", "0.001")),
    "AdaBelief": (("Alpha", "0.001"), ("Beta1", "0.9"), ("Beta2", "0.999"), ("Epsilon", "1e-08"),
                  ("WeightDecay", "0.0001"), ("AMSGrad", "0"), ("WDDecouple", "0"),
                  ("FixedDecay", "0"), ("Rectify", "0")),
    "Adadelta": (("LearningRate", "1.0"), ("Decay", "0.95"), ("Epsilon", "1e-06")),
    "Adagrad": (("LearningRate", "0.01"), ("Epsilon", "1e-08")),
    "RMSprop": (("LearningRate", "0.001"), ("Decay", "0.9"), ("Epsilon", "1e-08")),
    "Momentum": (("LearningRate", "0.01"), ("Momentum", "0.9")),
    "Nesterov": (("LearningRate", "0.01"), ("Momentum", "0.9")),
    "Lars": (("LearningRate", "0.001"), ("Momentum", "0.9"), ("Coefficient", "0.001"),
             ("Epsilon", "1e-06")),
    "Sgd": (("LearningRate", "0.01"),),
    "SgdW": (("LearningRate", "0.001"), ("Momentum", "0.9"), ("WeightDecay", "0.0001")),
}  # fmt: skip

# The paper of each solver, cited by the report's References (NNC's solver_component.txt has
# ``reference=``; its report cites ADADELTA for Adam, corrected here). Sgd has none.
SOLVER_REFERENCES: dict[str, str] = {
    "Adam": "Kingma and Ba, Adam: A Method for Stochastic Optimization. "
            "https://arxiv.org/abs/1412.6980",
    "AdamW": "Loshchilov and Hutter, Decoupled Weight Decay Regularization. "
             "https://arxiv.org/abs/1711.05101",
    "Adamax": "Kingma and Ba, Adam: A Method for Stochastic Optimization (Section 7, AdaMax). "
              "https://arxiv.org/abs/1412.6980",
    "AMSGRAD": "Reddi, Kale and Kumar, On the Convergence of Adam and Beyond. "
               "https://openreview.net/forum?id=ryQu7f-RZ",
    "AMSBound": "Luo, Xiong, Liu and Sun, Adaptive Gradient Methods with Dynamic Bound of "
                "Learning Rate. https://arxiv.org/abs/1902.09843",
    "AdaBound": "Luo, Xiong, Liu and Sun, Adaptive Gradient Methods with Dynamic Bound of "
                "Learning Rate. https://arxiv.org/abs/1902.09843",
    "AdaBelief": "Zhuang et al., AdaBelief Optimizer: Adapting Stepsizes by the Belief in "
                 "Observed Gradients. https://arxiv.org/abs/2010.07468",
    "Adadelta": "Zeiler, ADADELTA: An Adaptive Learning Rate Method. "
                "https://arxiv.org/abs/1212.5701",
    "Adagrad": "Duchi, Hazan and Singer, Adaptive Subgradient Methods for Online Learning and "
               "Stochastic Optimization. https://jmlr.org/papers/v12/duchi11a.html",
    "RMSprop": "Tieleman and Hinton, Lecture 6.5 - RMSProp: Divide the gradient by a running "
               "average of its recent magnitude. COURSERA: Neural Networks for Machine Learning, "
               "2012.",
    "Momentum": "Qian, On the Momentum Term in Gradient Descent Learning Algorithms. Neural "
                "Networks 12(1), 1999.",
    "Nesterov": "Nesterov, A Method for Unconstrained Convex Minimization Problem with the Rate "
                "of Convergence O(1/k^2). Doklady AN SSSR 269, 1983.",
    "Lars": "You, Gitman and Ginsburg, Large Batch Training of Convolutional Networks. "
            "https://arxiv.org/abs/1708.03888",
    "SgdW": "Loshchilov and Hutter, Decoupled Weight Decay Regularization. "
            "https://arxiv.org/abs/1711.05101",
}  # fmt: skip


# The range of each solver parameter (display name): rates and epsilons are not negative,
# moment decays lie in [0, 1) (Adam's step divides by 1 - Beta1^t and takes the root of
# 1 - Beta2^t), the AdaBelief switches are 1 or 0.
SOLVER_PARAMETER_KEYS: dict[str, Key] = {
    key.name: key
    for key in (
        *(Key(n, "float", minimum=0) for n in ("Alpha", "LearningRate", "Epsilon", "FinalLR",
                                              "Gamma", "Coefficient", "WeightDecay")),
        *(Key(n, "float", minimum=0, maximum=1, below=True) for n in ("Beta1", "Beta2")),
        *(Key(n, "float", minimum=0, maximum=1) for n in ("Decay", "Momentum")),
        *(Key(n, "bool") for n in ("AMSGrad", "WDDecouple", "FixedDecay", "Rectify")),
    )
}  # fmt: skip


def _solver_keys(params: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    keys = [("SolverParameterNum", str(len(params)))]
    for j, (name, value) in enumerate(params):
        keys += [(f"SolverParameterName_{j}", name), (f"SolverParameter_{j}", value)]
    return tuple(keys)


class Optimizer(Section):
    SECTION = "Optimizer_<i>"
    KEYS = (
        Key("RangeFrom", "int", "-1"),
        Key("RangeTo", "int", "-1"),
        Key("RangeUnit", "int", "0", ("0", "1")),
        Key("Optimizer_Name"),
        Key("Optimizer_NetworkName"),
        Key("Optimizer_DatasetName"),
        Key("UpdateInterval", "int", "1", minimum=1),
        Key("SolverName", default="Adam", choices=tuple(SOLVERS)),
        Key("SolverParameterNum", "int", "0", minimum=0, maximum=16),
        Key("WeightDecay", "float", "0", minimum=0),
        Key("LearningRateScheduler", default="Exponential",
            choices=("Exponential", "Cosine", "Polynomial", "Step")),
        Key("LearningRateMultiplier", "float", "1", minimum=0),
        Key("LearningRateUpdateInterval", "int", "1", minimum=1),
        # Missing means iterations (older files); new optimizers write 0 = epochs.
        Key("LearningRateUpdateIntervalUnit", "int", "1", ("0", "1")),
        Key("LearningRatePower", "float", "1"),
        Key("LearningRateSteps"),
        Key("LearningRateWarmupScheduler", default="None", choices=("None", "Linear")),
        Key("LearningRateWarmupLength", "int", "0", minimum=0),
        Key("LearningRateWarmupLengthUnit", "int", "0", ("0", "1")),
    )  # fmt: skip
    NEW = (
        ("RangeFrom", "-1"), ("RangeTo", "-1"), ("RangeUnit", "0"),
        ("Optimizer_Name", "Optimizer"), ("Optimizer_NetworkName", "Main"),
        ("Optimizer_DatasetName", "Training"), ("UpdateInterval", "1"), ("SolverName", "Adam"),
        *_solver_keys(SOLVERS["Adam"]),
        ("WeightDecay", "0"), ("LearningRateScheduler", "Exponential"),
        ("LearningRateMultiplier", "1"), ("LearningRateUpdateInterval", "1"),
        ("LearningRateUpdateIntervalUnit", "0"), ("LearningRatePower", "1"),
        ("LearningRateSteps", ""), ("LearningRateWarmupScheduler", "None"),
        ("LearningRateWarmupLength", "5"), ("LearningRateWarmupLengthUnit", "0"),
    )  # fmt: skip

    @property
    def name(self) -> str:
        return self._typed("Optimizer_Name", str)

    @property
    def network(self) -> str:
        return self._typed("Optimizer_NetworkName", str)

    @property
    def dataset(self) -> str:
        return self._typed("Optimizer_DatasetName", str)

    @property
    def solver(self) -> str:
        return self._typed("SolverName", str)

    @property
    def solver_parameters(self) -> dict[str, str]:
        """Display name -> raw value, in file order (``SolverParameterName_j``/``_j``)."""
        count = self._typed("SolverParameterNum", int)
        out = {}
        for j in range(count):
            name = self.values.get(f"SolverParameterName_{j}")
            if name is not None:
                out[name] = self.values.get(f"SolverParameter_{j}", "")
        return out

    def with_solver(self, solver: str, parameters: Mapping[str, str] | None = None) -> Self:
        """A copy using ``solver`` with ``parameters`` (NNC's defaults when ``None``)."""
        params = tuple((parameters or dict(SOLVERS.get(solver, ()))).items())
        values = {
            k: v
            for k, v in self.values.items()
            if not k.startswith(("SolverParameterName_", "SolverParameter_"))
            and k != "SolverParameterNum"
        }
        out: dict[str, str] = {}
        for k, v in values.items():
            out[k] = v
            if k == "SolverName":
                out[k] = solver
                out.update(_solver_keys(params))
        if "SolverName" not in out:
            out["SolverName"] = solver
            out.update(_solver_keys(params))
        return replace(self, values=out)

    def problems(self) -> list[str]:
        """The section's own keys, then every solver parameter against its range."""
        found = super().problems()
        if found:
            return found
        where = f"[{self.SECTION}] solver {self.solver}"
        known = dict(SOLVERS.get(self.solver, ()))
        for name, text in self.solver_parameters.items():
            spec = SOLVER_PARAMETER_KEYS.get(name)
            if name not in known or spec is None:
                found.append(_UNKNOWN.format(where=where, name=name, known=", ".join(known)))
                continue
            try:
                parse_value(spec, text, self.SECTION)
            except SettingError as exc:
                found.append(relabel(text_of(exc), f"[{self.SECTION}]", where))
        return found

    @property
    def weight_decay(self) -> float:
        return self._typed("WeightDecay", float)

    @property
    def update_interval(self) -> int:
        return self._typed("UpdateInterval", int)

    @property
    def lr_scheduler(self) -> str:
        return self._typed("LearningRateScheduler", str)

    @property
    def lr_steps(self) -> tuple[int, ...]:
        text = self._typed("LearningRateSteps", str).strip()
        try:
            return tuple(int(s) for s in text.split(",") if s.strip())
        except ValueError:
            raise SettingError(
                f"[{self.SECTION}] LearningRateSteps: expected comma-separated integers. "
                f"Received: LearningRateSteps={text}"
            ) from None


class Monitor(Section):
    SECTION = "Monitor_<i>"
    KEYS = (Key("Monitor_Name"), Key("Monitor_NetworkName"), Key("Monitor_DatasetName"))
    NEW = (
        ("Monitor_Name", "train_error"), ("Monitor_NetworkName", "MainValidation"),
        ("Monitor_DatasetName", "Training"),
    )  # fmt: skip

    @property
    def name(self) -> str:
        return self._typed("Monitor_Name", str)

    @property
    def network(self) -> str:
        return self._typed("Monitor_NetworkName", str)

    @property
    def dataset(self) -> str:
        return self._typed("Monitor_DatasetName", str)


class Executor(Section):
    SECTION = "Executor_<i>"
    KEYS = (
        Key("Executor_Name"),
        Key("Executor_NetworkName"),
        Key("Executor_DatasetName"),
        Key("NumEvaluations", "int", "1", minimum=1),
        Key("RepeatEvaluationType", "int", "0"),
        Key("NeedBackPropagation", "bool", "0"),
    )
    NEW = (
        ("Executor_Name", "Executor"), ("Executor_NetworkName", "MainRuntime"),
        ("Executor_DatasetName", "Validation"), ("NumEvaluations", "1"),
        ("RepeatEvaluationType", "0"), ("NeedBackPropagation", "0"),
    )  # fmt: skip

    @property
    def name(self) -> str:
        return self._typed("Executor_Name", str)

    @property
    def network(self) -> str:
        return self._typed("Executor_NetworkName", str)

    @property
    def dataset(self) -> str:
        return self._typed("Executor_DatasetName", str)

    @property
    def num_evaluations(self) -> int:
        return self._typed("NumEvaluations", int)

    @property
    def repeat_evaluation_type(self) -> str:
        """``mean`` (0) or ``last`` (anything else), as nntxt names them."""
        return "mean" if self.get("RepeatEvaluationType") == 0 else "last"

    @property
    def need_back_propagation(self) -> bool:
        return self._typed("NeedBackPropagation", bool)


class StructureSearch(Section):
    SECTION = "StructureSearch"
    KEYS = (
        Key("Enabled", "bool", "0"),
        Key("Method", default="Random"),
        Key("Objective", default="ErrorAndCalculation"),
        Key("Validation_Min", "float", "-1"),
        Key("Validation_Max", "float", "-1"),
        Key("CostMultiplyAdd_Min", "float", "-1"),
        Key("CostMultiplyAdd_Max", "float", "-1"),
        Key("EarlyStopping", "bool", "0"),
        Key("TimeLimit"),
        Key("SetLearningRateOfConvolutionAsZero", "bool", "0"),
        Key("AttemptHours", "float", "2"),
        Key("AttemptTimes", "int", "100"),
        Key("NumParallel", "int", "1"),
    )
    NEW = (
        ("Enabled", "0"), ("Method", "Random"), ("Objective", "ErrorAndCalculation"),
        ("Validation_Min", "-1"), ("Validation_Max", "-1"), ("CostMultiplyAdd_Min", "-1"),
        ("CostMultiplyAdd_Max", "-1"), ("EarlyStopping", "0"), ("TimeLimit", "0"),
        ("SetLearningRateOfConvolutionAsZero", "0"), ("AttemptHours", "2"),
        ("AttemptTimes", "100"), ("NumParallel", "1"),
    )  # fmt: skip

    @property
    def enabled(self) -> bool:
        return self._typed("Enabled", bool)

    @property
    def method(self) -> str:
        """Any value other than ``Random`` means ``NetworkFeatureAndGaussianProcess`` (NNC)."""
        return "Random" if self.get("Method") == "Random" else "NetworkFeatureAndGaussianProcess"

    @property
    def objective(self) -> str:
        return "Error" if self.get("Objective") == "Error" else "ErrorAndCalculation"


# Collections of a project and their item class; singletons and their class.
COLLECTIONS: dict[str, type[Section]] = {
    "datasets": Dataset,
    "optimizers": Optimizer,
    "monitors": Monitor,
    "executors": Executor,
}
SINGLETONS: dict[str, type[Section]] = {
    "engine": Engine,
    "dataset_index": DatasetIndex,
    "config": GlobalConfig,
    "structure_search": StructureSearch,
}


def default_settings() -> dict[str, Any]:
    """A new NNC project's settings (NNCD ``config.ts``), as ``Project`` keyword arguments."""
    return {
        "engine": Engine.new(),
        "dataset_index": DatasetIndex.new(),
        "config": GlobalConfig.new(),
        "structure_search": StructureSearch.new(),
        "datasets": [
            Dataset.new(Name="Training", Shuffle="1"),
            Dataset.new(Name="Validation", Shuffle="0"),
        ],
        "optimizers": [Optimizer.new()],
        "monitors": [
            Monitor.new(),
            Monitor.new(Monitor_Name="valid_error", Monitor_DatasetName="Validation"),
        ],
        "executors": [Executor.new()],
    }
