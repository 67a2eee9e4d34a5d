"""Read nnabla's ``.nnp`` (ZIP) and ``.nntxt`` (protobuf text) as a NeuroCanvas project.

Every network of the file becomes a network of the project (units stay expanded, as nnabla has
them); datasets, optimizers (solver and its settings), monitors, executors and the training
settings become the project's CONFIG; the parameters come from ``parameter.protobuf``,
``parameter.h5`` (needs h5py) or the nntxt's own ``parameter`` entries.
"""

from __future__ import annotations

import io
import itertools
import math
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from engine.core import backend, optional
from engine.core.numbers import float32_text, shape_text
from engine.formats.nnabla.graph import Function, ImportError_, ModelGraph, build_network
from engine.formats.nnabla.lstm import fold_lstm
from engine.formats.nnabla.nnp_write import SOLVER_FIELDS
from engine.formats.nnabla.schema import message_class
from engine.graph import config as cfg
from engine.graph.project import Project
from engine.layers import find_spec
from engine.layers.loop_control import LOOP_TYPES

__all__ = ["read_nnp", "parse_nntxt"]

text_format = optional.lazy("google.protobuf.text_format")
protobuf_message = optional.lazy("google.protobuf.message")
h5py = optional.lazy("h5py")


def parse_nntxt(text: str, where: str) -> Any:
    """The ``NNablaProtoBuf`` of a protobuf text; errors name the line and column."""
    proto = message_class()()
    try:
        text_format.Parse(text, proto)
    except text_format.ParseError as exc:
        raise ImportError_(f"{where}: line {exc.GetLine()}, column {exc.GetColumn()}: "
                           f"{str(exc).split(' : ', 1)[-1]}") from None  # fmt: skip
    return proto


MAX_TEXT_BYTES = 256 * 2**20  # a network definition (NNC's resnet-110 nntxt is under 1 MB)
MAX_PROTOBUF_BYTES = 2**31 - 1  # protobuf cannot parse a larger message


def _limit(name: str) -> tuple[int, str]:
    """How many bytes a member may inflate to, and what it is (for the message)."""
    if name.endswith((".nntxt", ".prototxt")):
        return MAX_TEXT_BYTES, "a network definition"
    memory = backend.host_memory()
    room = memory // 4 if memory else 2**40  # parsing holds the bytes and the values at once
    if name.endswith(".protobuf"):
        return min(MAX_PROTOBUF_BYTES, room), "a parameter file (a quarter of the memory left)"
    return room, "a parameter file (a quarter of the memory left)"


def _member(archive: zipfile.ZipFile, name: str, where: str) -> bytes:
    """A member's bytes, its inflated size capped (by the archive's directory, then while
    reading: a zip bomb stops at the cap, not at the memory's end)."""
    info = archive.getinfo(name)
    limit, what = _limit(name)
    message = (f"{where}: inflates to more than {limit:,} bytes, the most {what} may take; a "
               f"damaged or hostile archive")  # fmt: skip
    if info.file_size > limit:
        raise ImportError_(message.replace("more than", f"{info.file_size:,} bytes, more than"))
    chunks, total = [], 0
    with archive.open(info) as stream:
        while chunk := stream.read(1 << 20):
            total += len(chunk)
            if total > limit:
                raise ImportError_(message)
            chunks.append(chunk)
    return b"".join(chunks)


def _read_archive(path: Path) -> tuple[Any, dict[str, np.ndarray]]:
    try:
        archive = zipfile.ZipFile(path)
        names = archive.namelist()
        texts = [n for n in names if n.endswith((".nntxt", ".prototxt"))]
        if not texts:
            raise ImportError_(f"{path}: no network definition (.nntxt) in the archive")
        text = _member(archive, texts[0], f"{path}:{texts[0]}")
        proto = parse_nntxt(text.decode("utf-8"), f"{path}:{texts[0]}")
        params = _parameters_of(proto)
        for name in names:
            if name.endswith(".protobuf"):
                data = _member(archive, name, f"{path}:{name}")
                params.update(_protobuf_parameters(data, f"{path}:{name}"))
            elif name.endswith(".h5") and not name.endswith("optimizer.h5"):
                params.update(_h5_parameters(_member(archive, name, f"{path}:{name}"),
                                             f"{path}:{name}"))  # fmt: skip
        return proto, params
    except zipfile.BadZipFile as exc:
        raise ImportError_(f"{path}: not an NNP archive (a ZIP file): {exc}") from None
    except (zipfile.LargeZipFile, EOFError, OSError) as exc:
        raise ImportError_(f"{path}: damaged archive: {exc}") from None
    except UnicodeDecodeError:
        raise ImportError_(f"{path}: the network definition is not UTF-8 text") from None


