"""Write a project (and trained parameters) as nnabla's ``.nnp`` (docs/formats.md §4).

The networks are the compiled programs (units expanded, as NNC's nntxt has them) of every
network an optimizer, monitor or executor names; a derived ``MainRuntime`` is written out under
its name as NNC does. Each step becomes a ``function`` whose type and ``<snake>_param`` fields
come from nnabla's schema: the catalogue's F function names the param message
(``convolution`` -> ``convolution_param``), the step's keyword arguments fill its fields.
Loops stay folded (:mod:`engine.runtime.folded`): ``repeat_info``, ``repeat_id`` and the
RepeatStart/RepeatEnd/RecurrentInput/RecurrentOutput/Delay functions with ``repeat_param`` or
``recurrent_param``. A WorkingMemory is a ``Buffer`` variable named after it (read) or an
Identity (stored). Parameters go to ``parameter.protobuf``; the archive also holds
``nnp_version.txt`` and ``network.nntxt`` (protobuf text).
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from engine.core import optional
from engine.formats.nnabla.schema import message_class
from engine.graph.project import Project
from engine.layers import find_spec
from engine.layers.errors import ExportError
from engine.layers.loop_control import LOOP_TYPES

text_format = optional.lazy("google.protobuf.text_format")

if TYPE_CHECKING:  # a compiled program is what the writer reads; runtime compiles it
    from engine.runtime.program import Program, Ref

__all__ = ["nnp_bytes", "nnp_message", "nnabla_type", "NNP_VERSION", "SOLVER_FIELDS"]

NNP_VERSION = "0.1"
# NNC solver setting -> nnabla ``<solver>_param`` field, where lower-casing is not enough.
SOLVER_FIELDS = {"Epsilon": "eps", "LearningRate": "lr", "FinalLR": "final_lr",
                 "AMSGrad": "amsgrad", "WDDecouple": "weight_decouple",
                 "FixedDecay": "fixed_decay", "Rectify": "rectify"}  # fmt: skip


def nnabla_type(step_type: str) -> tuple[str, str | None]:
    """nnabla's function type and ``<snake>_param`` field name for an NNC layer type."""
    spec = find_spec(step_type)
    function = spec.function if spec is not None else None
    fields = message_class("Function").DESCRIPTOR.fields_by_name
    field = f"{function}_param" if function else None
    if field in fields:
        return fields[field].message_type.name.removesuffix("Parameter"), field
    return step_type, None


def python_names(step_type: str) -> dict[str, str]:
    """F keyword -> nnabla field where the catalogue says they differ (``-pyargname=axis``)."""
    spec = find_spec(step_type)
    names = {}
    for prop in spec.properties if spec is not None else ():
        arg = prop.argument
        for flag in arg.flags if arg is not None else ():
            if flag.startswith("-pyargname="):
                names[flag.removeprefix("-pyargname=")] = arg.name.split(".", 1)[-1]
    return names


def _fill(message: Any, kwargs: Mapping[str, Any], where: str, renames: Any = None) -> None:
    fields = message.DESCRIPTOR.fields_by_name
    for key, value in kwargs.items():
        if value is None:
            continue
        key = (renames or {}).get(key, key)
        field = fields.get(key)
        if field is None:
            raise ExportError(f'{where}: nnabla has no argument "{key}"')
        if field.message_type is not None:  # Shape
            getattr(message, key).dim.extend(int(v) for v in value)
        elif field.is_repeated:
            getattr(message, key).extend(value if isinstance(value, tuple | list) else [value])
        elif isinstance(value, tuple | list):
            raise ExportError(f'{where}: argument "{key}" takes one value. Received: {value}')
        else:
            py = {float: float, int: int, bool: bool, str: str}
            kind = type(getattr(message, key))
            setattr(message, key, py.get(kind, kind)(value))


