"""NNC's plugin protocol: find plugin scripts, read their parameters from ``--help``.

A plugin is a Python script under a plugins folder, ``_Post_Process/<group>/<name>.py`` (run on
a job, from EVALUATION) or ``_Pre_Process/<group>/<name>.py`` (creates a dataset, from DATASET >
Create Dataset; no job) (folders whose names start with ``_`` are menu groups; others hold the
scripts' helpers). Its
argparse help strings carry each parameter's kind in parentheses and its default after it::

    parser.add_argument('-m', '--model', help='path to model nnp file (model) default=results.nnp')
    parser.add_argument('-c', '--class_index', help='class index to visualize (int), default=0')

Kinds NNC uses: ``model``, ``csv``, ``image``, ``file`` (paths), ``variable`` / ``variables``
(column names of the output table), ``int``, ``float``, ``bool`` (a ``store_true`` flag),
``text``, ``dir`` (a folder: a pre-process plugin's ``--output-dir``). The first line of the
parser's description is the plugin's title.

Built-in plugins ship in ``engine/plugins/scripts/`` written the same way; users add theirs in
folders named by ``NEUROCANVAS_PLUGINS`` (``os.pathsep``-separated) or the app's settings.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from engine.plugins.errors import PluginError

__all__ = [
    "BUILTIN_DIR", "FILE_KINDS", "Param", "Plugin", "discover", "find_plugin", "parse_help",
    "plugin_folders", "python_for",
]  # fmt: skip

BUILTIN_DIR = Path(__file__).resolve().parent / "scripts"
REPO_ROOT = Path(__file__).resolve().parents[2]
FILE_KINDS = frozenset({"model", "csv", "image", "file"})
HELP_TIMEOUT = 60.0
MAX_TITLE = 40
_KIND = re.compile(r"\(\s*([a-z_]+)\s*\)")
_DEFAULT = re.compile(r"default\s*=\s*(.*)$", re.IGNORECASE)
_OPTION = re.compile(r"^ {2}(-\S.*?)(?: {2,}(.*))?$")


@dataclass(frozen=True)
class Param:
    """One argparse option of a plugin."""

    name: str  # the long flag without dashes (``class_index``)
    flags: tuple[str, ...]  # as the script takes them (``-c``, ``--class_index``)
    kind: str  # what the parentheses say (``int``); ``text`` when they say nothing
    default: str | None
    help: str
    flag_only: bool = False  # a store_true switch: given or not

    @property
    def option(self) -> str:
        return max(self.flags, key=len)

    @property
    def is_output(self) -> bool:
        """NNC's plugins name what they write ``output`` (``-o``): it goes to the result folder."""
        return self.name.startswith("output") and self.kind in FILE_KINDS


@dataclass
class Plugin:
    """A script and what its ``--help`` says (``error``: why it cannot be used)."""

    path: Path
    group: str  # ``XAI/Image``
    builtin: bool
    title: str = ""
    description: str = ""
    params: list[Param] = field(default_factory=list)
    error: str = ""
    stage: str = "post"  # "pre": a _Pre_Process plugin (creates a dataset; needs no job)

    @property
    def stem(self) -> str:
        return self.path.stem

    @property
    def name(self) -> str:
        return f"{self.group}/{self.title or self.stem}" if self.group else self.title or self.stem

    def param(self, key: str) -> Param | None:
        key = key.lstrip("-")
        for p in self.params:
            if key == p.name or f"-{key}" in p.flags or f"--{key}" in p.flags:
                return p
        same = key.replace("-", "_")  # NNC mixes --output-dir and --output_file1
        return next((p for p in self.params if p.name.replace("-", "_") == same), None)


