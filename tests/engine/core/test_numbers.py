"""The one place numbers and shapes become text (engine/core/numbers.py): each style's outputs
pinned for representative values, as the files, messages and tables that use them show them."""

import numpy as np

from engine.core.numbers import (
    count_text,
    float32_text,
    float_text,
    shape_in_parens,
    shape_text,
    short_float,
    whole_number_text,
)


def test_shapes_as_nnc_writes_them_and_in_messages():
    assert shape_text((3, 28, 28)) == "3,28,28"
    assert shape_text([1, 10]) == "1,10"
    assert shape_text((10,)) == "10"
    assert shape_text(()) == ""
    assert shape_text(5) == "5"  # a scalar Size property
    assert shape_in_parens((3, 28, 28)) == "(3, 28, 28)"
    assert shape_in_parens((10,)) == "(10)"
    assert shape_in_parens(()) == "()"


def test_floats_read_back_exactly():
    assert float_text(0.1) == "0.1"
    assert float_text(1e-05) == "1e-05"
    assert float_text(255) == "255.0"
    assert float_text(np.float32(0.5)) == "0.5"
    assert float_text(None) == ""
    assert float(float_text(2 / 3)) == 2 / 3


def test_float32_settings_short():
    assert float32_text(0.0010000000474974513) == "0.001"
    assert float32_text(0.9) == "0.9"
    assert float32_text(True) == "1" and float32_text(False) == "0"
    assert float32_text(64) == "64"
    assert float32_text("momentum") == "momentum"


def test_whole_numbers_without_a_point():
    assert whole_number_text(120.0) == "120"
    assert whole_number_text(-40) == "-40"
    assert whole_number_text(0.5) == "0.5"
    assert whole_number_text(1e20) == "1e+20"  # beyond 2**53 a float is written as a float
    assert whole_number_text(2**60) == "1152921504606846976"
    assert whole_number_text(True) == "1"
    assert whole_number_text(None) == "None"


def test_short_floats_and_counts_for_tables():
    assert short_float(0.123456789) == "0.123457"
    assert short_float(1.5e-07) == "1.5e-07"
    assert short_float(2.0) == "2"
    assert short_float(None) == ""
    assert count_text(4217995) == "4,217,995"
    assert count_text(0) == "0"
    assert count_text(None) == ""
    assert count_text("?") == "?"
