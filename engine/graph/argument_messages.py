"""The texts of a unit argument's problems (engine/graph/unit_arguments.py), marked for the app's
catalogue (engine/core/messages.py) so the problems list shows them in its language."""

from __future__ import annotations

from engine.core.messages import QT_TRANSLATE_NOOP, Message, text_of

__all__ = ["ARGUMENT", "argument_detail"]

# An argument's problems, in the app's language where it shows them (engine/core/messages.py);
# a property's problem (engine/layers) without its "property NAME: ", as a Unit layer shows it.
ARGUMENT = {
    "unknown": QT_TRANSLATE_NOOP("Problems", "unknown argument type {type}"),
    "typed": QT_TRANSLATE_NOOP("Problems", "argument of type {type}: {detail}"),
}
_WITHOUT_PROPERTY = {
    "property {name}: expected {expected}. Received: {name}={shown}": QT_TRANSLATE_NOOP(
        "Problems", "expected {expected}. Received: {name}={shown}"
    ),
    "property {name}: expected one of {options}. Received: {name}={value}": QT_TRANSLATE_NOOP(
        "Problems", "expected one of {options}. Received: {name}={value}"
    ),
    "property {prop}: {message}. Received: {prop}={shown}": QT_TRANSLATE_NOOP(
        "Problems", "{message}. Received: {prop}={shown}"
    ),
}


def argument_detail(exc: Exception, name: str) -> str:
    """``exc``'s text without its leading ``property NAME: `` (a Message when it was one)."""
    message = text_of(exc)
    text = str(message).removeprefix(f"property {name}: ")
    rest = _WITHOUT_PROPERTY.get(message.template) if isinstance(message, Message) else None
    if rest is None or text == str(message):
        return text
    detail = rest.format(**message.values)
    return detail if detail == text else text
