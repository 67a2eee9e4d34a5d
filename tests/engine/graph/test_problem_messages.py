"""A project's problems keep their templates (engine/core/messages.py): the English text stays
as it was, and the Japanese catalogue (read without Qt) gives the text the app shows."""

from __future__ import annotations

import json

from engine.core.messages import Message
from engine.graph.project import Layer, Link, Network, Project
from engine.graph.validate import validate_project
from engine.report.i18n import _catalogue


def chain(name, *layers):  # noqa: ANN001, ANN201 - as test_validate's
    net = Network(name, [Layer(n, t, dict(p)) for n, t, p in layers])
    for (a, *_), (b, *_) in zip(layers, layers[1:], strict=False):
        net.connect(Link(a, b))
    return net


def _japanese(context: str, text: str) -> str:
    return _catalogue("ja").get((context, text), text)


def _project() -> Project:
    unit = chain("U", ("Input", "Input", {}), ("Arg", "Argument", {"Value": "2", "Type": "PInt"}))
    unit.disconnect(next(k for k in unit.links if k.destination == "Arg"))
    main = chain("Main", ("x", "Input", {"Size": "4"}),
                 ("C", "Unit", {"Network": "U", "Arg": "0.5"}),
                 ("D", "Unit", {"Network": "Nope"}), ("E", "Bogus", {}))  # fmt: skip
    return Project([main, unit])


def test_unknown_types_and_unit_errors_read_in_japanese():
    problems = {p.layer: p for p in validate_project(_project()) if p.network == "Main"}
    assert str(problems["E"]) == 'network "Main", layer "E", unknown layer type \'Bogus\''
    assert problems["E"].translated(_japanese) == (
        'ネットワーク "Main", レイヤー "E", 不明なレイヤータイプ \'Bogus\''
    )
    assert str(problems["D"]) == (
        'network "Main", layer "D", property Network: unit network "Nope" does not exist'
    )
    assert problems["D"].translated(_japanese) == (
        'ネットワーク "Main", レイヤー "D", プロパティ Network: Unit のネットワーク "Nope" が'
        "ありません"
    )
    assert str(problems["C"]) == (
        'network "Main", layer "C", property Arg: argument of type PInt: expected a positive '
        "integer. Received: Arg=0.5"
    )
    assert problems["C"].translated(_japanese) == (
        'ネットワーク "Main", レイヤー "C", プロパティ Arg: 型 PInt の引数: 正の整数を指定して'
        "ください。入力値: Arg=0.5"
    )


def test_a_problem_raised_as_one_message_crosses_a_json_event():
    """What a run that stops on a problem sends to the app: its English text and, under
    ``texts``, the template the app translates (engine/runtime/session.py)."""
    problem = next(p for p in validate_project(_project()) if p.layer == "E")
    message = problem.as_message()
    assert str(message) == str(problem)
    again = Message.from_json(json.loads(json.dumps(message.to_json())))
    assert again.translated(_japanese) == problem.translated(_japanese)
