"""The README stays true: its Python tour runs as written."""

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_python_tour_runs(tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    assert blocks, "the README has no Python example"
    monkeypatch.chdir(tmp_path)
    for code in blocks:
        namespace: dict = {}
        exec(compile(code, "README.md", "exec"), namespace)  # our own README, not user input
    assert (tmp_path / "lenet.npz").exists()
    assert float(namespace["loss"].d) < 2.3  # ten Adam steps on one batch lower the loss


def test_readme_starts_with_the_two_setup_commands():
    text = README.read_text(encoding="utf-8")
    first_block = re.search(r"```bash\n(.*?)```", text, flags=re.S).group(1).strip().splitlines()
    assert first_block[0].startswith("pip install -e . && neurocanvas")
    assert first_block[1].startswith('pip install -e ".[test]" && python -m pytest')


def test_readme_layer_table_matches_the_catalogue():
    import sys

    sys.path.insert(0, str(README.parent / "tools"))
    from layer_table import layer_table

    text = README.read_text(encoding="utf-8")
    table = text.split("<!-- layer-table -->\n", 1)[1].split("<!-- /layer-table -->", 1)[0]
    assert table == layer_table(), "run: python tools/layer_table.py and paste it into the README"
