"""FFT and IFFT against NumPy's fftn/ifftn (nnabla's own reference), with finite differences."""

import numpy as np
import pytest

import engine.nn.functions as F
from engine.core.autograd import Variable
from engine.testing import check_function


def _pairs(z):
    return np.stack([z.real, z.imag], axis=-1)


def _reference(transform, signal_ndim, normalized):
    def ref(x):
        z = x[..., 0] + 1j * x[..., 1]
        axes = tuple(range(z.ndim - signal_ndim, z.ndim))
        return _pairs(transform(z, axes=axes, norm="ortho" if normalized else None))

    return ref


@pytest.mark.parametrize("fn,transform", [(F.fft, np.fft.fftn), (F.ifft, np.fft.ifftn)])
@pytest.mark.parametrize(
    "signal_ndim,shape", [(1, (3, 5, 2)), (2, (2, 4, 3, 2)), (3, (3, 2, 4, 2))]
)
@pytest.mark.parametrize("normalized", [False, True])
def test_forward_and_gradient(fn, transform, signal_ndim, shape, normalized):
    x = np.random.default_rng(signal_ndim).standard_normal(shape)
    check_function(
        fn, [x], kwargs={"signal_ndim": signal_ndim, "normalized": normalized},
        reference=_reference(transform, signal_ndim, normalized),
    )  # fmt: skip


def test_hand_computed_values_and_round_trip():
    # The DFT of (1, 2, 3, 4): 10, -2+2j, -2, -2-2j.
    x = np.array([[1, 0], [2, 0], [3, 0], [4, 0]], dtype=np.float32)
    y = F.fft(Variable(x), signal_ndim=1)
    np.testing.assert_allclose(y.d, [[10, 0], [-2, 2], [-2, 0], [-2, -2]], atol=1e-6)
    np.testing.assert_allclose(F.ifft(y, signal_ndim=1).d, x, atol=1e-6)
    unit = F.fft(Variable(x), signal_ndim=1, normalized=True)
    np.testing.assert_allclose(unit.d, y.d / 2, atol=1e-6)  # 1/sqrt(4)
    assert y.d.dtype == np.float32


def test_a_last_axis_other_than_two_is_refused():
    with pytest.raises(ValueError, match=r"last axis of size 2.*Received: shape=\(3, 8, 8\)"):
        F.fft(Variable(np.zeros((3, 8, 8), np.float32)), signal_ndim=2)
