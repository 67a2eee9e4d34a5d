"""The trade-off graph stays readable with many jobs (engine.report.curves, Agg, no Qt)."""

from __future__ import annotations

from pathlib import Path

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from engine.report.curves import NAME_ALL_UP_TO, draw_tradeoff
from engine.runtime.job_history import JobInfo


def _job(name: str, cost: int, error: float) -> JobInfo:
    return JobInfo(path=Path(name), name=name, status="finished", date="", curve=[(1, None, None,
                   error)], best_epoch=1, statistics={"CostMultiplyAdd": cost})  # fmt: skip


def _drawn(jobs: list[JobInfo]) -> tuple[list[str], list[str], float]:
    figure = Figure(figsize=(4, 3.2), tight_layout=True)
    ax = figure.add_subplot(1, 1, 1)
    front = draw_tradeoff(ax, jobs, "CostMultiplyAdd")
    figure.canvas.draw()  # tight_layout places the axes now
    return front, [t.get_text() for t in ax.texts], ax.get_position().width


def test_a_sweep_names_only_its_pareto_front_and_keeps_the_axes_wide():
    """Six PTQ jobs of one network: one cost, long names, errors 0.03 ... 2.3."""
    stem = "20261125_203535_quantization/fixed-point_both_"
    errors = {16: 0.0264, 8: 0.0257, 6: 0.0281, 4: 0.0765, 3: 0.242, 2: 2.303}
    jobs = [_job(f"{stem}{bits}bit_ptq", 802_876, e) for bits, e in errors.items()]
    jobs.append(_job("20261125_204201", 1_009_456, 0.0513))
    front, named, width = _drawn(jobs)
    assert front == [f"{stem}8bit_ptq"]  # the lowest error at the lowest cost
    assert named == front
    red = [line for line in ax_lines(jobs) if line.get_color() == "tab:red"]
    assert red and all(line.get_zorder() > 2 for line in red)  # drawn over the gray points
    _, _, width_alone = _drawn(jobs[1:2])  # one job, its long name drawn
    assert width == pytest.approx(width_alone)  # names never squeeze the axes
    assert width > 0.6


@pytest.mark.parametrize("count", [1, NAME_ALL_UP_TO])
def test_a_few_jobs_are_all_named(count):
    """Cost and error both grow: only the first is on the front, yet every job is named."""
    jobs = [_job(f"job{k}", 1000 * (k + 1), 0.5 + 0.01 * k) for k in range(count)]
    front, named, _ = _drawn(jobs)
    assert front == ["job0"]
    assert named == [j.name for j in jobs]


def ax_lines(jobs: list[JobInfo]) -> list:
    ax = Figure().add_subplot(1, 1, 1)
    draw_tradeoff(ax, jobs, "CostMultiplyAdd")
    return ax.lines


def test_close_costs_are_labelled_in_full_without_an_offset():
    """Issue 35, item 16: three jobs a few multiply-adds apart around a million had the axis
    "46 49 52 +1.0317e6"; the ticks now read as whole numbers with separators."""
    jobs = [_job(f"j{k}", 1_031_746 + 3 * k, 0.05 - 0.01 * k) for k in range(3)]
    figure = Figure(figsize=(4, 3.2), tight_layout=True)
    ax = figure.add_subplot(1, 1, 1)
    draw_tradeoff(ax, jobs, "CostMultiplyAdd")
    figure.canvas.draw()
    labels = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert ax.xaxis.get_offset_text().get_text() == ""
    assert labels and all(label.startswith("1,031,7") for label in labels), labels
    wide = [_job("a", 2_000, 0.1), _job("b", 80_000_000, 0.05)]
    draw_tradeoff(ax, wide, "CostMultiplyAdd")
    figure.canvas.draw()
    assert ax.xaxis.get_offset_text().get_text() == ""
    assert any("," in t.get_text() for t in ax.get_xticklabels())


def test_point_labels_stay_inside_the_axes_and_close_losses_have_no_offset():
    """Issue 35, item 16: the name of a point at the right edge ran out of the axes (cut in
    the GUI), a sweep's points at one place drew their names over each other, and losses a
    little apart read "+3.46e-1" on the loss axis."""
    sweep = "20261128_170000_quantization"
    jobs = [_job("20261128_171000", 802_876, 1.0842), _job("20261128_170000", 900_000, 0.346609),
            _job(f"{sweep}: 8-bit PTQ", 900_000, 0.346194),
            _job(f"{sweep}: 4-bit PTQ", 900_000, 0.346194)]  # fmt: skip
    figure = Figure(figsize=(4, 3.2), tight_layout=True)
    canvas = FigureCanvasAgg(figure)
    ax = figure.add_subplot(1, 1, 1)
    draw_tradeoff(ax, jobs, "CostMultiplyAdd")
    canvas.draw()
    renderer = canvas.get_renderer()
    box = ax.get_window_extent(renderer)
    texts = {t.get_text(): t.get_window_extent(renderer) for t in ax.texts}
    assert set(texts) == {"20261128_171000",
                          f"20261128_170000\n{sweep}:\n  8-bit PTQ, 4-bit PTQ"}  # fmt: skip
    for text, extent in texts.items():
        assert box.x0 <= extent.x0 and extent.x1 <= box.x1, text
        assert box.y0 <= extent.y0 and extent.y1 <= box.y1, text
    assert ax.yaxis.get_offset_text().get_text() == ""
    assert ax.xaxis.get_offset_text().get_text() == ""
    close = [_job(f"j{k}", 1000 * (k + 1), 0.3462 + 0.0001 * k) for k in range(3)]
    draw_tradeoff(ax, close, "CostMultiplyAdd")
    figure.canvas.draw()
    assert ax.yaxis.get_offset_text().get_text() == ""
    assert all(t.get_text().startswith("0.346") for t in ax.get_yticklabels() if t.get_text())
