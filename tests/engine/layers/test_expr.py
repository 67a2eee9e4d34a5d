"""The NNC expression parser and the *Calc grammar: values, errors, no code execution."""

import pytest

from engine.layers.expr import (
    ExpressionError,
    Index,
    Macro,
    evaluate,
    evaluate_calc,
    parse,
    parse_calc,
    product,
)


class Scope:
    def __init__(self, names=None, macros=None):
        self.names = names or {}
        self.macros = macros or {}

    def name(self, ident):
        if ident not in self.names:
            raise ExpressionError(f"unknown name {ident}")
        return self.names[ident]

    def macro(self, ident, arg):
        return self.macros[(ident, arg) if arg else ident]


SCOPE = Scope(
    names={
        "Input": (64, 14, 14),
        "SqueezeRatio": 4,
        "KernelShape": (3, 5),
        "r": 2,
        "n": 18,
        "NetNumAnchor": 5,
        "NetNumClass": 20,
        "beta": 0.75,
        "BS": True,
    },  # fmt: skip
    macros={
        "Input": (64, 14, 14),
        "OutShape": (10,),
        "WithBias": True,
        "Normalized": False,
        ("UnitProperty", "Size"): 100,
    },  # fmt: skip
)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Input[0]/SqueezeRatio", 16),
        ("Input[0]*SqueezeRatio", 256),
        ("Input[0],Input[2],Input[1]", (64, 14, 14)),
        ("Input[0],1,1", (64, 1, 1)),
        ("1,r*2+1", (1, 5)),
        ("0,r", (0, 2)),
        ("n-1", 17),
        ("NetNumAnchor*(4+1+NetNumClass)", 125),
        ("KernelShape[1]-KernelShape[0]", 2),
        ("-3+5", 2),
        ("6e-5", 6e-5),
        ("7/2", 3.5),
        ("Input[-1]", 14),
        ("beta", 0.75),
        ("BS", True),
        ("*Input", (64, 14, 14)),
        ("*UnitProperty(Size)", 100),
        ("*Input,2", (64, 14, 14, 2)),
        ("Input[1]*(Input[1]-1)*(Input[1]-1)", 14 * 13 * 13),
    ],
)
def test_evaluate(text, value):
    assert evaluate(text, SCOPE) == value


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("*Calc +*Input", 64 * 14 * 14),
        ("*Calc +*Input:**OutShape", 64 * 14 * 14 * 10),
        ("*Calc +*Input:+*Input", 2 * 64 * 14 * 14),
        ("*Calc +*WithBias:**OutShape", 10),
        ("*Calc +*Input:**Normalized", 0),
        ("*Calc +Input[1]:*Input[1]:*Input[1]", 14**3),
        ("*Calc +*Input:*2", 2 * 64 * 14 * 14),
    ],
)
def test_calc(text, value):
    assert evaluate_calc(text, SCOPE) == value


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Input[3]", r"Input\[3\] is out of range: Input is \(64,14,14\)"),
        ("Input[0]/0", "division by zero"),
        ("Input*2", "must be a number, not \\(64,14,14\\)"),
        ("Foo+1", "unknown name Foo"),
        ("2+", "unexpected end"),
        ("(1,2", "expected '\\)'"),
        ("__import__('os')", "unexpected character"),
        ("1 2", "unexpected '2'"),
        ("", "empty value"),
        ("*3", "expected a macro name"),
    ],
)
def test_errors(text, message):
    with pytest.raises(ExpressionError, match=message):
        evaluate(text, SCOPE)


def test_calc_errors_and_parse_cache():
    with pytest.raises(ExpressionError, match="must be \\+X or \\*X"):
        parse_calc("*Calc -*Input")
    assert parse("Input[0]") is parse("Input[0]")  # cached: the same strings recur
    assert parse("*UnitProperty(Axis)") == Macro("UnitProperty", "Axis")
    assert isinstance(parse("Input[0]"), Index)
    assert product((3, 4)) == 12 and product(True) == 1 and product(((2, 2), (3,))) == 7
