# ruff: noqa: E501 - the README table rows below are one line each
"""One-off: move the README's long reference parts into docs/ pages (issue 31).

python tools/readme_to_docs.py README_IN  (writes README.md and docs/*.md in the checkout)

Kept for the lead: run again on a newer README to redo the move after other branches' README
edits land. Each moved part keeps its text; its page gets numbered headings (tests/test_docs.py)
and the README keeps the part's first paragraph(s) and a link.
"""

from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def blocks(text: str) -> list[str]:
    """Paragraphs, lists, tables and fenced code blocks (whole), in order."""
    out, cur, fence = [], [], False
    for line in text.split("\n"):
        if line.startswith("```"):
            fence = not fence
        if not fence and not line.strip() and not line.startswith("```"):
            if cur:
                out.append("\n".join(cur))
                cur = []
            continue
        cur.append(line)
    if cur:
        out.append("\n".join(cur))
    return out


def sections(text: str, level: str) -> list[tuple[str, str]]:
    """(heading line, body) per heading of exactly ``level`` (``##``), outside code fences;
    the text before the first heading has heading ''."""
    parts, head, cur, fence = [], "", [], False
    for line in text.split("\n"):
        if line.startswith("```"):
            fence = not fence
        if not fence and line.startswith(level + " "):
            parts.append((head, "\n".join(cur)))
            head, cur = line, []
            continue
        cur.append(line)
    parts.append((head, "\n".join(cur)))
    return parts


def slug(title: str) -> str:
    s = title.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def split(body: str, markers: list[tuple[str, str]], first: str) -> list[tuple[str, list[str]]]:
    """The body's blocks cut where a block starts with one of ``markers`` (regex, title)."""
    cut: list[tuple[str, list[str]]] = [(first, [])]
    pending = list(markers)
    for block in blocks(body):
        if pending and re.match(pending[0][0], block):
            cut.append((pending.pop(0)[1], []))
        cut[-1][1].append(block)
    assert not pending, f"markers not found: {pending}"
    return cut


# The page each moved heading's anchor now lives on (filled while pages are built).
MOVED: dict[str, tuple[str, str]] = {}


def page_links(text: str, page: str) -> str:
    """Links of text moved to docs/<page>: docs/ paths relative, README anchors resolved."""
    text = re.sub(r"\]\(docs/", "](", text)

    def anchor(m: re.Match) -> str:
        target = MOVED.get(m.group(1))
        if target is None:
            return f"](../README.md#{m.group(1)})"
        return f"](#{target[1]})" if target[0] == page else f"]({target[0]}#{target[1]})"

    return re.sub(r"\]\(#([\w-]+)\)", anchor, text)


def readme_links(text: str) -> str:
    def anchor(m: re.Match) -> str:
        target = MOVED.get(m.group(1))
        return m.group(0) if target is None else f"](docs/{target[0]}#{target[1]})"

    return re.sub(r"\]\(#([\w-]+)\)", anchor, text)


def render(title: str, intro: str, parts: list[tuple[str, list[str]]], start: int = 1) -> str:
    lines = [f"# {title}", "", intro.strip(), ""]
    for k, (name, body) in enumerate(parts, start):
        lines += [f"## {k}. {name}", "", "\n\n".join(body), ""]
    return "\n".join(lines).rstrip() + "\n"


