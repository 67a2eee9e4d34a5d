"""Messages a person reads, in English here and in the interface's language in the app.

The engine never imports Qt, yet its messages (a layer's problem, a trainer's warning) are
shown in the desktop app, which may speak Japanese. A message is therefore written once, as a
template marked for Qt's catalogue::

    QT_TRANSLATE_NOOP("Problems", "{type} takes 2 inputs but {count} are linked").format(
        type=spec.type, count=count)

``pyside6-lupdate`` extracts the marked template into ``resources/i18n/neurocanvas_<lang>.ts``
(the one catalogue of the app and the report), and the call gives a :class:`Message`: a ``str``
equal to the English text, so the CLI, the log files and every test read exactly what they
read before, which also remembers its template and values. The app shows
``message.translated(QCoreApplication.translate)``: the template in the interface's language,
filled with the same values (a value that is itself a Message is translated too). Layer,
property and file names are values, never translated, as NNC shows them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = [
    "QT_TRANSLATE_NOOP", "Message", "Translate", "from_event", "in_file", "json_texts",
    "text_of", "translated",
]  # fmt: skip

Translate = Callable[[str, str], str]  # (context, English template) -> template in a language


class Message(str):
    """English text that remembers its catalogue context, template and values."""

    context: str
    template: str
    values: dict[str, Any]

    def __new__(cls, context: str, template: str, values: dict[str, Any] | None = None) -> Message:
        text = template.format(**values) if values else template
        message = super().__new__(cls, text)
        message.context, message.template, message.values = context, template, dict(values or {})
        return message

    def format(self, *args: Any, **values: Any) -> Message:  # noqa: D102 - str.format's
        if args:
            raise TypeError("Message.format takes named values only: they name the placeholders")
        return Message(self.context, self.template, {**self.values, **values})

    def translated(self, translate: Translate) -> str:
        """The text in ``translate``'s language (its values translated when they are messages)."""
        template = translate(self.context, self.template) or self.template
        values = {key: translated(value, translate) for key, value in self.values.items()}
        try:
            return template.format(**values) if values else template
        except (KeyError, IndexError, ValueError):  # a translation that names other placeholders
            return str(self)

    def to_json(self) -> dict[str, Any]:
        """The template and values for a JSON event (another process translates them)."""
        values = {key: _json_value(value) for key, value in self.values.items()}
        return {"context": self.context, "template": self.template, "values": values}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Message:
        values = {key: cls.from_json(value) if isinstance(value, dict) else value
                  for key, value in data.get("values", {}).items()}  # fmt: skip
        return cls(str(data["context"]), str(data["template"]), values)


def _json_value(value: Any) -> Any:
    if isinstance(value, Message):
        return value.to_json()
    return value if isinstance(value, str | int | float | bool) or value is None else str(value)


def QT_TRANSLATE_NOOP(context: str, template: str) -> Message:  # noqa: N802 - lupdate's name
    """``template`` marked for the catalogue under ``context``; ``.format(name=value)`` fills it."""
    return Message(context, template)


def translated(text: object, translate: Translate) -> str:
    """``text`` in ``translate``'s language when it is a :class:`Message`, else as it is."""
    return text.translated(translate) if isinstance(text, Message) else str(text)


def text_of(exc: BaseException) -> str:
    """An exception's message, kept a :class:`Message` when it was raised with one (``str(exc)``
    would give plain English text)."""
    first = exc.args[0] if len(exc.args) == 1 else None
    return first if isinstance(first, Message) else str(exc)


def json_texts(fields: dict[str, Any]) -> dict[str, Any]:
    """An event's :class:`Message` fields as templates and values, under ``"texts"``: the event
    keeps its English text, and the app shows the same message in its language."""
    texts = {key: value.to_json() for key, value in fields.items() if isinstance(value, Message)}
    return {"texts": texts} if texts else {}


def from_event(record: dict[str, Any], key: str = "message") -> str:
    """An event's text field, a :class:`Message` again when the event carried its template."""
    text = record.get(key, "")
    template = record.get("texts", {}).get(key) if isinstance(record.get("texts"), dict) else None
    try:
        return Message.from_json(template) if template else str(text)
    except (KeyError, IndexError, ValueError, TypeError):  # a template from another version
        return str(text)


def in_file(path: object, error: object) -> str:
    """An error about a file or folder as one line with its name first, once: a message that
    already starts with it (a ProjectFileError, a JobError) is kept as it is."""
    place, text = str(path), str(error)
    return text if text.startswith(place) else f"{place}: {text}"