def checked_shape(dims: Any, where: str) -> tuple[int, ...]:
    """A parameter's declared shape: every size >= 0 and the element count within int64 (the
    product is taken in Python integers, so (2^32, 2^32) is 2^64, not 0)."""
    shape = tuple(int(d) for d in dims)
    if any(d < 0 for d in shape):
        raise ImportError_(f"{where}: shape {shape} has a negative size")
    if math.prod(shape) >= 2**63:
        raise ImportError_(f"{where}: shape {shape} has {math.prod(shape):,} values, past int64")
    return shape


def _parameters_of(proto: Any) -> dict[str, np.ndarray]:
    params = {}
    for p in proto.parameter:
        shape = checked_shape(p.shape.dim, f'parameter "{p.variable_name}"')
        if len(p.data) != math.prod(shape):  # before any array is made
            raise ImportError_(f'parameter "{p.variable_name}": {len(p.data)} values for shape '
                               f"{shape}")  # fmt: skip
        params[p.variable_name] = np.asarray(p.data, dtype=np.float32).reshape(shape)
    return params


def _protobuf_parameters(data: bytes, where: str) -> dict[str, np.ndarray]:
    proto = message_class()()
    try:
        proto.ParseFromString(data)
    except protobuf_message.DecodeError as exc:
        raise ImportError_(f"{where}: truncated or damaged parameter file ({exc})") from None
    try:
        return _parameters_of(proto)
    except ImportError_ as exc:
        raise ImportError_(f"{where}: {exc}") from None


def _h5_parameters(data: bytes, where: str) -> dict[str, np.ndarray]:
    """nnabla's ``parameter.h5``: a dataset per parameter, named by its path, saved in the order
    of its ``index`` attribute. The file is untrusted: HDF5 can make a dataset read another file
    (external storage, virtual datasets, external links), so every member must be a plain
    numeric dataset whose bytes are inside this archive (issue 29: an imported ``.nnp`` copied
    ``/etc/passwd`` into the project's parameters)."""
    try:
        h5_file = h5py.File
    except ImportError:
        raise ImportError_(
            f"{where}: reading .h5 parameters needs h5py (pip install h5py)"
        ) from None
    try:
        file = h5_file(io.BytesIO(data), "r")
    except OSError as exc:
        raise ImportError_(f"{where}: not an HDF5 file ({exc})") from None
    params: list[tuple[int, str, np.ndarray]] = []
    with file:
        for name, dataset in _h5_datasets(h5py, file, where):
            here = f'{where}: "{name}"'
            index = _h5_index(dataset, len(params), here)
            checked_shape(dataset.shape or (), here)
            if math.prod(dataset.shape or ()) * 4 > _limit(".h5")[0]:  # chunks may inflate
                raise ImportError_(
                    f"{here}: shape {dataset.shape} needs more memory than a parameter file "
                    f"may take (a quarter of the memory left)"
                )
            params.append((index, name, np.asarray(dataset[()], dtype=np.float32)))
    return {name: value for _, name, value in sorted(params, key=lambda t: t[0])}


def _h5_datasets(h5py: Any, group: Any, where: str, prefix: str = "", seen: set | None = None):
    """The datasets below ``group`` (path, dataset), each checked by :func:`_h5_checked`;
    links other than the plain hard links of a tree are refused, and so is a group reached
    twice (a cycle of hard links)."""
    seen = set() if seen is None else seen
    for key in group:
        name = prefix + key
        link = group.get(key, getlink=True)
        if isinstance(link, h5py.ExternalLink):
            raise ImportError_(f'{where}: "{name}": a link to another file ({link.filename}), '
                               f"not a dataset in this one")  # fmt: skip
        if not isinstance(link, h5py.HardLink):
            raise ImportError_(f'{where}: "{name}": a link ({type(link).__name__}), not a '
                               f"dataset")  # fmt: skip
        obj = group[key]
        if obj.id in seen:
            raise ImportError_(f'{where}: "{name}": the same object appears twice in the file')
        seen.add(obj.id)
        if isinstance(obj, h5py.Group):
            yield from _h5_datasets(h5py, obj, where, name + "/", seen)
        elif isinstance(obj, h5py.Dataset):
            yield name, _h5_checked(h5py, obj, f'{where}: "{name}"')
        else:
            raise ImportError_(f'{where}: "{name}": a {type(obj).__name__}, not a dataset')