PAGES = {
    # README heading -> (page, title, intro, first part's title, markers, README blocks kept)
    "## Export": (
        "export.md",
        "Export",
        """
How a trained network leaves NeuroCanvas: Python code (for NeuroCanvas or nnabla), ONNX (float or
with its quantizers), nnabla's NNP and NNB, C source and TFLite; what each writes, what it
refuses, and how each is checked against the engine. Moved from the README; the code cites this
page as `docs/export.md §N`.
""",
        "The command and the app",
        [
            (r"\*\*C source\*\*", "C source"),
            (r"\*\*int8 ONNX\*\*", "int8 ONNX"),
            (r"\*\*TFLite\*\*", "TFLite"),
            (
                r"\*\*Verified\*\* \(tests/engine/export/test_c_source",
                "How the C source is verified",
            ),
            (r"\*\*Python\*\* \(also", "Python code"),
            (r"\*\*ONNX\.\*\*", "ONNX"),
            (r"\*\*NNP\.\*\*", "NNP"),
            (r"\*\*NNB ", "NNB, NNC's own deploy route"),
        ],
        1,
    ),
    "## Import": (
        "import.md",
        "Import",
        """
How a model made elsewhere becomes a NeuroCanvas project (and, with its parameters, a job
folder): ONNX, NNP and nntxt, what each brings, the catalogue rules that read them and how the
import is checked. Moved from the README.
""",
        "The command and the app",
        [
            (r"A model that carries parameters", "Parameters: a finished job folder"),
            (r"- \*\*NNP / nntxt\*\*", "What each format brings"),
            (r"\*\*One declaration, both directions\.\*\*", "One declaration, both directions"),
            (r"\*\*Verified\*\* \(tests/engine/formats\)", "Verified"),
        ],
        1,
    ),
    "## Benchmarks": (
        "benchmarks.md",
        "Benchmarks",
        """
Every speed figure the project has measured, with the command that measures it, the machine
and its load, and what changed between the runs. The README keeps a summary table; this page
keeps the details per CPU. Timings on the shared development machines are paired rounds in one
process (ratios), with the load average beside each figure.
""",
        None,
        [],
        0,
    ),
}

TOUR_PAGES = {
    # Tour subsection -> (page, title, intro, first part's title, markers, README blocks kept)
    "### Data-parallel training (MPI)": (
        "data-parallel.md",
        "Data-parallel training (MPI)",
        """
Training one project on K processes with MPI (`--distributed`): shards, the all-reduce, the GPU
path and what was measured. Moved from the README's tour.
""",
        "Running it",
        [(r"On GPUs each process", "GPUs and measurements")],
        1,
    ),
    "### Structure search": (
        "structure-search.md",
        "Structure search",
        """
NNC's Structure Search in NeuroCanvas (`neurocanvas search`, CONFIG > Structure Search): the
mutations, the Optuna study, workers on SQLite or PostgreSQL and a measured search. Moved from the
README's tour; NNC's own rules are in docs/nnc-behaviour.md §9.
""",
        "Running a search",
        [
            (r"The study is an \[Optuna\]", "The study"),
            (r"On PostgreSQL", "PostgreSQL and workers on other machines"),
            (r"Measured: LeNet", "Measured"),
        ],
        1,
    ),
    "### Plugins (EVALUATION)": (
        "plugins.md",
        "Plugins",
        """
NNC's post-process plugins (EVALUATION) and pre-process plugins (DATASET > Create Dataset), with
NNC's protocol: the built-in ones, how they are checked, and how to write one. Moved from the
README's tour.
""",
        "Post-process plugins (EVALUATION)",
        [
            (r"Checked against independent", "Checked against references"),
            (r"\*\*Writing a plugin\*\*", "Writing a plugin"),
            (r"Folders are added in the app", "Plugin folders"),
        ],
        1,
    ),
}
CREATE_DATASET = "### Create Dataset (DATASET, pre-process plugins)"

