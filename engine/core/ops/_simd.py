"""Explicit SIMD vectors for the compiled loops: a numba type whose value is an LLVM
``<LANES x float>`` vector, and the operations a register-blocked kernel needs.

Why: numba vectorizes simple loops, but a convolution micro-kernel needs a tile of
accumulators that stays in registers across a long reduction; written with arrays or scalars,
LLVM keeps them in memory or leaves them scalar (5-16 GFLOPS on this machine's core, against
about 115 with a tile of these vectors). The vector type is generic LLVM IR, so the same kernels
compile on any CPU numba targets (x86 with or without AVX-512, ARM); ``LANES`` is the host's
widest float32 register so a tile of accumulators fits the register file.

- ``vload(a, i)``: ``a[i : i + LANES]`` of a contiguous 1-D float32 array; ``vstore(a, i, v)``.
- ``sload(a, i)``: the scalar ``a[i]`` for an index known to be in range: no negative-index
  wrap-around (numba's ``a[i]`` adds three instructions per load to turn ``-1`` into the last
  element; in a tile's inner loop they cost as much as the loads themselves).
- ``vzero()``; ``vfma(acc, v, s)``: ``acc + v * s`` for a scalar ``s`` (broadcast);
  ``vmuladd(acc, u, v)``: ``acc + u * v``; ``vsum(v)``: the sum of the lanes.

Imports numba: import this module on first use only (see :mod:`._jit`).
"""

from __future__ import annotations

import os
from typing import Any

import llvmlite.binding as llvm
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic, models, register_model

# Tests build the kernels for the narrower registers of AVX2 and ARM machines (8 and 4 lanes)
# by setting this. Such kernels are not cached on disk: numba keys its cache on the CPU, not on
# the lane count, so a cached entry would be taken for another width.
LANES_VARIABLE = "NEUROCANVAS_SIMD_LANES"
FORCED = bool(os.environ.get(LANES_VARIABLE))


def _lanes() -> int:
    """float32 lanes of the host's widest vector register (16 with AVX-512, 8 with AVX, else 4)."""
    if FORCED:
        lanes = int(os.environ[LANES_VARIABLE])
        if lanes not in (4, 8, 16):
            raise ValueError(f"{LANES_VARIABLE} must be 4, 8 or 16. Received: {lanes}")
        return lanes
    features = llvm.get_host_cpu_features()
    if features.get("avx512f"):
        return 16
    if features.get("avx"):
        return 8
    return 4


LANES = _lanes()
_VECTOR = ir.VectorType(ir.FloatType(), LANES)
_I32 = ir.IntType(32)


class Float32Vector(types.Type):
    """The numba type of a ``<LANES x float>`` value."""

    def __init__(self) -> None:
        super().__init__(name=f"float32x{LANES}")


_vtype = Float32Vector()


@register_model(Float32Vector)
class _Model(models.PrimitiveModel):
    def __init__(self, dmm: Any, fe_type: Any) -> None:
        super().__init__(dmm, fe_type, _VECTOR)


def _address(context: Any, builder: Any, array_type: Any, array: Any, index: Any) -> Any:
    data = context.make_array(array_type)(context, builder, array).data
    return builder.bitcast(builder.gep(data, [index]), _VECTOR.as_pointer())


@intrinsic
def vload(typingctx: Any, array: Any, index: Any) -> Any:
    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return builder.load(_address(context, builder, sig.args[0], *args), align=4)

    return _vtype(array, index), codegen


@intrinsic
def sload(typingctx: Any, array: Any, index: Any) -> Any:
    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        data = context.make_array(sig.args[0])(context, builder, args[0]).data
        return builder.load(builder.gep(data, [args[1]]))

    return array.dtype(array, index), codegen


@intrinsic
def vstore(typingctx: Any, array: Any, index: Any, value: Any) -> Any:
    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        builder.store(args[2], _address(context, builder, sig.args[0], args[0], args[1]), align=4)
        return context.get_dummy_value()

    return types.none(array, index, value), codegen


@intrinsic
def vzero(typingctx: Any) -> Any:
    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return ir.Constant(_VECTOR, [0.0] * LANES)

    return _vtype(), codegen


@intrinsic
def vfma(typingctx: Any, acc: Any, value: Any, scalar: Any) -> Any:
    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        s = args[2]
        if s.type != ir.FloatType():
            s = builder.fptrunc(s, ir.FloatType())
        lane0 = builder.insert_element(ir.Constant(_VECTOR, ir.Undefined), s, _I32(0))
        zeros = ir.Constant(ir.VectorType(_I32, LANES), [0] * LANES)
        splat = builder.shuffle_vector(lane0, ir.Constant(_VECTOR, ir.Undefined), zeros)
        product = builder.fmul(args[1], splat, flags=("contract",))
        return builder.fadd(args[0], product, flags=("contract",))

    return _vtype(acc, value, scalar), codegen


@intrinsic
def vmuladd(typingctx: Any, acc: Any, a: Any, b: Any) -> Any:
    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        product = builder.fmul(args[1], args[2], flags=("contract",))
        return builder.fadd(args[0], product, flags=("contract",))

    return _vtype(acc, a, b), codegen


@intrinsic
def vsum(typingctx: Any, value: Any) -> Any:
    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        # A tree of halves (log2(LANES) adds), not a serial chain of LANES - 1 adds.
        value, width = args[0], LANES
        while width > 1:
            width //= 2
            low = ir.Constant(ir.VectorType(_I32, width), list(range(width)))
            high = ir.Constant(ir.VectorType(_I32, width), list(range(width, 2 * width)))
            value = builder.fadd(
                builder.shuffle_vector(value, value, low),
                builder.shuffle_vector(value, value, high),
            )
        return builder.extract_element(value, _I32(0))

    return types.float32(value), codegen