class _Network:
    """Variables and functions of one program, written into a ``Network`` message."""

    def __init__(self, msg: Any, program: Program) -> None:
        self.msg = msg
        self.program = program
        self.decls = {d.name: d for d in program.parameters}
        self.names: set[str] = set()
        self.loops: dict[str, int] = {}  # repeat_info: loop id -> times

    def variable(self, name: str, shape: tuple[int, ...], kind: str = "Buffer",
                 repeat_ids: tuple[str, ...] = ()) -> str:  # fmt: skip
        if name not in self.names:
            self.names.add(name)
            var = self.msg.variable.add(name=name, type=kind)
            var.repeat_id.extend(repeat_ids)
            var.shape.dim.extend(shape)
        return name

    def ref(self, ref: Ref, step: Any, k: int) -> str:
        kind = ref[0]
        if kind == "step":
            return str(ref[1])
        if kind == "feed":
            return self.variable(str(ref[1]), (-1, *ref[2]))
        decl = self.decls.get(ref[1]) if kind == "param" else None
        if decl is not None and decl.buffer:  # WorkingMemory read: NNC's Buffer variable,
            if ref[1] not in self.names:  # one per sample as nnabla's VATNoise needs it
                self.variable(ref[1], (-1, *decl.shape))
                var = self.msg.variable[-1]
                var.initializer.type = decl.initializer
                var.initializer.multiplier = decl.multiplier
            return ref[1]
        if decl is not None:  # one per iteration of the repeat blocks whose {id} it names
            ids = tuple(r for r in step.repeat_ids if "{" + r + "}" in ref[1])
            value = np.zeros(decl.shape, np.float32)
            return self.variable(ref[1], _param_shape(step, k, value), "Parameter", ids)
        if kind == "gen":  # a generator_variable of the optimizer/monitor/executor
            return self.variable(
                generator_name(ref[1]), (-1, *self.program.generators[ref[1]].shape)
            )
        raise ExportError(f'network "{self.program.network}", layer "{step.name}": input '
                          f"{ref!r} has no nnabla equivalent")  # fmt: skip

    def function(self, step: Any) -> None:
        where = f'network "{self.program.network}", layer "{step.name}" ({step.type})'
        # WorkingMemory with an input: an Identity whose output is the buffer (docs/layers.md §4.3)
        type_, field = (
            ("Identity", None) if step.type == "WorkingMemory" else nnabla_type(step.type)
        )
        inputs = [self.ref(r, step, k) for k, r in enumerate(step.inputs) if r[0] != "none"]
        fn = self.msg.function.add(name=step.name, type=type_)
        fn.repeat_id.extend(step.repeat_ids)
        fn.input.extend(inputs)
        fn.output.append(self.variable(step.name, (-1, *step.shape), "Buffer", step.repeat_ids))
        if step.type in LOOP_TYPES:  # repeat_param / recurrent_param, beside the oneof
            _fill(getattr(fn, LOOP_TYPES[step.type]), step.kwargs, where)
            times = step.kwargs.get("times", step.kwargs.get("length"))
            if times is not None:
                self.loops.setdefault(step.kwargs["repeat_id"], int(times))
            return
        kwargs = dict(step.kwargs)
        for key in step.batch_kwargs:  # nnabla's reshape infers a -1: any batch size runs
            batch = -1 if type_ == "Reshape" else self.msg.batch_size
            kwargs[key] = (batch, *kwargs[key])
        if field is not None:
            _fill(getattr(fn, field), kwargs, where, python_names(step.type))
        elif any(v is not None for v in kwargs.values()):
            raise ExportError(f"{where}: nnabla has no {type_} taking {', '.join(kwargs)}")


def generator_name(index: int) -> str:
    """The variable of generated input ``index`` (Normal, Uniform, Constant, Range noise)."""
    return f"Generator_{index}"


def _param_shape(step: Any, k: int, value: np.ndarray) -> tuple[int, ...]:
    """nnabla's shape: batch normalization keeps the batch axis, ``(1, C, 1, 1)``."""
    shape = tuple(np.shape(value))
    if step.type == "BatchNormalization" and k > 0 and len(shape) == len(step.shape):
        return (1, *shape)
    return shape


def unsupported(program: Program) -> list[str]:
    """Steps nntxt cannot express here: unrolled recurrent loops (write the folded program),
    NNC's graph constructs that no nnabla function computes."""

    def runs_in_nnabla(step: Any) -> bool:
        spec = find_spec(step.type)
        if step.type in (*LOOP_TYPES, "WorkingMemory"):
            return True
        return step.item is None and spec is not None and spec.function is not None

    return [f'layer "{s.name}" ({s.type})' for s in program.steps if not runs_in_nnabla(s)]


