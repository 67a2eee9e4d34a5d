"""``neurocanvas plugin list`` and ``neurocanvas plugin run NAME JOB [--row N] [params]``;
a pre-process plugin (DATASET > Create Dataset) takes no job:
``neurocanvas plugin run NAME input=table.csv output-dir=DIR [params]`` writes the dataset.

NNC's plugin protocol (:mod:`engine.plugins`): scripts whose argparse help carries each
parameter's kind; run in a child process whose result lands in the job's
``plugin_results/<script>_<n>/``. Parameters are ``KEY=VALUE`` words or the script's own
``--flag value`` options; ``--row N`` fills the image (and index, class) of
output_result.csv's row N (0 = the first data row). ``--events`` prints JSON lines and
reads ``stop`` on stdin.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from typing import Any

from engine.cli import UserError

ACCEPTS_EXTRA = True  # KEY=VALUE words and the script's options may follow the other options


def add_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(
        "plugin", help="list or run NNC-style plugins (Grad-CAM, ROC, t-SNE...) on a job",
        description="NNC's plugins, pre-process (create a dataset) and post-process (on a job): "
        "built-in ones and those of NEUROCANVAS_PLUGINS folders (or --plugins DIR).",
    )  # fmt: skip
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="the plugins and their parameters")
    listing.add_argument("--plugins", action="append", metavar="DIR", help="a plugins folder")
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.add_argument("--verbose", "-v", action="store_true", help="show the parameters")
    run = actions.add_parser("run", help="run a plugin on a job folder (a pre-process plugin: "
                             "no job, output-dir=DIR)")  # fmt: skip
    run.add_argument("name", metavar="NAME", help="plugin name, title or script stem")
    run.add_argument("job", metavar="JOB", nargs="?", help="job folder (post-process plugins)")
    run.add_argument("--row", type=int, metavar="N", help="output_result.csv row to explain")
    run.add_argument("--rows", metavar="N,M,...", help="a selection of output_result.csv's rows "
                     "(0 = the first): the plugin's --input is those rows only")  # fmt: skip
    run.add_argument("--plugins", action="append", metavar="DIR", help="a plugins folder")
    run.add_argument("--timeout", type=float, metavar="S", help="stop the plugin after S s")
    run.add_argument("--events", action="store_true", help="JSON lines on stdout (the app)")
    run.add_argument("params", nargs="*", metavar="KEY=VALUE", help="plugin parameters")
    return parser


def _values(plugin: Any, words: list[str]) -> dict[str, str]:
    """``KEY=VALUE`` words, or the script's own options (after ``--``: ``-- -c 3``)."""
    values: dict[str, str] = {}
    k = 0
    while k < len(words):
        word = words[k]
        if not word.startswith("-"):
            key, sep, value = word.partition("=")
            if not sep:
                raise UserError(f"{word}: expected KEY=VALUE")
            values[key.strip()] = value
            k += 1
            continue
        param = plugin.param(word)
        if param is None:
            raise UserError(f"{word}: plugin {plugin.name!r} has no such parameter")
        if param.flag_only:
            values[param.name] = "true"
            k += 1
        elif k + 1 < len(words):
            values[param.name] = words[k + 1]
            k += 2
        else:
            raise UserError(f"{word}: expected a value")
    return values


def _row_list(text: str | None) -> list[int] | None:
    if not text:
        return None
    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise UserError(f"--rows {text}: expected row numbers separated by commas") from None


def run(args: argparse.Namespace) -> int:
    from engine.plugins import PluginError, discover, find_plugin, run_plugin

    try:
        if args.action == "list":
            return _list(discover(args.plugins), args)
        plugin = find_plugin(args.name, args.plugins)
        words = args.params + list(getattr(args, "extra", []))
        if plugin.stage == "pre":
            if args.job is not None:  # no job: the first word is a parameter
                if "=" not in args.job:
                    raise UserError(f"{args.job}: plugin {plugin.name!r} creates a dataset and "
                                    f"takes no job folder; give output-dir=DIR")  # fmt: skip
                words.insert(0, args.job)
            return _run(plugin, args, _values(plugin, words), _pre_process)
        if args.job is None:
            raise UserError(f"plugin {plugin.name!r} runs on a job: give the job folder (JOB)")
        return _run(plugin, args, _values(plugin, words), run_plugin)
    except PluginError as exc:
        if getattr(args, "events", False):
            print(json.dumps({"event": "error", "message": str(exc)}), flush=True)
        raise UserError(str(exc)) from None


def _pre_process(plugin: Any, job: Any, values: dict[str, str], **options: Any) -> Any:
    from engine.plugins.pre_process import run_pre_process

    options.pop("row", None)
    options.pop("rows", None)
    return run_pre_process(plugin, values, **options)


def _list(plugins: list[Any], args: argparse.Namespace) -> int:
    if args.json:
        print(json.dumps([{"name": p.name, "title": p.title, "script": str(p.path),
                           "builtin": p.builtin, "error": p.error, "stage": p.stage,
                           "params": [{"name": q.name, "kind": q.kind, "default": q.default,
                                       "flags": list(q.flags)} for q in p.params]}
                          for p in plugins], indent=1))  # fmt: skip
        return 0
    stages = (("pre", "Pre-process (DATASET > Create Dataset; no job):"),
              ("post", "Post-process (EVALUATION; on a job):"))  # fmt: skip
    for stage, heading in stages:
        chosen = [p for p in plugins if p.stage == stage]
        if chosen:
            print(heading)
            _list_lines(chosen, args)
    return 0


def _list_lines(plugins: list[Any], args: argparse.Namespace) -> None:
    for p in plugins:
        where = "" if p.builtin else f"  [{p.path}]"
        state = f"  unavailable: {p.error}" if p.error else ""
        print(f"{p.name}{where}{state}")
        if args.verbose:
            for q in p.params:
                default = f" = {q.default}" if q.default is not None else ""
                print(f"    --{q.name} ({q.kind}){default}")


def _run(plugin: Any, args: argparse.Namespace, values: dict[str, str], run_plugin: Any) -> int:
    stop = threading.Event()
    if args.events:

        def watch() -> None:
            for line in sys.stdin:
                if line.strip() == "stop":
                    stop.set()
                    return

        threading.Thread(target=watch, daemon=True).start()

    def on_event(record: dict[str, Any]) -> None:
        if args.events:
            print(json.dumps(record), flush=True)
        elif record["event"] == "log" and args.verbose:
            print(record["message"], file=sys.stderr, flush=True)

    try:
        rows = _row_list(args.rows)
        result = run_plugin(plugin, args.job, values, row=args.row, rows=rows, on_event=on_event,
                            stop=stop, timeout=args.timeout)  # fmt: skip
    except Exception as exc:
        if stop.is_set() and args.events:
            print(json.dumps({"event": "done", "status": "stopped"}), flush=True)
            return 0
        raise exc
    datasets = [str(d) for d in getattr(result, "datasets", [])]
    if args.events:
        print(json.dumps({"event": "done", "status": "finished", "result": str(result.folder),
                          "files": result.files, "datasets": datasets}), flush=True)  # fmt: skip
    elif datasets:
        print(f"{plugin.name}: wrote {', '.join(datasets)}")
    else:
        print(f"{plugin.name}: wrote {', '.join(result.files)} in {result.folder}")
    return 0
