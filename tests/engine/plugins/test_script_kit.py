"""The built-in plugin scripts share their code through engine.plugins (script_kit), never by
importing one another: a script runs from its own folder, so a sibling import works only there
and ties two menu entries together."""

from __future__ import annotations

import ast

from engine.plugins.protocol import BUILTIN_DIR, load_plugin


def test_no_builtin_script_imports_another_script():
    scripts = {p.stem: p for p in BUILTIN_DIR.rglob("*.py")}
    found = []
    for path in scripts.values():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name.split(".")[0] for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module.split(".")[0]]
            else:
                continue
            found += [f"{path.name} imports {n}" for n in names if n in scripts]
    assert found == []


def _options(name: str) -> list[tuple[str, str, str | None]]:
    path = BUILTIN_DIR / "_Post_Process" / "_XAI" / f"{name}.py"
    plugin = load_plugin(path, "XAI", True)
    assert not plugin.error, plugin.error
    return [(p.option, p.kind, p.default) for p in plugin.params]


TRAINING_ROWS = [("--train", "csv", None), ("--num_samples", "int", "0")]
SGD = [("--epochs", "int", "1"), ("--batch_size", "int", "0"), ("--n_trials", "int", "6")]


def test_the_shared_parameters_read_the_same_in_every_script():
    head = [("--model", "model", "results.nnp"), ("--input", "csv", "output_result.csv")]
    tracin = _options("tracin")
    assert tracin[:2] == head and tracin[3:5] == TRAINING_ROWS
    assert tracin[2] == ("--index", "int", "-1") and tracin[5] == ("--top", "int", "20")
    batch = _options("tracin_batch")
    assert batch[:2] == head and batch[2:4] == TRAINING_ROWS
    assert batch[5] == ("--top", "int", "3")
    for name in ("sgd_influence", "sgd_influence_tabular"):
        sgd = _options(name)
        assert sgd[:2] == head and sgd[3:5] == TRAINING_ROWS
        assert sgd[7:10] == SGD and sgd[10][0] == "--seed"