BENCH_SUMMARY = """
Figures from the 2-core development machines while other work shared them (each with its load
average and runs in [docs/benchmarks.md](docs/benchmarks.md), which also has the per-CPU
details); the lead re-measures headline figures on a quiet machine.

| Benchmark | Command | Where it stands | Details |
|---|---|---|---|
| Training step against PyTorch CPU (ours / PyTorch) | `python tests/benchmarks/bench_train_step.py` | Intel Xeon, default (two) threads: LeNet 0.83x, MLP 0.96x, ResNet-style 1.21x, MobileNet-style 0.90x; one thread 0.56x, 0.72x, 0.89x, 0.76x | [§1](docs/benchmarks.md#1-training-step) |
| Cold start: `neurocanvas train` to its first iteration | `python tests/benchmarks/bench_cold_start.py` | 0.9 s on a warm machine; 3.8-4.0 s on a fresh one (numba compiles the kernels once per machine) | [§2](docs/benchmarks.md#2-cold-start) |
| Inference, batch 64, against onnxruntime | `python tests/benchmarks/bench_inference.py` | one thread 1.24-1.42x (LeNet, ResNet- and SqueezeNet-style), 3.0x MobileNet-style; two threads 2.3-4.6x (goal 1.5x) | [§3](docs/benchmarks.md#3-inference) |
| `evaluate` against the sum of its forward passes | `python tests/benchmarks/bench_evaluate.py` | 2.8-2.9x (goal 1.2x) | [§4](docs/benchmarks.md#4-evaluate) |
| Model: densenet-161's shapes and statistics | `python tests/benchmarks/bench_model.py` | full recompute 41-44 ms (< 1 s), a property edit 2-26 ms (< 50 ms) | [§5](docs/benchmarks.md#5-model) |
| Deploy: C, ONNX and TFLite of LeNet's 8-bit and mixed-precision networks | `python tests/benchmarks/bench_deploy.py` | accuracy and time per image of each export against the engine's | [§6](docs/benchmarks.md#6-deploy) |
| Quantization sweep (6-point PTQ of LeNet) | `python tests/benchmarks/bench_quantize.py` | 15.6x one evaluation in CPU time (3.9 s) | [§7](docs/benchmarks.md#7-quantization-sweep) |
| Editor: open densenet-161, edit, pan | `python tests/benchmarks/bench_editor.py` | open 183-204 ms (< 3 s), an edit 19-25 ms (< 100 ms), a pan frame 7.9-8.6 ms (< 16 ms) | [§8](docs/benchmarks.md#8-editor) |
| Report of a LeNet job | `python tests/benchmarks/bench_report.py` | `neurocanvas report` 1.4-1.5 s CPU (< 3 s) | [§9](docs/benchmarks.md#9-report) |
"""

NEW_DOC_LINKS = """- [docs/export.md](docs/export.md): Python, ONNX, NNP, NNB, C source and TFLite export, each
  verified against the engine
- [docs/import.md](docs/import.md): ONNX, NNP and nntxt import
- [docs/benchmarks.md](docs/benchmarks.md): every benchmark, its command and the figures per CPU
- [docs/data-parallel.md](docs/data-parallel.md): training on K processes with MPI
- [docs/structure-search.md](docs/structure-search.md): structure search, its study and workers
- [docs/plugins.md](docs/plugins.md): the EVALUATION and Create Dataset plugins, writing one
- [docs/onnx-operators.md](docs/onnx-operators.md): the ONNX operators each layer maps to
"""


SUMMARIES = {
    "export.md": "C source (`export c`), TFLite (`export tflite [--int8]`), ONNX with its "
    "quantizers (`export onnx --quantized`) and nnabla's NNB are there too, from the command "
    "line, File > Export and the job menu; every export is checked by running it against the "
    "engine on the same inputs.",
    "data-parallel.md": "Each process trains on its own slice of every global batch (CONFIG's "
    "Batch Size is per process); the gradients are averaged by an all-reduce so every rank "
    "applies the same update, and rank 0 alone writes the job folder, which resumes with any "
    "K. TRAINING's Processes box runs the same command.",
    "structure-search.md": "Each attempt mutates a parent from the Pareto front of the "
    "attempts so far with NNC's mutation rules and trains it as an ordinary job folder (so "
    "TRAINING's history and trade-off graph show it); the attempts live in an Optuna study "
    "(SQLite, or PostgreSQL shared by workers on other machines), and `--method gp` picks "
    "candidates with a Gaussian process.",
}


WHAT = {
    "export.md": "each format, what it refuses, how it is verified",
    "import.md": "what each format brings, the catalogue's import rules, how it is verified",
    "data-parallel.md": "shards, the all-reduce, resuming with another K, GPUs, measurements",
    "structure-search.md": "the mutations, the study, PostgreSQL workers, a measured search",
    "plugins.md": "the built-in plugins, how each is checked, writing one, plugin folders",
}


def kept(body: str, n: int, page: str, what: str) -> str:
    head = blocks(body)[:n]
    extra = [SUMMARIES[page]] if page in SUMMARIES else []
    link = f"More: [docs/{page}](docs/{page}) ({what})."
    return "\n\n".join([*head, *(textwrap.fill(e, 96) for e in extra), link])


