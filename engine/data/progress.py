"""Progress reporting for long dataset steps (cache builds, generation, downloads).

Dataset functions take ``progress``: None (silent) or a callable ``progress(done, total)``.
:func:`bar` gives one that draws a tqdm bar on stderr, for the command line.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.core import optional

tqdm = optional.lazy("tqdm")

Progress = Callable[[int, int], None]

__all__ = ["Progress", "bar"]


def bar(desc: str, unit: str = "it", unit_scale: bool = False) -> Progress:
    """A ``progress(done, total)`` callable drawing a tqdm bar that closes itself when done."""
    state: dict[str, Any] = {}

    def report(done: int, total: int) -> None:
        if "bar" not in state:
            state["bar"] = tqdm.tqdm(total=total, desc=desc, unit=unit, unit_scale=unit_scale,
                                leave=False)  # fmt: skip
        progress = state["bar"]
        progress.update(done - progress.n)
        if done >= total:
            progress.close()
            del state["bar"]

    return report
