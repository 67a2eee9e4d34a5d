"""Explicit SIMD vectors for the compiled loops: a numba type whose value is an LLVM
``<LANES x float>`` vector, and the operations a register-blocked kernel needs (load, store,
zero, multiply-add, the sum of the lanes).

Why: numba vectorizes simple loops, but a convolution micro-kernel needs a tile of
accumulators that stays in registers across a long reduction; written with arrays or scalars,
LLVM keeps them in memory or leaves them scalar (5-16 GFLOPS on this machine's core, against
about 115 with the tile below). The vector type is generic LLVM IR, so the same kernels compile
on any CPU numba targets (x86 with or without AVX-512, ARM); the lane count is the host's widest
float32 register so a tile of accumulators fits the register file.

Built on first use from the numba module (see :mod:`._jit`); NumPy float32 only.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any


def lanes() -> int:
    """float32 lanes of the host's widest vector register (16 with AVX-512, 8 with AVX, else 4)."""
    import llvmlite.binding as llvm  # noqa: PLC0415 - comes with numba

    features = llvm.get_host_cpu_features()
    if features.get("avx512f"):
        return 16
    if features.get("avx"):
        return 8
    return 4


def build(numba: ModuleType) -> dict[str, Any]:
    """``{"lanes", "vload", "vstore", "vzero", "vfma", "vmuladd", "vsum"}`` for float32 vectors
    of :func:`lanes`: ``vload(a, i)`` reads ``a[i : i + lanes]`` of a contiguous 1-D float32
    array, ``vstore(a, i, v)`` writes it, ``vfma(acc, v, s)`` is ``acc + v * s`` (``s`` a
    scalar), ``vmuladd(acc, u, v)`` is ``acc + u * v`` and ``vsum(v)`` the sum of the lanes."""
    from llvmlite import ir  # noqa: PLC0415
    from numba.core import types  # noqa: PLC0415
    from numba.extending import intrinsic, models, register_model  # noqa: PLC0415

    n = lanes()
    vector = ir.VectorType(ir.FloatType(), n)

    class Float32Vector(types.Type):
        def __init__(self) -> None:
            super().__init__(name=f"float32x{n}")

    vtype = Float32Vector()

    @register_model(Float32Vector)
    class _Model(models.PrimitiveModel):
        def __init__(self, dmm: Any, fe_type: Any) -> None:
            super().__init__(dmm, fe_type, vector)

    def address(context: Any, builder: Any, array_type: Any, array: Any, index: Any) -> Any:
        data = context.make_array(array_type)(context, builder, array).data
        return builder.bitcast(builder.gep(data, [index]), vector.as_pointer())

    @intrinsic
    def vload(typingctx: Any, array: Any, index: Any) -> Any:
        def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
            return builder.load(address(context, builder, sig.args[0], *args), align=4)

        return vtype(array, index), codegen

    @intrinsic
    def vstore(typingctx: Any, array: Any, index: Any, value: Any) -> Any:
        def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
            ptr = address(context, builder, sig.args[0], args[0], args[1])
            builder.store(args[2], ptr, align=4)
            return context.get_dummy_value()

        return types.none(array, index, value), codegen

    @intrinsic
    def vzero(typingctx: Any) -> Any:
        def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
            return ir.Constant(vector, [0.0] * n)

        return vtype(), codegen

    @intrinsic
    def vfma(typingctx: Any, acc: Any, value: Any, scalar: Any) -> Any:
        def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
            s = (
                builder.fptrunc(args[2], ir.FloatType())
                if args[2].type != ir.FloatType()
                else args[2]
            )
            lane0 = builder.insert_element(ir.Constant(vector, ir.Undefined), s, ir.IntType(32)(0))
            zeros = ir.Constant(ir.VectorType(ir.IntType(32), n), [0] * n)
            splat = builder.shuffle_vector(lane0, ir.Constant(vector, ir.Undefined), zeros)
            product = builder.fmul(args[1], splat, flags=("contract",))
            return builder.fadd(args[0], product, flags=("contract",))

        return vtype(acc, value, scalar), codegen

    @intrinsic
    def vmuladd(typingctx: Any, acc: Any, a: Any, b: Any) -> Any:
        def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
            product = builder.fmul(args[1], args[2], flags=("contract",))
            return builder.fadd(args[0], product, flags=("contract",))

        return vtype(acc, a, b), codegen

    @intrinsic
    def vsum(typingctx: Any, value: Any) -> Any:
        def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
            # A tree of halves (log2(lanes) adds), not a serial chain of lanes - 1 adds.
            value, width = args[0], n
            while width > 1:
                width //= 2
                half = ir.VectorType(ir.IntType(32), width)
                low = builder.shuffle_vector(value, value, ir.Constant(half, list(range(width))))
                high = builder.shuffle_vector(
                    value, value, ir.Constant(half, list(range(width, 2 * width)))
                )
                value = builder.fadd(low, high)
            return builder.extract_element(value, ir.IntType(32)(0))

        return types.float32(value), codegen

    return {
        "lanes": n,
        "vload": vload,
        "vstore": vstore,
        "vzero": vzero,
        "vfma": vfma,
        "vmuladd": vmuladd,
        "vsum": vsum,
    }
