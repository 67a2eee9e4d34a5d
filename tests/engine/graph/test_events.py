"""The observer: kinds filter, unsubscribe, a failing subscriber does not starve the others."""

import pytest

from engine.graph import events as ev


def test_subscribe_filter_and_unsubscribe():
    emitter = ev.Emitter()
    everything, moves = [], []
    stop = emitter.subscribe(everything.append)
    emitter.subscribe(moves.append, kinds=("layer_moved",))
    moved = ev.LayerMoved("Main", "A", (0, 0), (24, 0))
    emitter.emit(moved)
    emitter.emit(ev.NetworkRenamed("Main", "B"))
    stop()
    stop()  # twice is harmless
    emitter.emit(moved)
    assert everything == [moved, ev.NetworkRenamed("Main", "B")]
    assert moves == [moved, moved]


def test_failing_subscriber_does_not_stop_others_and_is_reported():
    emitter = ev.Emitter()
    seen = []

    def broken(event):
        raise RuntimeError("view bug")

    emitter.subscribe(broken)
    emitter.subscribe(seen.append)
    with pytest.raises(RuntimeError, match="view bug"):
        emitter.emit(ev.DescriptionChanged("", "x"))
    assert [e.kind for e in seen] == ["description_changed"]


def test_every_event_kind_is_distinct():
    kinds = [cls.kind for cls in ev.Event.__subclasses__()]
    assert len(kinds) == len(set(kinds)) == 14