def _h5_checked(h5py: Any, dataset: Any, where: str) -> Any:
    """``dataset`` if its values are numbers stored in this file, else one error naming why."""
    if dataset.is_virtual:
        raise ImportError_(f"{where}: a virtual dataset (its values live in other files)")
    if dataset.external:
        raise ImportError_(f"{where}: external storage (its values live in another file, "
                           f"{dataset.external[0][0]!r})")  # fmt: skip
    layout = dataset.id.get_create_plist().get_layout()
    if layout not in (h5py.h5d.CONTIGUOUS, h5py.h5d.CHUNKED, h5py.h5d.COMPACT):
        raise ImportError_(f"{where}: an unknown storage layout ({layout})")
    if dataset.dtype.kind not in "biuf" or dataset.dtype.fields or dataset.dtype.subdtype:
        raise ImportError_(f"{where}: not numeric (dtype {dataset.dtype.str})")
    if dataset.id.get_space_status() == h5py.h5d.SPACE_STATUS_NOT_ALLOCATED:
        raise ImportError_(f"{where}: holds no values (only a fill value)")
    return dataset


def _h5_index(dataset: Any, default: int, where: str) -> int:
    """The ``index`` attribute nnabla saves parameters in order of (absent: file order)."""
    if "index" not in dataset.attrs:
        return default
    index = np.asarray(dataset.attrs["index"])
    if index.size != 1 or index.dtype.kind not in "iu":
        raise ImportError_(f'{where}: attribute "index" is not an integer ({index.dtype.str})')
    return int(index.reshape(()))


def _args(fn: Any) -> dict[str, Any]:
    field = LOOP_TYPES.get(fn.type) or fn.WhichOneof("parameter")
    if field is None:
        return {}
    message = getattr(fn, field)
    args: dict[str, Any] = {}
    for desc, value in message.ListFields():
        if desc.message_type is not None and desc.message_type.name == "Shape":
            args[desc.name] = list(value.dim)
        elif desc.is_repeated:
            args[desc.name] = list(value)
        else:
            args[desc.name] = value
    for desc in message.DESCRIPTOR.fields:  # proto3 leaves defaults (0, False) unwritten
        if desc.name not in args and desc.message_type is None and not desc.is_repeated:
            args[desc.name] = getattr(message, desc.name)
    # float fields are float32: 0.7 reads back as 0.699999988; keep the short decimal
    return {k: float(str(np.float32(v))) if isinstance(v, float) else v for k, v in args.items()}


def _repeats(net: Any, where: str) -> dict[str, int]:
    """The network's ``repeat_info`` (loop id -> times), every ``repeat_id`` checked against it."""
    here = f'{where}: network "{net.name}"'
    loops = {}
    for info in net.repeat_info:
        if info.times <= 0:
            raise ImportError_(f'{here}: repeat_info "{info.id}" has no times (a positive count)')
        loops[info.id] = int(info.times)
    for kind, items in (("variable", net.variable), ("function", net.function)):
        for item in items:
            ids = list(item.repeat_id)
            field = LOOP_TYPES.get(getattr(item, "type", ""))
            if kind == "function" and field:
                ids.append(getattr(item, field).repeat_id)
            for rid in ids:
                if rid not in loops:
                    raise ImportError_(f'{here}, {kind} "{item.name}": repeat_id "{rid}" is not '
                                       f"in the network's repeat_info")  # fmt: skip
    return loops


def _parameter(v: Any, params: dict[str, np.ndarray], loops: dict[str, int], net: str,
               where: str) -> list[tuple[tuple[int, ...], np.ndarray]]:  # fmt: skip
    """The values of parameter variable ``v``: one per iteration of the repeat blocks whose
    ``{id}`` its name holds (stored expanded, ``Conv[1]/conv/W``), else one."""
    ids = [r for r in v.repeat_id if "{" + r + "}" in v.name]
    want = checked_shape(v.shape.dim, f'{where}: network "{net}", parameter "{v.name}"')
    if not params and math.prod(want) * 4 > (_limit("values.h5")[0]):
        raise ImportError_(
            f'{where}: network "{net}", parameter "{v.name}": shape {want} needs '
            f"{math.prod(want) * 4:,} bytes, more than the memory allows"
        )
    found = []
    for index in itertools.product(*(range(loops[r]) for r in ids)):
        name = v.name
        for rid, i in zip(ids, index, strict=True):
            name = name.replace("{" + rid + "}", f"[{i}]")
        if not params:  # a network definition alone: shapes only, values initialized
            found.append((index, np.zeros(want, np.float32)))
            continue
        if name not in params:
            raise ImportError_(f'{where}: parameter "{name}" (network "{net}") has no values in '
                               f"the file")  # fmt: skip
        if want and math.prod(want) != params[name].size:
            raise ImportError_(f'{where}: parameter "{name}" has shape {params[name].shape}, '
                               f"the network declares {want}")  # fmt: skip
        found.append((index, params[name]))
    return found


