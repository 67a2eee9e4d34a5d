"""The processes of a data-parallel run and the collectives between them.

mpi4py starts nothing itself: ``mpirun -n K`` starts K copies of ``neurocanvas train``, and
:func:`world` tells each one its rank. Gradients travel in one packed buffer per dtype per
update (not one collective per parameter): on the CPU an MPI all-reduce of a NumPy buffer, on
GPUs an NCCL all-reduce of a CuPy buffer on the process's own device (chosen by its rank on the
node), with no host copy in the step. Both sum; :class:`GradientReducer` divides by K.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from engine.core import backend, optional

__all__ = ["DistributedError", "World", "world", "GradientReducer", "fingerprint"]


class DistributedError(RuntimeError):
    """The processes cannot run together (MPI missing, disagreeing ranks); names the cause."""


@dataclass
class World:
    """This process's place among the K processes of the run."""

    comm: Any  # an mpi4py communicator
    rank: int
    size: int
    local_rank: int  # rank among the processes on this machine: its GPU

    @property
    def is_root(self) -> bool:
        return self.rank == 0

    def allreduce(self, value: Any) -> Any:
        """The sum over ranks of a Python number (host side, for flags and counts)."""
        return self.comm.allreduce(value)

    def allgather(self, value: Any) -> list[Any]:
        return list(self.comm.allgather(value))

    def bcast(self, value: Any) -> Any:
        return self.comm.bcast(value, root=0)

    def abort(self, code: int = 1) -> None:
        """End every process of the run (a failure that only some ranks saw)."""
        self.comm.Abort(code)


def world() -> World:
    """The MPI world of this process (size 1 when not started by mpirun)."""
    try:
        MPI = optional.require("mpi4py.MPI")  # optional: the "mpi" extra
    except ImportError as exc:
        raise DistributedError(
            f"--distributed needs mpi4py and an MPI library ({exc}); install them with "
            'pip install "neurocanvas[mpi]"'
        ) from None
    comm = MPI.COMM_WORLD
    local = comm.Split_type(MPI.COMM_TYPE_SHARED)
    return World(comm, comm.Get_rank(), comm.Get_size(), local.Get_rank())


def use_local_gpu(w: World) -> int:
    """On the GPU backend, make this process use the device of its local rank; returns it."""
    xp = backend.xp()
    if getattr(xp, "__name__", "") != "cupy":
        return -1
    count = xp.cuda.runtime.getDeviceCount()
    device = w.local_rank % count
    xp.cuda.Device(device).use()
    return int(device)


def fingerprint(files: Sequence[Path | None], extra: str = "") -> str:
    """A hash of the files every rank must agree on (the project and its datasets)."""
    digest = hashlib.sha256(extra.encode())
    for path in files:
        if path is None:
            continue
        digest.update(str(path.name).encode())
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()[:16]


class GradientReducer:
    """Averages arrays over the ranks: one all-reduce per dtype of the arrays given."""

    def __init__(self, w: World) -> None:
        self.world = w
        self._nccl: Any = None

    def mean(self, arrays: Sequence[Any]) -> list[Any]:
        """The element-wise mean over ranks of each array (new arrays, same dtypes/shapes)."""
        out: list[Any] = list(arrays)
        groups: dict[Any, list[int]] = {}
        for k, a in enumerate(arrays):
            groups.setdefault(np.dtype(a.dtype), []).append(k)
        for dtype, members in groups.items():
            xp = backend.get_array_module(arrays[members[0]])
            flat = xp.concatenate([arrays[k].reshape(-1) for k in members])
            flat = self._sum(flat) * flat.dtype.type(1.0 / self.world.size)
            start = 0
            for k in members:
                n = arrays[k].size
                out[k] = flat[start : start + n].reshape(arrays[k].shape).astype(dtype)
                start += n
        return out

    def reduce_grads(self, solver: Any) -> None:
        """``Optimizer.reduce_grads``: every gradient of ``solver`` becomes the global mean."""
        params = [v for v in solver.get_parameters().values() if v.grad is not None]
        for var, grad in zip(params, self.mean([v.grad for v in params]), strict=True):
            var.grad = grad

    def _sum(self, flat: Any) -> Any:
        if self.world.size == 1 and getattr(backend.get_array_module(flat), "__name__", "") != (
            "cupy"
        ):
            return flat
        if getattr(backend.get_array_module(flat), "__name__", "") == "cupy":
            return self._nccl_sum(flat)
        host = np.ascontiguousarray(backend.to_numpy(flat))
        MPI = optional.require("mpi4py.MPI")

        self.world.comm.Allreduce(MPI.IN_PLACE, host, op=MPI.SUM)
        return backend.asarray(host) if backend.get_array_module(flat) is not np else host

    def _nccl_sum(self, flat: Any) -> Any:
        """NCCL all-reduce on the device buffer, on the current stream (no host copy)."""
        cupy = optional.require("cupy")
        nccl = optional.require("cupy.cuda.nccl")

        if self._nccl is None:
            uid = self.world.bcast(nccl.get_unique_id() if self.world.is_root else None)
            self._nccl = nccl.NcclCommunicator(self.world.size, uid, self.world.rank)
        types = {np.dtype(np.float32): nccl.NCCL_FLOAT32, np.dtype(np.float64): nccl.NCCL_FLOAT64,
                 np.dtype(np.float16): nccl.NCCL_FLOAT16}  # fmt: skip
        flat = cupy.ascontiguousarray(flat)
        self._nccl.allReduce(flat.data.ptr, flat.data.ptr, flat.size, types[flat.dtype],
                             nccl.NCCL_SUM, cupy.cuda.get_current_stream().ptr)  # fmt: skip
        return flat
