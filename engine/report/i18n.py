"""The report's language: its texts in the interface's catalogue, read without Qt.

The report's strings are marked ``translate("Report", "...")`` like the GUI's, so
``pyside6-lupdate`` extracts them into the same Qt Linguist catalogue
(``resources/i18n/neurocanvas_<lang>.ts``): one file, one tool and one review for every
string a user reads. The engine never imports Qt, so it reads the ``.ts`` (XML) itself with the
standard library: a finished ``<translation>`` per ``<source>``. Python's gettext would have
needed a second catalogue format (.po) and a compiled .mo beside the Qt one.

``with language("ja"):`` makes :func:`translate` answer in Japanese for the code inside (a
context variable, so concurrent reports in threads do not mix), and :func:`deck_font` names the
font the deck asks for (one with Japanese glyphs).
"""

from __future__ import annotations

import contextlib
import functools
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Any, TypeVar

from engine.core import optional
from engine.package_data import data_folder

matplotlib = optional.lazy("matplotlib")  # when a figure is drawn in a language
font_manager = optional.lazy("matplotlib.font_manager")

__all__ = [
    "LANGUAGES",
    "QT_TRANSLATE_NOOP",
    "cjk_matplotlib_fonts",
    "deck_font",
    "language",
    "translate",
]

LANGUAGES = ("en", "ja")
# A font with Japanese glyphs, named in the Japanese deck (Debian/Ubuntu: fonts-noto-cjk; macOS
# and Windows substitute their own Japanese font for a missing one).
FONTS = {"ja": "Noto Sans CJK JP"}
_current: ContextVar[str] = ContextVar("report_language", default="en")
T = TypeVar("T")


@contextlib.contextmanager
def language(lang: str) -> Iterator[None]:
    """Texts from :func:`translate` in ``lang`` (``en`` or ``ja``) inside the block."""
    if lang not in LANGUAGES:
        raise ValueError(f"language {lang!r}: expected one of {', '.join(LANGUAGES)}")
    token = _current.set(lang)
    try:
        yield
    finally:
        _current.reset(token)


def in_language(function: Callable[..., T]) -> Callable[..., T]:
    """``function`` takes ``lang="en"|"ja"``: its texts, figures (a matplotlib font with Japanese
    glyphs as fallback) and the deck's font in that language."""

    @functools.wraps(function)
    def wrapper(*args: Any, lang: str = "en", **kwargs: Any) -> T:
        fonts = {"font.family": cjk_matplotlib_fonts()} if lang in FONTS else {}
        with language(lang), matplotlib.rc_context(fonts):
            return function(*args, **kwargs)

    return wrapper


def use(lang: str) -> None:
    """``lang`` from now on in this thread (the desktop app's plots follow its interface)."""
    if lang not in LANGUAGES:
        raise ValueError(f"language {lang!r}: expected one of {', '.join(LANGUAGES)}")
    _current.set(lang)


def current() -> str:
    return _current.get()


def translate(context: str, text: str) -> str:
    """``text`` in the current language (itself when the catalogue has no finished entry)."""
    lang = _current.get()
    if lang == "en":
        return text
    return _catalogue(lang).get((context, text), text)


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:  # noqa: N802 - the name lupdate reads
    """Marks ``text`` for the catalogue where it is defined; translated where it is shown."""
    return text


def deck_font() -> str | None:
    """The font the deck names for its texts in the current language (None: the template's)."""
    return FONTS.get(_current.get())


@functools.cache
def _catalogue(lang: str) -> dict[tuple[str, str], str]:
    folder = data_folder("neurocanvas_resources", "resources")
    path = Path(folder) / "i18n" / f"neurocanvas_{lang}.ts" if folder else None
    if path is None or not path.is_file():
        return {}
    found = {}
    for context in ET.parse(path).getroot().iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            translation = message.find("translation")
            if translation is None or translation.get("type") or not translation.text:
                continue  # unfinished, obsolete or empty: the English source is shown
            found[(name, message.findtext("source") or "")] = translation.text
    return found


@functools.cache
def cjk_matplotlib_fonts() -> list[str]:
    """matplotlib's font families with a Japanese one as fallback when the system has it
    (registered by file: matplotlib's font cache may predate the font's installation)."""
    families = ["DejaVu Sans"]
    wanted = FONTS["ja"]
    if not any(f.name == wanted for f in font_manager.fontManager.ttflist):
        for path in font_manager.findSystemFonts():
            if Path(path).name.startswith(("NotoSansCJK-Regular", "NotoSansCJK-Bold")):
                with contextlib.suppress(Exception):
                    font_manager.fontManager.addfont(path)
    if any(f.name == wanted for f in font_manager.fontManager.ttflist):
        families.append(wanted)
    return families