def _buffers(proto: Any, net: Any, params: dict[str, np.ndarray],
             where: str) -> dict[str, tuple[dict[str, str], np.ndarray | None]]:  # fmt: skip
    """WorkingMemory layers: Buffer variables that optimizers or executors list as
    parameters (NNC writes them so: docs/formats.md §4.3), with their properties and value."""
    listed = {
        pv.variable_name
        for item in [*proto.optimizer, *proto.executor]
        for pv in item.parameter_variable
    }  # shared by name: a monitor's network too
    found = {}
    for v in net.variable:
        if v.type != "Buffer" or v.name not in listed:
            continue
        shape = [d for k, d in enumerate(v.shape.dim) if k or d > 0]  # no batch axis
        props = {"Size": shape_text(shape)}  # NNC lists it with multiplier 0: no news
        if v.HasField("initializer"):
            props.update(Initializer=v.initializer.type or "Normal",
                         InitializerMultiplier=repr(float(v.initializer.multiplier)))  # fmt: skip
        value = params.get(v.name)  # one row per sample of the batch it was stored at
        size = int(np.prod(shape))
        if value is not None and (value.size == 0 or value.size % size):
            raise ImportError_(f'{where}: WorkingMemory "{v.name}" (network "{net.name}") has '
                               f"{value.size} values, not rows of shape "
                               f"{tuple(shape)}")  # fmt: skip
        found[v.name] = (props, None if value is None else value.reshape(-1, *shape))
    return found


def _graph(net: Any, params: dict[str, np.ndarray], data_names: dict[str, str],
           where: str, buffers: Any = None) -> ModelGraph:  # fmt: skip
    kinds = {v.name: v for v in net.variable}
    produced = {o for f in net.function for o in f.output}
    loops = _repeats(net, where)
    buffers = buffers or {}
    used_params, repeated = {}, {}
    inputs = {}
    for fn in net.function:
        for var in fn.input:
            v = kinds.get(var)
            if v is None:
                raise ImportError_(f'{where}: network "{net.name}", function "{fn.name}": '
                                   f'variable "{var}" is not declared')  # fmt: skip
            if v.type == "Parameter":
                values = _parameter(v, params, loops, net.name, where)
                used_params[var] = values[0][1]
                if values[0][0]:
                    ids = [r for r in v.repeat_id if "{" + r + "}" in v.name]
                    repeated[var] = (ids, values)
            elif var not in produced and var not in buffers:
                inputs[var] = tuple(v.shape.dim)[1:]
    functions = [Function(f.name, f.type, list(f.input), list(f.output), _args(f))
                 for f in net.function]  # fmt: skip
    outputs = [o for f in net.function for o in f.output
               if not any(o in g.input for g in net.function)]  # fmt: skip
    shapes = {v.name: tuple(v.shape.dim)[1:] for v in net.variable if v.type != "Parameter"}
    graph = ModelGraph(net.name, inputs, functions, used_params, outputs, data_names,
                       repeated=repeated, shapes=shapes, buffers=buffers, loops=loops)  # fmt: skip
    return fold_lstm(graph)


def read_nnp(path: str | Path) -> tuple[Project, dict[str, np.ndarray]]:
    """The project of an ``.nnp`` or ``.nntxt`` file and its parameters as stored (see the
    module docstring); :func:`engine.model_import.read_model` checks them against the shapes
    the compiled networks declare."""
    path = Path(path)
    with open(path, "rb") as handle:
        head = handle.read(2)
    if head != b"PK" and path.suffix.lower() != ".nnp" and path.stat().st_size > MAX_TEXT_BYTES:
        raise ImportError_(f"{path}: {path.stat().st_size:,} bytes, more than the "
                           f"{MAX_TEXT_BYTES:,} a network definition may take")  # fmt: skip
    data = path.read_bytes() if head != b"PK" else b"PK"
    if data[:2] == b"PK" or path.suffix.lower() == ".nnp":
        proto, params = _read_archive(path)
    else:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise ImportError_(f"{path}: not an nntxt file (not UTF-8 text)") from None
        proto = parse_nntxt(text, str(path))
        params = _parameters_of(proto)
    if not proto.network:
        raise ImportError_(f"{path}: no network in the file")
    data_names, generators = {}, {}
    for item in [*proto.optimizer, *proto.monitor, *proto.executor]:
        for dv in item.data_variable:
            data_names[dv.variable_name] = dv.data_name or dv.variable_name
        for gv in item.generator_variable:
            generators[gv.variable_name] = (gv.type or "Normal", float(gv.multiplier))
    networks, values = [], {}
    for net in proto.network:
        graph = _graph(net, params, data_names, str(path),
                       _buffers(proto, net, params, str(path)))  # fmt: skip
        graph.generators = {k: v for k, v in generators.items() if k in graph.inputs}
        network, renamed = build_network(graph, f'{path}: network "{net.name}"')
        networks.append(network)
        values.update(renamed)
    if not params:
        values = {}
    return Project(_without_derived(networks), **_settings(proto)), values