def parse_help(text: str) -> tuple[str, str, list[Param]]:
    """``(title, description, params)`` from an argparse ``--help`` text."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip() and
                  not line.startswith(("usage:", " "))), len(lines))  # fmt: skip
    section = next((i for i, line in enumerate(lines) if re.match(r"^(options|optional "
                    r"arguments|required arguments)\s*:", line)), len(lines))  # fmt: skip
    description = "\n".join(lines[start:section]).strip() if start < section else ""
    title = description.splitlines()[0].strip() if description else ""
    title = title if len(title) <= MAX_TITLE else ""  # a reflowed description: the stem
    options: list[tuple[str, list[str]]] = []
    for line in lines[section:]:
        match = _OPTION.match(line)
        if match:
            options.append((match.group(1), [match.group(2) or ""]))
        elif options and line.startswith("    "):
            options[-1][1].append(line.strip())
        elif line and not line.startswith(" "):
            options.append(("", []))  # a new section ends the option's help
    params = []
    for head, help_lines in options:
        if not head:
            continue
        words = [w.strip() for w in head.split(", ")]
        flags = tuple(w.split(" ")[0] for w in words)
        if "--help" in flags or "-h" in flags:
            continue
        help_text = " ".join(h for h in help_lines if h).strip()
        if help_text == "==SUPPRESS==":
            continue
        longest = max(flags, key=len).lstrip("-")
        kinds = _KIND.findall(help_text)
        flag_only = all(" " not in w for w in words)
        kind = kinds[-1] if kinds else ("bool" if flag_only else "text")
        default = _default(help_text)
        params.append(Param(longest, flags, kind, default, help_text, flag_only))
    return title, description, params


def _default(help_text: str) -> str | None:
    match = _DEFAULT.search(help_text)
    if not match:
        return None
    value = match.group(1).strip().split(" ")[0].strip(",")
    return value or None


def plugin_folders(extra: list[str] | None = None) -> list[Path]:
    """The built-in folder, then ``extra``, then those ``NEUROCANVAS_PLUGINS`` names."""
    folders = [BUILTIN_DIR]
    named = list(extra or []) + [p for p in os.environ.get("NEUROCANVAS_PLUGINS", "").split(
        os.pathsep) if p.strip()]  # fmt: skip
    for item in named:
        path = Path(item).expanduser()
        if path not in folders:
            folders.append(path)
    return folders


def python_for(plugin: Plugin) -> list[str]:
    """The interpreter a plugin runs with: ours for built-ins; ``NNABLA_PYTHON`` (where nnabla
    is installed, for NNC's own plugins) or ours for a user's."""
    if not plugin.builtin and os.environ.get("NNABLA_PYTHON"):
        return [os.environ["NNABLA_PYTHON"]]
    return [sys.executable]


def child_env() -> dict[str, str]:
    """The environment of a plugin's process: our engine importable from the script."""
    env = dict(os.environ)
    paths = [str(REPO_ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


ROOTS = {"_Post_Process": "post", "_Pre_Process": "pre"}


def _scripts(folder: Path) -> list[tuple[Path, str, str]]:
    """``(script, group, stage)`` of the ``_Post_Process`` and ``_Pre_Process`` trees of a
    plugins folder (or of the folder itself when it is one of them)."""
    found: list[tuple[Path, str, str]] = []
    for top, stage in ROOTS.items():
        root = folder if folder.name == top else folder / top
        if not root.is_dir():
            continue
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d.startswith("_") and d != "__pycache__")
            rel = Path(dirpath).relative_to(root)
            group = "/".join(part.lstrip("_") for part in rel.parts)
            for name in sorted(filenames):
                if name.endswith(".py") and not name.startswith("__"):
                    found.append((Path(dirpath) / name, group, stage))
    return found


def load_plugin(path: Path, group: str, builtin: bool, stage: str = "post") -> Plugin:
    """Run ``script --help`` in a child process and read its parameters from the text."""
    plugin = Plugin(path, group, builtin, stage=stage)
    try:
        done = subprocess.run(
            [*python_for(plugin), str(path), "--help"], capture_output=True, text=True,
            timeout=HELP_TIMEOUT, env=child_env(), cwd=str(path.parent), stdin=subprocess.DEVNULL,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        plugin.error = f"--help did not answer in {HELP_TIMEOUT:.0f} s"
        return plugin
    except OSError as exc:
        plugin.error = f"cannot start {python_for(plugin)[0]}: {exc.strerror}"
        return plugin
    if done.returncode != 0 or "usage:" not in done.stdout:
        last = (done.stderr.strip().splitlines() or ["no usage text"])[-1]
        plugin.error = f"--help failed (exit status {done.returncode}): {last.strip()}"
        return plugin
    plugin.title, plugin.description, plugin.params = parse_help(done.stdout)
    return plugin


def discover(extra: list[str] | None = None, stage: str | None = None) -> list[Plugin]:
    """Every plugin script of the plugin folders, with its parameters (or its error);
    ``stage``: only the ``"pre"`` or the ``"post"`` ones."""
    jobs = [(path, group, folder == BUILTIN_DIR, kind) for folder in plugin_folders(extra)
            for path, group, kind in _scripts(folder) if stage in (None, kind)]  # fmt: skip
    with ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 1)) as pool:
        return list(pool.map(lambda job: load_plugin(*job), jobs))


def _key(text: str) -> str:
    return re.sub(r"[\s_\-()]", "", text).lower()


def find_plugin(name: str, extra: list[str] | None = None) -> Plugin:
    """A plugin by its name (``XAI/Grad-CAM``), title (``Grad-CAM``), script stem
    (``gradcam``) or path to a script."""
    path = Path(name)
    if path.suffix == ".py" and path.is_file():
        parts = list(path.resolve().parent.parts)
        top = next((t for t in ROOTS if t in parts), None)
        groups = parts[parts.index(top) + 1 :] if top else []
        builtin = path.resolve().is_relative_to(BUILTIN_DIR)
        return load_plugin(path.resolve(), "/".join(g.lstrip("_") for g in groups), builtin,
                           ROOTS.get(top or "", "post"))  # fmt: skip
    key = _key(name)
    candidates = []
    for folder in plugin_folders(extra):
        for script, group, stage in _scripts(folder):
            if key in (_key(script.stem), _key(f"{group}/{script.stem}")):
                return load_plugin(script, group, folder == BUILTIN_DIR, stage)
            candidates.append((script, group, folder == BUILTIN_DIR, stage))
    for script, group, builtin, stage in candidates:  # by title: needs each one's --help
        plugin = load_plugin(script, group, builtin, stage)
        if key in (_key(plugin.title), _key(plugin.name)):
            return plugin
    names = ", ".join(sorted(s.stem for s, _, _, _ in candidates)) or "none"
    raise PluginError(f"plugin {name!r}: no such plugin (known: {names})")