def main(source: Path) -> None:
    text = source.read_text(encoding="utf-8")
    top = sections(text, "##")
    # anchors first: every moved heading's new place
    for head, (page, _t, _i, first, _m, _n) in PAGES.items():
        body = dict(top)[head]
        if first is None:  # subsections become the page's sections
            for k, (sub, _b) in enumerate(sections(body, "###")[1:], 1):
                name = sub[4:]
                MOVED[slug(name)] = (page, slug(f"{k}. {name}"))
    pages: dict[str, str] = {}
    out = []
    for head, body in top:
        if head in PAGES:
            page, title, intro, first, markers, n = PAGES[head]
            if first is None:
                subs = sections(body, "###")
                parts = [(sub[4:], blocks(b)) for sub, b in subs[1:]]
                pages[page] = render(title, intro, parts)
                out.append((head, "\n" + BENCH_SUMMARY.strip() + "\n"))
            else:
                pages[page] = render(title, intro, split(body, markers, first))
                out.append((head, "\n" + kept(body, n, page, WHAT[page]) + "\n"))
        elif head == "## Tour":
            subs = sections(body, "###")
            new = [subs[0][1]]
            plugins_page = None
            for sub, b in subs[1:]:
                if sub in TOUR_PAGES:
                    page, title, intro, first, markers, n = TOUR_PAGES[sub]
                    parts = split(b, markers, first)
                    if sub == "### Plugins (EVALUATION)":
                        plugins_page = (page, title, intro, parts)
                    else:
                        pages[page] = render(title, intro, parts)
                    new.append(f"{sub}\n\n{kept(b, n, page, WHAT[page])}\n")
                elif sub == CREATE_DATASET:
                    page, title, intro, parts = plugins_page
                    parts.append(("Pre-process plugins (DATASET > Create Dataset)", blocks(b)))
                    pages[page] = render(title, intro, parts)
                    new.append(
                        f"{sub}\n\n{kept(b, 2, page, 'every pre-process plugin and its parameters')}\n"
                    )
                else:
                    new.append(f"{sub}\n{b}")
            out.append((head, "\n".join(new)))
        elif head == "## Job folder":
            existing = (DOCS / "job-folder.md").read_text(encoding="utf-8")
            existing = existing.split("\n## 6. ", 1)[0].rstrip() + "\n"
            parts = split(
                body,
                [
                    (r"The training follows NNC's CONFIG", "Training follows CONFIG"),
                    (r"Evaluation follows nnabla", "Evaluation"),
                    (r"`neurocanvas forward` does the same", "Inference on files: forward"),
                    (r"```\nJOB_DIR/", "The folder, file by file"),
                ],
                "train, evaluate, forward",
            )
            lines = [
                existing,
                "## 6. The commands that fill it",
                "",
                "Moved from the README: the commands, their options, and the folder as "
                "they leave it.",
                "",
            ]
            for k, (name, b) in enumerate(parts, 1):
                lines += [f"### 6.{k} {name}", "", "\n\n".join(b), ""]
            pages["job-folder.md"] = "\n".join(lines).rstrip() + "\n"
            out.append(
                (
                    head,
                    "\n"
                    + kept(
                        body, 2, "job-folder.md", "options, events, evaluation, forward, every file"
                    )
                    + "\n",
                )
            )
        elif head == "## Documentation":
            b = body.rstrip() + "\n" + NEW_DOC_LINKS
            out.append((head, b))
        else:
            out.append((head, body))
    readme = "\n".join(f"{h}\n{b}" if h else b for h, b in out)
    readme = re.sub(r"\n{3,}", "\n\n", readme_links(readme))
    readme = readme.replace(
        "with optimizations off: Benchmarks > Deploy);",
        "with optimizations off: [docs/benchmarks.md](docs/benchmarks.md#6-deploy), Deploy);",
    )
    (ROOT / "README.md").write_text(readme.rstrip() + "\n", encoding="utf-8")
    for page, body in pages.items():
        body = re.sub(r"\n{3,}", "\n\n", page_links(body, page))
        (DOCS / page).write_text(body, encoding="utf-8")
        print(page, body.count("\n"))
    print("README.md", readme.count("\n"))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
