"""Literal parsing of NNC property values, with errors that name the property and value."""

import pytest

from engine.layers.property_types import (
    BOOLEAN,
    BOOLEAN_OR_MACRO,
    FLOAT,
    FLOAT_ARRAY,
    FLOAT_ARRAYS,
    INT,
    INT_ARRAY,
    PINT,
    PINT_ARRAY,
    PINT_ARRAYS,
    TEXT,
    TYPES,
    UINT,
    UINT_ARRAY,
    PropertyValueError,
    format_value,
    is_macro,
)
from engine.layers.spec import PropertySpec


@pytest.mark.parametrize(
    ("ptype", "raw", "value"),
    [
        (PINT, "16", 16),
        (PINT, "2.0", 2),
        (UINT, "0", 0),
        (INT, "-1", -1),
        (PINT_ARRAY, "3,3", (3, 3)),
        (PINT_ARRAY, " 1, 28 ,28", (1, 28, 28)),
        (UINT_ARRAY, "0,0", (0, 0)),
        (INT_ARRAY, "-1,0,1,2", (-1, 0, 1, 2)),
        (PINT_ARRAYS, "(3,8,8),(3,8,8)", ((3, 8, 8), (3, 8, 8))),
        (FLOAT, "1e-12", 1e-12),
        (FLOAT, "0.00006", 6e-5),
        (FLOAT, "-6.0", -6.0),
        (FLOAT_ARRAY, "0.02,0.4", (0.02, 0.4)),
        (FLOAT_ARRAYS, "(0.1,0.2),(3)", ((0.1, 0.2), (3.0,))),
        (BOOLEAN, "True", True),
        (BOOLEAN, "False", False),
        (BOOLEAN_OR_MACRO, "1", True),
        (TEXT, "anything, at all", "anything, at all"),
    ],
)
def test_parse_literals(ptype, raw, value):
    assert ptype.parse(raw) == value
    assert ptype.is_literal(raw)


@pytest.mark.parametrize(
    ("ptype", "raw", "message"),
    [
        (PINT, "0", "property KernelShape: expected a positive integer. Received: KernelShape=0"),
        (UINT, "-1", "expected a non-negative integer"),
        (PINT_ARRAY, "3,", "expected a comma-separated list of positive integers"),
        (PINT_ARRAY, "0,r", "Received: KernelShape=0,r"),
        (UINT_ARRAY, "", "expected a comma-separated list of non-negative integers"),
        (FLOAT, "1.0e-6s", "expected a number"),
        (BOOLEAN, "yes", "expected True or False"),
        (PINT_ARRAYS, "3,8,8", "expected a list of shapes"),
    ],
)
def test_parse_errors_name_property_and_value(ptype, raw, message):
    with pytest.raises(PropertyValueError, match=message.replace("(", r"\(")):
        ptype.parse(raw, "KernelShape")


def test_coerce_computed_values():
    assert PINT_ARRAY.coerce(5) == (5,)
    assert PINT_ARRAY.coerce((4.0, 2)) == (4, 2)
    # A fractional result of "/" rounds down where an integer is needed (undocumented in NNC).
    assert PINT.coerce(2.5) == 2
    assert PINT.coerce((7,)) == 7
    assert FLOAT.coerce(3) == 3.0
    assert BOOLEAN.coerce(0) is False
    assert PINT_ARRAYS.coerce((3, 4)) == ((3, 4),)
    with pytest.raises(PropertyValueError, match="expected a positive integer"):
        PINT.coerce(True)
    with pytest.raises(PropertyValueError, match="expected True or False"):
        BOOLEAN.coerce(2)


def test_option_values_are_checked_by_the_property():
    border = PropertySpec("BorderMode", TYPES["Option"], "same", options=("valid", "full", "same"))
    assert border.parse("valid") == "valid"
    with pytest.raises(PropertyValueError, match="expected one of valid, full, same"):
        border.parse("half")
    optional = PropertySpec("W.File", TYPES["File"], required=False)
    assert optional.parse("") == ""


def test_format_round_trip():
    assert format_value((3, 3)) == "3,3"
    assert format_value(True) == "True"
    assert format_value(((3, 8, 8), (2,))) == "(3,8,8),(2)"
    assert format_value(1.0) == "1.0"
    for raw, ptype in (("1,28,28", PINT_ARRAY), ("0.5", FLOAT), ("False", BOOLEAN)):
        assert format_value(ptype.parse(raw)) == raw
    assert is_macro("*Name") and not is_macro("Input[0]")
    assert set(TYPES) >= {"PInt", "BooleanOrMacro", "Dataset", "FloatArrays"}