def _without_derived(networks: list[Any]) -> list[Any]:
    """Drops ``<Net>Validation`` and ``<Net>Runtime`` when they hold what NeuroCanvas derives
    from ``<Net>`` (NNC's export writes all three): the derived runtime names its outputs
    after the labels (``y'``), so evaluation pairs them with ``y`` for its metrics."""

    def kinds(network: Any, losses: bool) -> list[str]:
        return sorted(layer.type for layer in network.layers if layer.type != "Input" and
                      (losses or not getattr(find_spec(layer.type), "is_loss", False)))  # fmt: skip

    by_name = {n.name: n for n in networks}
    derived = set()
    for net in networks:
        for suffix, losses in (("Validation", True), ("Runtime", False)):
            base = by_name.get(net.name.removesuffix(suffix))
            if net.name.endswith(suffix) and base is not None and base is not net:
                if kinds(net, True) == kinds(base, losses):
                    derived.add(net.name)
    return [n for n in networks if n.name not in derived]


def _settings(proto: Any) -> dict[str, Any]:
    """CONFIG from the file's training config, datasets, optimizers, monitors, executors."""
    settings = cfg.default_settings()
    batch = proto.network[0].batch_size or 64
    tc = proto.training_config
    settings["config"] = cfg.GlobalConfig.new(
        MaxEpoch=str(tc.max_epoch or 100), BatchSize=str(batch),
        SaveBest="1" if tc.save_best or not tc.max_epoch else "0",
        MonitorInterval=str(tc.monitor_interval or 10),
    )  # fmt: skip
    if proto.dataset:
        settings["datasets"] = [
            cfg.Dataset.new(Name=d.name, URI=d.uri, Shuffle="1" if d.shuffle else "0",
                            ImageNormalization="0" if d.no_image_normalization else "1")
            for d in proto.dataset
        ]  # fmt: skip
    if proto.optimizer:
        settings["optimizers"] = [_optimizer(o) for o in proto.optimizer]
    if proto.monitor:
        settings["monitors"] = [
            cfg.Monitor.new(Monitor_Name=m.name, Monitor_NetworkName=m.network_name,
                            Monitor_DatasetName=(list(m.dataset_name) or [""])[0])
            for m in proto.monitor
        ]  # fmt: skip
    if proto.executor:
        settings["executors"] = [
            cfg.Executor.new(Executor_Name=e.name, Executor_NetworkName=e.network_name,
                             NumEvaluations=str(e.num_evaluations or 1),
                             RepeatEvaluationType="0" if e.repeat_evaluation_type != "last"
                             else "1", NeedBackPropagation="1" if e.need_back_propagation
                             else "0")
            for e in proto.executor
        ]  # fmt: skip
    return settings


def _optimizer(o: Any) -> cfg.Optimizer:
    solver = o.solver.type or "Adam"
    keys: dict[str, str] = {
        "Optimizer_Name": o.name, "Optimizer_NetworkName": o.network_name,
        "Optimizer_DatasetName": (list(o.dataset_name) or [""])[0],
        "UpdateInterval": str(o.update_interval or 1), "SolverName": solver,
        "WeightDecay": repr(float(o.solver.weight_decay)),
    }  # fmt: skip
    defaults = cfg.SOLVERS.get(solver)
    if defaults is None:
        return cfg.Optimizer.new(**keys)
    field = f"{solver.lower()}_param"
    has = field in o.solver.DESCRIPTOR.fields_by_name and o.solver.HasField(field)
    param = getattr(o.solver, field) if has else None
    keys["SolverParameterNum"] = str(len(defaults))
    for j, (name, default) in enumerate(defaults):
        arg = SOLVER_FIELDS.get(name, name.lower())
        value = default
        if param is not None and arg in param.DESCRIPTOR.fields_by_name:
            value = float32_text(getattr(param, arg))
        keys[f"SolverParameterName_{j}"] = name
        keys[f"SolverParameter_{j}"] = value
    return cfg.Optimizer.new(**keys)
