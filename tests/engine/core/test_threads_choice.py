"""engine.core.threads: the thread count chosen by timing units of work (a fake clock: the
decisions, never wall-clock times), forced counts, and results equal to fixed-thread runs."""

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from engine.core import products, threads
from engine.core.ops import _threads

ROOT = Path(__file__).resolve().parents[3]


class FakeClock:
    """A clock a unit advances by the time its thread count takes (``cost[count]``)."""

    def __init__(self, cost):
        self.now = 0.0
        self.cost = dict(cost)
        self.applied = []  # every count the chooser set, in order
        self.units = []  # the count each unit ran on

    def __call__(self):
        return self.now

    spare_cores = None  # what the machine's counters say (None: unknown, the units are timed)

    def spare(self):
        return self.spare_cores

    def chooser(self, **options):
        return threads.ThreadChooser(2, clock=self, apply=self.apply, spare=self.spare, **options)

    def apply(self, count):
        self.applied.append(count)

    def run(self, chooser, units):
        for _ in range(units):
            chooser.begin()
            count = self.applied[-1]
            self.units.append(count)
            self.now += self.cost[count]
            chooser.end()


def test_one_thread_kept_beside_a_busy_neighbour():
    clock = FakeClock({1: 0.010, 2: 0.030})  # two threads wait for a descheduled partner
    chooser = clock.chooser()
    clock.run(chooser, 20)
    # warm-up on one thread, one unit on two, one on one: 3x apart decides at once
    assert clock.units[:3] == [1, 2, 1]
    assert clock.units[3:] == [1] * 17
    [(chosen, samples)] = chooser.log
    assert chosen == 1
    assert samples == {1: [pytest.approx(0.010)], 2: [pytest.approx(0.030)]}


def test_every_core_kept_on_a_quiet_machine():
    clock = FakeClock({1: 0.010, 2: 0.008})  # close: a second pair before deciding
    chooser = clock.chooser()
    clock.run(chooser, 12)
    assert clock.units[:5] == [1, 2, 1, 2, 1]
    assert clock.units[5:] == [2] * 7
    assert chooser.chosen == 2
    chooser.close()
    assert clock.applied[-1] == 2  # back to the count found at the start (nothing to change)


def test_a_neighbour_appearing_later_is_noticed_twice_slower_units_in_a_row():
    clock = FakeClock({1: 0.010, 2: 0.008})
    chooser = clock.chooser(recheck_s=100.0)
    clock.run(chooser, 10)
    assert chooser.chosen == 2
    clock.cost = {1: 0.012, 2: 0.040}  # a busy process starts
    clock.run(chooser, 10)
    ran = clock.units[10:]
    # two slow units, then the other count and the chosen one timed: one thread wins
    assert ran[:4] == [2, 2, 1, 2]
    assert ran[4:] == [1] * 6
    assert [count for count, _ in chooser.log] == [2, 1]


def test_a_single_slow_unit_does_not_recheck():
    clock = FakeClock({1: 0.010, 2: 0.008})
    chooser = clock.chooser(recheck_s=100.0)
    clock.run(chooser, 8)
    clock.cost[2] = 0.050  # one interruption
    clock.run(chooser, 1)
    clock.cost[2] = 0.008
    clock.run(chooser, 6)
    assert clock.units[8:] == [2] * 7
    assert len(chooser.log) == 1


def test_rechecked_every_few_seconds_and_the_neighbour_leaving_is_noticed():
    clock = FakeClock({1: 0.5, 2: 1.5})  # busy: one thread chosen
    chooser = clock.chooser(recheck_s=3.0)
    clock.run(chooser, 3)
    assert chooser.chosen == 1
    clock.cost = {1: 0.5, 2: 0.3}  # the neighbour ends
    clock.run(chooser, 6)  # 3 s after the decision: two threads timed again, and chosen
    assert clock.units[3:] == [1] * 6
    clock.run(chooser, 5)
    assert clock.units[9:11] == [2, 1]
    assert chooser.chosen == 2
    assert [count for count, _ in chooser.log] == [1, 2]


