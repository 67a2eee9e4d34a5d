import tqdm

from engine.data.progress import bar


class FakeBar:
    made = []

    def __init__(self, total, desc, **kwargs):
        self.total, self.desc, self.n, self.closed = total, desc, 0, False
        FakeBar.made.append(self)

    def update(self, k):
        self.n += k

    def close(self):
        self.closed = True


def test_bar_follows_done_and_closes_when_finished(monkeypatch):
    monkeypatch.setattr(tqdm, "tqdm", FakeBar)
    report = bar("work")
    for done in (2, 5, 10):
        report(done, 10)
    report(1, 3)  # a finished bar is replaced by a new one
    first, second = FakeBar.made
    assert (first.desc, first.total, first.n, first.closed) == ("work", 10, 10, True)
    assert (second.total, second.n, second.closed) == (3, 1, False)
