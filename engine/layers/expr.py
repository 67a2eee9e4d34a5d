"""NNC property expressions and the ``*Calc`` cost grammar (docs/layers.md §1.5).

A value such as ``Input[0]/SqueezeRatio``, ``NetNumAnchor*(4+1+NetNumClass)``,
``Input[0],OutputSize[0],OutputSize[1]`` or ``*KernelShape`` is tokenized and parsed here by a
small recursive-descent parser; nothing is ever passed to ``eval``. Names, indexed names and
``*Macro`` references are looked up through a :class:`Scope` supplied by the caller, so this
module knows nothing about layers.

Grammar::

    list   := expr ("," expr)* [","]
    expr   := term (("+" | "-") term)*
    term   := unary (("*" | "/") unary)*
    unary  := ("-" | "+") unary | atom
    atom   := NUMBER | NAME ["[" expr "]"] | "*" NAME ["(" NAME ")"] | "(" expr ")"

``*Calc t1:t2:...`` starts from 0 and applies each term, ``+X`` or ``*X``, left to right; the
operand ``*Prop`` is the product of that property's shape (booleans count as 1 and 0).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

from engine.core.messages import QT_TRANSLATE_NOOP
from engine.layers.property_types import Value

__all__ = [
    "ExpressionError",
    "Scope",
    "Node",
    "parse",
    "parse_calc",
    "evaluate",
    "evaluate_calc",
    "is_calc",
    "product",
    "scalar",
]


class ExpressionError(ValueError):
    """A value that cannot be parsed or evaluated; the message says where and why."""


class Scope(Protocol):
    """Where names and macros of an expression get their values."""

    def name(self, ident: str) -> Value: ...

    def macro(self, ident: str, arg: str | None) -> Value: ...


# ---------------------------------------------------------------------------------------------
# Syntax tree


@dataclass(frozen=True)
class Num:
    value: int | float


@dataclass(frozen=True)
class Name:
    ident: str


@dataclass(frozen=True)
class Index:
    ident: str
    index: Node


@dataclass(frozen=True)
class Macro:
    ident: str
    arg: str | None = None


@dataclass(frozen=True)
class Unary:
    op: str
    operand: Node


@dataclass(frozen=True)
class Binary:
    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class ListOf:
    items: tuple[Node, ...]


Node = Num | Name | Index | Macro | Unary | Binary | ListOf

# ---------------------------------------------------------------------------------------------
# Tokenizer and parser

_TOKEN = re.compile(
    r"\s*(?:(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<op>[-+*/(),\[\]]))"
)


def _tokenize(text: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        match = _TOKEN.match(text, pos)
        if match is None:
            raise ExpressionError(
                QT_TRANSLATE_NOOP("Problems", "unexpected character {character} in {text}").format(
                    character=repr(text[pos]), text=repr(text)
                )
            )
        kind = match.lastgroup or "op"
        tokens.append((kind, match.group(kind)))
        pos = match.end()
    return tokens


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokenize(text)
        self.pos = 0

    def _peek(self) -> str | None:
        return self.tokens[self.pos][1] if self.pos < len(self.tokens) else None

    def _take(self, expected: str | None = None) -> tuple[str, str]:
        if self.pos >= len(self.tokens):
            raise ExpressionError(
                QT_TRANSLATE_NOOP("Problems", "unexpected end of {text}").format(
                    text=repr(self.text)
                )
            )
        token = self.tokens[self.pos]
        if expected is not None and token[1] != expected:
            raise ExpressionError(
                QT_TRANSLATE_NOOP(
                    "Problems", "expected {expected} but found {token} in {text}"
                ).format(expected=repr(expected), token=repr(token[1]), text=repr(self.text))
            )
        self.pos += 1
        return token

    def parse(self) -> Node:
        if not self.tokens:
            raise ExpressionError(QT_TRANSLATE_NOOP("Problems", "empty value"))
        items = [self._expr()]
        while self._peek() == ",":
            self._take()
            if self.pos == len(self.tokens):
                break  # a trailing comma, as in Sony's resnet-18 sample (``Start=0,20,20,``)
            items.append(self._expr())
        if self.pos != len(self.tokens):
            raise ExpressionError(
                QT_TRANSLATE_NOOP("Problems", "unexpected {token} in {text}").format(
                    token=repr(self._peek()), text=repr(self.text)
                )
            )
        return items[0] if len(items) == 1 else ListOf(tuple(items))

    def _expr(self) -> Node:
        node = self._term()
        while self._peek() in ("+", "-"):
            op = self._take()[1]
            node = Binary(op, node, self._term())
        return node

    def _term(self) -> Node:
        node = self._unary()
        while self._peek() in ("*", "/"):
            op = self._take()[1]
            node = Binary(op, node, self._unary())
        return node

    def _unary(self) -> Node:
        if self._peek() in ("-", "+"):
            op = self._take()[1]
            return Unary(op, self._unary())
        return self._atom()

    def _atom(self) -> Node:
        kind, text = self._take()
        if kind == "num":
            if len(text) > 24:  # Python's int() refuses 4300+ digits; no size needs 25
                raise ExpressionError(
                    QT_TRANSLATE_NOOP(
                        "Problems", "number too long ({count} digits) in the expression"
                    ).format(count=len(text))
                )
            number = float(text)
            return Num(int(text) if text.isdigit() else number)
        if kind == "name":
            if self._peek() == "[":
                self._take()
                index = self._expr()
                self._take("]")
                return Index(text, index)
            return Name(text)
        if text == "*":
            kind, ident = self._take()
            if kind != "name":
                raise ExpressionError(
                    QT_TRANSLATE_NOOP(
                        "Problems", "expected a macro name after '*' in {text}"
                    ).format(text=repr(self.text))
                )
            arg = None
            if self._peek() == "(":
                self._take()
                arg = self._take()[1]
                self._take(")")
            return Macro(ident, arg)
        if text == "(":
            node = self._expr()
            self._take(")")
            return node
        raise ExpressionError(
            QT_TRANSLATE_NOOP("Problems", "unexpected {token} in {text}").format(
                token=repr(text), text=repr(self.text)
            )
        )


@lru_cache(maxsize=4096)
def parse(text: str) -> Node:
    """The syntax tree of an expression (cached: the same strings recur in every network)."""
    return _Parser(text).parse()


def is_calc(text: str) -> bool:
    return text.startswith("*Calc ") or text == "*Calc"


@lru_cache(maxsize=1024)
def parse_calc(text: str) -> tuple[tuple[str, Node], ...]:
    """``*Calc +*Input:**OutShape`` -> ((``+``, Macro Input), (``*``, Macro OutShape))."""
    body = text.removeprefix("*Calc").strip()
    terms = []
    for term in body.split(":"):
        term = term.strip()
        if len(term) < 2 or term[0] not in "+*":
            raise ExpressionError(
                QT_TRANSLATE_NOOP(
                    "Problems", "a *Calc term must be +X or *X, found {term} in {text}"
                ).format(term=repr(term), text=repr(text))
            )
        terms.append((term[0], parse(term[1:])))
    if not terms:
        raise ExpressionError(
            QT_TRANSLATE_NOOP("Problems", "empty *Calc formula {text}").format(text=repr(text))
        )
    return tuple(terms)


# ---------------------------------------------------------------------------------------------
# Evaluation


def scalar(value: Value, what: str = "value") -> int | float:
    """A number from a number, a bool (1/0) or a one-element list."""
    if isinstance(value, tuple) and len(value) == 1:
        value = value[0]
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float):
        return value
    if isinstance(value, str):
        number = _number(value)
        if number is not None:
            return number
    raise ExpressionError(
        QT_TRANSLATE_NOOP("Problems", "{what} must be a number, not {value}").format(
            what=what, value=_show(value)
        )
    )


def product(value: Value) -> int | float:
    """The element count of a shape; a number is itself, a bool counts as 1 or 0."""
    if isinstance(value, tuple):
        if value and isinstance(value[0], tuple):
            return sum(product(v) for v in value)
        return math.prod(scalar(v) for v in value)
    return scalar(value)


def _number(text: str) -> int | float | None:
    text = text.strip()
    if re.fullmatch(r"[+-]?\d+", text):
        return int(text)
    try:
        return float(text)
    except ValueError:
        return None


def _show(value: Value) -> str:
    if isinstance(value, tuple):
        return "(" + ",".join(str(v) for v in value) + ")"
    return repr(value)


def _arith(op: str, a: int | float, b: int | float) -> int | float:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if b == 0:
        raise ExpressionError(QT_TRANSLATE_NOOP("Problems", "division by zero"))
    # Whether NNC divides integers is undocumented; exact divisions stay integers.
    if isinstance(a, int) and isinstance(b, int) and a % b == 0:
        return a // b
    return a / b


def _eval(node: Node, scope: Scope) -> Value:
    if isinstance(node, Num):
        return node.value
    if isinstance(node, Name):
        return scope.name(node.ident)
    if isinstance(node, Macro):
        return scope.macro(node.ident, node.arg)
    if isinstance(node, Index):
        seq = scope.name(node.ident)
        position = scalar(_eval(node.index, scope), f"the index of {node.ident}")
        if not isinstance(seq, tuple) or not isinstance(position, int):
            raise ExpressionError(
                QT_TRANSLATE_NOOP("Problems", "{ident} cannot be indexed by {position}").format(
                    ident=node.ident, position=position
                )
            )
        if not -len(seq) <= position < len(seq):
            raise ExpressionError(
                QT_TRANSLATE_NOOP(
                    "Problems", "{ident}[{position}] is out of range: {ident} is {items}"
                ).format(ident=node.ident, position=position, items=_show(seq))
            )
        return seq[position]
    if isinstance(node, Unary):
        number = scalar(_eval(node.operand, scope))
        return -number if node.op == "-" else number
    if isinstance(node, Binary):
        left = scalar(_eval(node.left, scope))
        right = scalar(_eval(node.right, scope))
        return _arith(node.op, left, right)
    items: list[Value] = []
    for item in node.items:
        value = _eval(item, scope)
        items.extend(value if isinstance(value, tuple) else (value,))
    return tuple(items)


def evaluate(text: str, scope: Scope) -> Value:
    """The value of an expression: a number, a bool, a text or a tuple (a list or a shape)."""
    return _eval(parse(text), scope)


def evaluate_calc(text: str, scope: Scope) -> int | float:
    """The value of a ``*Calc`` cost formula."""
    total: int | float = 0
    for op, node in parse_calc(text):
        operand = product(_eval(node, scope))
        total = total + operand if op == "+" else total * operand
    return total