def test_no_unit_on_two_threads_while_the_other_processes_keep_the_cores_busy():
    clock = FakeClock({1: 0.010, 2: 0.100})
    clock.spare_cores = -0.4  # one core busy beside this process's thread, and more
    chooser = clock.chooser(recheck_s=0.045)
    clock.run(chooser, 8)  # re-checked after 5 units: still busy
    assert clock.units == [1] * 8
    assert chooser.log == [(1, {}), (1, {})]
    clock.spare_cores = 0.9  # the neighbour left a core idle: two threads timed, and kept
    clock.cost[2] = 0.006
    clock.run(chooser, 6)  # the next look, 5 units after the last, finds the idle core
    assert clock.units[8:] == [1, 1, 1, 2, 1, 2]
    assert [count for count, _ in chooser.log] == [1, 1, 2]


def test_spare_cores_counts_what_the_other_processes_used(monkeypatch):
    samples = iter([(10.0, 100.0, 5.0), (12.0, 102.5, 6.5)])  # 2 s: 2.5 busy, 1.5 ours
    monkeypatch.setattr(threads, "_cpu_sample", lambda: next(samples))
    monkeypatch.setattr(threads, "_START", None)
    monkeypatch.setattr(threads, "_allowed_cpus", lambda: {0, 1})
    spare = threads._SpareCores(2)
    assert spare() is None  # no earlier look
    assert spare() == pytest.approx(2 - 1 - 0.5)  # others used half a core


def test_cpu_sample_reads_the_cores_this_process_may_use():
    sample = threads._cpu_sample()
    if sample is None:
        pytest.skip("no /proc/stat")
    wall, busy, own = sample
    assert busy > 0 and own > 0
    later = threads._cpu_sample()
    assert later[0] >= wall and later[1] >= busy and later[2] >= own


def test_timed_restores_the_count_and_passes_every_item():
    clock = FakeClock({1: 0.01, 2: 0.03})
    chooser = clock.chooser()

    def items():
        for i in range(6):
            clock.now += clock.cost[clock.applied[-1]]
            yield i

    assert list(threads.timed(chooser, items())) == list(range(6))
    assert chooser.chosen == 1
    assert clock.applied == [1, 2, 1, 2]  # warm-up, the pair, then restored at the end
    assert list(threads.timed(None, range(3))) == [0, 1, 2]


def test_chosen_by_default_unless_forced_one_core_or_products_depend_on_the_count(monkeypatch):
    for name in ("NEUROCANVAS_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(_threads, "count", lambda: 2)
    monkeypatch.setattr(threads, "_state", {"env": True})
    monkeypatch.setattr(products, "blocking", lambda: products.Blocking(448, 16))
    assert isinstance(threads.chooser(), threads.ThreadChooser)  # the default
    monkeypatch.setattr(products, "blocking", lambda: None)  # another BLAS: every core
    assert threads.chooser() is None
    threads.adapt()  # unless asked for: --threads auto
    assert isinstance(threads.chooser(), threads.ThreadChooser)
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    assert threads.chooser() is None
    monkeypatch.delenv("OMP_NUM_THREADS")
    monkeypatch.setattr(_threads, "set_count", lambda n: None)
    threads.force(2)
    assert threads.forced() == 2 and threads.chooser() is None
    threads.force(None)
    monkeypatch.setattr(_threads, "count", lambda: 1)
    assert threads.chooser() is None
    with pytest.raises(ValueError, match="thread count must be 1 or more"):
        threads.force(0)


def test_set_count_sets_numpys_blas_and_the_kernels_follow():
    pytest.importorskip("threadpoolctl")
    before = _threads.count()
    try:
        _threads.set_count(1)
        assert _threads.count() == 1
        _threads.set_count(2)
        assert _threads.count() == 2
    finally:
        _threads.set_count(before)


def _cli(*args, env=None):
    env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    for name in ("NEUROCANVAS_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        if name not in (env or {}):
            env.pop(name, None)
    return subprocess.run([sys.executable, "-m", "engine.cli", *args], env=env,
                          capture_output=True, text=True, timeout=600)  # fmt: skip


def _parameters(job: Path) -> bytes:
    with zipfile.ZipFile(job / "results.nnp") as nnp:
        return nnp.read("parameter.protobuf")


@pytest.mark.slow
@pytest.mark.parametrize("sample", ["lenet_digits", "bn_dropout_digits"])
def test_the_chosen_count_trains_the_same_parameters_as_one_and_two_threads(tmp_path, sample):
    """The kernels split output maps and the products are cut where OpenBLAS's drivers would
    sum differently (engine/core/products.py; bn_dropout_digits' 784-input affine layer is
    one): switching counts between steps changes no number. A chooser that switches at every
    step (recheck_s=0 re-times the pair after each unit) must give the parameters of one
    thread and of two, byte for byte."""
    project = str(ROOT / "projects" / f"{sample}.ncproj")
    for name, extra in (("one", ["--threads", "1"]), ("two", ["--threads", "2"])):
        out = _cli("train", project, "--epochs", "1", "--seed", "5", "-o", str(tmp_path / name),
                   *extra)  # fmt: skip
        assert out.returncode == 0, out.stderr
    code = (
        "import io, sys\n"
        "from engine.core import threads\n"
        "from engine.core.ops import _threads\n"
        "_threads.set_count(2)\n"
        "seen = []\n"
        "apply = lambda n: (seen.append(n), _threads.set_count(n))\n"
        "threads.chooser = lambda: threads.ThreadChooser(\n"
        "    2, apply=apply, recheck_s=0.0, spare=lambda: None)\n"
        "from engine.runtime.run import Options, train\n"
        f"train({project!r}, job_dir=sys.argv[1], epochs=1, seed=5,\n"
        "      options=Options(events=io.StringIO()))\n"
        "print(len(seen))\n"
    )
    env = {k: v for k, v in os.environ.items() if "THREADS" not in k}
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "switching")],
                         env={**env, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                         timeout=600)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert int(out.stdout.strip().splitlines()[-1]) >= 15  # it did switch, about every step
    one = _parameters(tmp_path / "one")
    assert one == _parameters(tmp_path / "two") == _parameters(tmp_path / "switching")