def nnp_message(
    project: Project, programs: Mapping[str, Program], values: Mapping[str, np.ndarray],
    unrolled: Mapping[str, Program] | None = None,
) -> Any:  # fmt: skip
    """The ``NNablaProtoBuf``: networks, datasets, optimizers, monitors, executors.

    ``programs`` are folded (loops as nnabla's repeat form); ``unrolled`` are the programs that
    run, whose parameter names (``Conv[0]/conv/W``) the stored values have.
    """
    proto = message_class()()
    proto.version = NNP_VERSION
    ctx = proto.global_config.default_context
    ctx.backends.append("cpu:float")
    ctx.array_class = "CpuCachedArray"
    conf = project.config
    proto.training_config.max_epoch = conf.max_epoch
    proto.training_config.save_best = conf.save_best
    proto.training_config.monitor_interval = int(conf.get("MonitorInterval"))
    for name, program in programs.items():
        msg = proto.network.add(name=name, batch_size=conf.batch_size)
        net = _Network(msg, program)
        for step in program.steps:
            net.function(step)
        for loop_id, times in net.loops.items():
            msg.repeat_info.add(id=loop_id, times=times)
    for d in project.datasets:
        proto.dataset.add(
            name=d.name,
            type="Cache",
            uri=d.uri,
            batch_size=conf.batch_size,
            shuffle=d.shuffle,
            no_image_normalization=not d.image_normalization,
        )
    for o in project.optimizers:
        params = (unrolled or programs)[o.network].parameters
        _optimizer(proto.optimizer.add(), o, programs[o.network], params)
    for m in project.monitors:
        msg = proto.monitor.add(name=m.name, network_name=m.network)
        msg.dataset_name.append(m.dataset)
        _data_variables(msg, programs[m.network])
        for loss in programs[m.network].losses:
            msg.monitor_variable.add(type="Error", variable_name=loss)
    for e in project.executors:
        msg = proto.executor.add(name=e.name, network_name=e.network,
                                 num_evaluations=e.num_evaluations,
                                 repeat_evaluation_type=e.repeat_evaluation_type,
                                 need_back_propagation=e.need_back_propagation)  # fmt: skip
        program = programs[e.network]
        _data_variables(msg, program)
        for out_name, ref in program.outputs:
            msg.output_variable.add(variable_name=str(ref[1]), type="Buffer", data_name=out_name)
        for loss in program.losses if e.need_back_propagation else ():  # what backward starts at
            msg.loss_variable.add(variable_name=loss)
        # expanded names (Conv[12]/conv/W): nnabla's loader matches a {id} name only to
        # iterations 0-9 (load.py, _get_matching_variable_names)
        for decl in (unrolled or programs)[e.network].parameters:
            msg.parameter_variable.add(variable_name=decl.name)
    for name, value in values.items():
        param = proto.parameter.add(variable_name=name, need_grad=True)
        param.shape.dim.extend(_stored_shape(unrolled or programs, name, value))
        param.data.extend(np.asarray(value, np.float32).reshape(-1).tolist())
    return proto


def _stored_shape(programs: Mapping[str, Program], name: str, value: np.ndarray) -> list[int]:
    for program in programs.values():
        for step in program.steps:
            for k, ref in enumerate(step.inputs):
                if ref[0] == "param" and ref[1] == name:
                    return list(_param_shape(step, k, value))
    return list(np.shape(value))


def _data_variables(msg: Any, program: Program) -> None:
    for var in program.feeds:
        msg.data_variable.add(variable_name=var, data_name=var)
    for index, gen in enumerate(program.generators):
        msg.generator_variable.add(variable_name=generator_name(index), type=gen.kind,
                                   multiplier=gen.multiplier)  # fmt: skip


def _optimizer(msg: Any, opt: Any, program: Program, params: Any) -> None:
    msg.name = opt.name
    msg.network_name = opt.network
    msg.dataset_name.append(opt.dataset)
    msg.update_interval = int(opt.get("UpdateInterval"))
    solver = opt.raw("SolverName") or "Adam"
    msg.solver.type = solver
    msg.solver.weight_decay = float(opt.get("WeightDecay"))
    field = f"{solver.lower()}_param"
    if field in msg.solver.DESCRIPTOR.fields_by_name:
        param = getattr(msg.solver, field)
        names = param.DESCRIPTOR.fields_by_name
        for j in range(int(opt.get("SolverParameterNum"))):
            key = opt.raw(f"SolverParameterName_{j}") or ""
            arg = SOLVER_FIELDS.get(key, key.lower())
            if arg in names and opt.raw(f"SolverParameter_{j}") not in (None, ""):
                _fill(param, {arg: float(opt.raw(f"SolverParameter_{j}") or 0)}, "solver")
    _data_variables(msg, program)
    for loss in program.losses:
        msg.loss_variable.add(variable_name=loss)
    for decl in params:  # expanded names, as for the executors
        msg.parameter_variable.add(variable_name=decl.name,
                                   learning_rate_multiplier=decl.lr_multiplier)  # fmt: skip


def nnp_bytes(proto: Any) -> bytes:
    """The ``.nnp`` archive: version, network definition (text), parameters (binary)."""
    params = message_class()()
    params.parameter.extend(proto.parameter)
    network = message_class()()
    network.CopyFrom(proto)
    del network.parameter[:]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("nnp_version.txt", NNP_VERSION + "\n")
        archive.writestr("network.nntxt", text_format.MessageToString(network))
        # float noise hardly compresses: stored, it writes several times faster
        archive.writestr("parameter.protobuf", params.SerializeToString(), zipfile.ZIP_STORED)
    return buffer.getvalue()
