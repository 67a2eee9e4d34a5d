"""The exported ``.nnp`` in the real nnabla: ``NnpLoader`` runs it and gives our outputs.

Optional: nnabla 1.39 publishes wheels for Python 3.10 only, so the test runs nnabla in the
interpreter named by ``NNABLA_PYTHON`` (``.ci/run`` sets one up where it can) and is skipped,
saying so, when that variable is unset.
"""

from __future__ import annotations

import json
import os
import subprocess
import textwrap

import numpy as np
import pytest
from model_kit import PROJECTS, RECURRENT, outputs, randomized, sample_inputs, save
from nnc_samples import LENET

from engine.export import Source, export_nnp
from engine.formats import load_project
from engine.runtime.compiler import compile_network

NNABLA = os.environ.get("NNABLA_PYTHON")
pytestmark = pytest.mark.skipif(
    not NNABLA, reason="NNABLA_PYTHON is unset (a Python 3.10 with nnabla 1.39 installed)"
)

RUNNER = textwrap.dedent("""
    import json, sys
    import numpy as np
    from nnabla.utils.nnp_graph import NnpLoader
    for case in json.load(open(sys.argv[1])):
        x = np.load(case["x"])
        net = NnpLoader(case["nnp"]).get_network(case["network"], batch_size=x.shape[0])
        var = net.inputs[case["input"]]
        var.d = x.reshape(var.shape)
        out = net.outputs[case["output"]]
        out.forward(clear_buffer=True)
        np.save(case["y"], out.d)
""")


def test_nnabla_runs_our_nnp_files_like_the_engine(tmp_path):
    cases, expected = [], {}
    for path in [p for p in PROJECTS if p.stem not in RECURRENT] + [LENET]:
        project = load_project(path)
        network = project.executors[0].network
        program = compile_network(project, network)
        values = randomized(program)
        source = Source(project, path.stem, network, save(values, tmp_path / "p.npz"), True)
        nnp = export_nnp(source, tmp_path / f"{path.stem}.nnp")
        x = sample_inputs(program)
        (name, ref), = program.outputs  # fmt: skip
        np.save(tmp_path / f"{path.stem}.x.npy", x[next(iter(x))])
        expected[path.stem] = outputs(project, network, values, x)[0]
        cases.append({"nnp": str(nnp), "network": network, "input": next(iter(x)),
                      "output": str(ref[1]), "x": str(tmp_path / f"{path.stem}.x.npy"),
                      "y": str(tmp_path / f"{path.stem}.y.npy")})  # fmt: skip
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    (tmp_path / "run.py").write_text(RUNNER)
    done = subprocess.run([NNABLA, str(tmp_path / "run.py"), str(tmp_path / "cases.json")],
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    for stem, value in expected.items():
        got = np.load(tmp_path / f"{stem}.y.npy")
        np.testing.assert_allclose(got.reshape(value.shape), value, atol=1e-4, rtol=1e-4,
                                   err_msg=stem)  # fmt: skip