@pytest.mark.slow
def test_threads_option_forces_the_count_and_evaluate_gives_the_same_output(tmp_path):
    project = str(ROOT / "projects" / "lenet_digits.ncproj")
    job = tmp_path / "job"
    out = _cli("train", project, "--epochs", "1", "--seed", "2", "-o", str(job), "--threads", "1")
    assert out.returncode == 0, out.stderr
    outputs = []
    for extra in ([], ["--threads", "1"], ["--threads", "2"]):
        out = _cli("evaluate", str(job), *extra)
        assert out.returncode == 0, out.stderr
        outputs.append((job / "output_result.csv").read_text())
    assert outputs[0] == outputs[1] == outputs[2]
    assert len(outputs[0].splitlines()) == 298  # header + the 297 validation images
    bad = _cli("train", project, "--threads", "0", "-o", str(tmp_path / "bad"))
    assert bad.returncode == 2
    assert "--threads: expected a positive integer. Received: 0" in bad.stderr
    assert "Traceback" not in bad.stderr and not (tmp_path / "bad").exists()


@pytest.mark.slow
def test_threads_option_runs_one_thread(tmp_path):
    """``--threads 1``: NumPy's BLAS (and so the kernels) on one thread for the whole run."""
    code = (
        "import sys\n"
        "from engine.cli import main\n"
        "from engine.core.ops import _threads\n"
        "from engine.runtime import trainer\n"
        "seen = []\n"
        "update = trainer.Trainer.update\n"
        "trainer.Trainer.update = lambda self: (seen.append(_threads.count()), update(self))\n"
        "main(sys.argv[1:])\n"
        "print(sorted(set(seen)))\n"
    )
    project = str(ROOT / "projects" / "lenet_digits.ncproj")
    env = {k: v for k, v in os.environ.items() if "THREADS" not in k}
    counts = []
    for extra in (["--threads", "1"], ["--threads", "2"]):
        out = subprocess.run([sys.executable, "-c", code, "train", project, "--epochs", "1",
                              "-o", str(tmp_path / extra[1]), *extra],
                             env={**env, "PYTHONPATH": str(ROOT)}, capture_output=True,
                             text=True, timeout=600)  # fmt: skip
        assert out.returncode == 0, out.stderr
        counts.append(out.stdout.strip().splitlines()[-1])
    assert counts == ["[1]", "[2]"]
