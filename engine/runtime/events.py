"""The JSON-lines event protocol of ``neurocanvas train --events`` (and the job's events.jsonl).

One JSON object per line, always with ``"event"`` and ``"time"`` (seconds since the epoch):

``start``       ``job``, ``project``, ``max_epoch``, ``iter_per_epoch``, ``batch_size``,
                ``device``, ``seed``, ``resumed`` (bool), ``epoch``/``iteration`` reached so far
``iteration``   ``epoch`` (1-based, running), ``iteration`` (global, completed), ``total``,
                ``cost`` (running mean of the epoch); at most a few per second
``epoch``       ``epoch``, ``cost``, ``train_error``, ``valid_error`` (null when not monitored),
                ``monitors`` (every monitor by name), ``best`` (bool), ``elapsed``
``checkpoint``  ``kind`` (``best`` or ``last``), ``epoch``, ``iteration``, ``path``
``warning``     ``message``
``done``        ``status`` (``finished`` or ``stopped``), ``epoch``, ``iteration``,
                ``best_epoch``, ``best_valid_error``, ``elapsed``
``error``       ``message`` (one line, names the place); the process exits non-zero

``neurocanvas search --events`` adds (and ends with ``done``, ``status`` only):

``search_start``    ``storage``, ``study``, ``attempts`` (the limit), ``done`` (attempts so
                    far: a resumed study), ``method``, ``objective``
``attempt_start``   ``number``, ``job``, ``parent`` (attempt number or null), ``mutation``,
                    ``cost_multiply_add``
``attempt_end``     ``number``, ``status`` (finished, stopped, failed), ``valid_error``,
                    ``cost_multiply_add``, ``message``
``attempt_failed``  ``number``, ``message``: no sound candidate was found, nothing trained
``search_end``      ``attempts``, ``pareto`` (attempt numbers), ``table`` (the results CSV)

Logs go to stderr; stdout carries nothing but events when ``--events`` is given.
"""

from __future__ import annotations

import json
import math
import sys
import threading
import time
from typing import Any, TextIO

from engine.core.atomic import DISK_FULL
from engine.core.messages import json_texts
from engine.runtime.job import Job

__all__ = ["EventSink", "EVENTS"]

EVENTS = (
    "start",
    "iteration",
    "epoch",
    "checkpoint",
    "warning",
    "done",
    "error",
    "search_start",
    "attempt_start",
    "attempt_end",
    "attempt_failed",
    "search_end",
)


def _clean(value: Any) -> Any:
    """JSON has no NaN/inf: they become null (the message says what happened)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


class EventSink:
    """Writes events to the job's ``events.jsonl`` and, with ``stream``, to that stream."""

    def __init__(self, job: Job | None = None, stream: TextIO | None = None) -> None:
        self.job = job
        self.stream = stream
        self.history: list[dict[str, Any]] = []
        self.lost_lines = 0  # events the job's events.jsonl could not take (disk full)
        self._lock = threading.Lock()

    def emit(self, event: str, **fields: Any) -> dict[str, Any]:
        if event not in EVENTS:
            raise ValueError(f"unknown event {event!r}")
        record = {"event": event, "time": round(time.time(), 3), **_clean(fields),
                  **_clean(json_texts(fields))}  # fmt: skip
        line = json.dumps(record, allow_nan=False, ensure_ascii=False)
        with self._lock:
            self.history.append(record)
            if self.job is not None:
                try:
                    self.job.append_line(self.job.events_file, line)
                except OSError as exc:
                    # A full disk: the log loses this line, but the run's own error (the
                    # checkpoint or file it could not write, named) must stay the one reported,
                    # not be replaced by "cannot write" of the event that tells of it.
                    if exc.errno not in DISK_FULL:
                        raise
                    self.lost_lines += 1
            if self.stream is not None:
                self.stream.write(line + "\n")
                self.stream.flush()
        return record

    @classmethod
    def to_stdout(cls, job: Job | None) -> EventSink:
        return cls(job, sys.stdout)
