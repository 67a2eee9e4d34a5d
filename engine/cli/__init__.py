"""The ``neurocanvas`` commands: one module per subcommand (``add_parser``, ``run(args) -> int``).

The ``neurocanvas`` program (the package of that name) opens the desktop app when it is given
no command; ``python -m engine.cli`` runs commands only.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import logging
import os
import re
import sys
import warnings
from pathlib import Path

# Subcommand modules in the order ``--help`` lists them; a module that is not there yet is skipped.
SUBCOMMANDS = (
    "train", "evaluate", "forward", "cost", "convert", "export", "import", "report", "quantize",
    "dataset", "search", "plugin", "samples", "desktop", "doctor",
)  # fmt: skip


class UserError(Exception):
    """Bad input from the user: printed as one line, exit status 2, no traceback."""


def one_line(message: object, limit: int = 200) -> str:
    """A message as one readable line: a value pasted into it from a hostile file (5000
    digits, a 3000-character name) is cut to its start and length."""

    def cut(match: re.Match[str]) -> str:
        text = match.group(0)
        return f"{text[:60]}...({len(text)} characters)"

    return re.sub(rf"\S{{{limit},}}", cut, " ".join(str(message).split()))


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole parser, or with ``only`` the one subcommand a command line names: a command
    then imports its own module alone before it starts (the others import NumPy, formats...)."""
    parser = argparse.ArgumentParser(
        prog="neurocanvas",
        description="NeuroCanvas: design, train, evaluate and export neural networks. "
        "Run without arguments to open the desktop app.",
    )
    parser.add_argument("--verbose", "-v", action="store_true", help="log debug messages")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS if only is None else (only,):
        if importlib.util.find_spec(f"engine.cli.{name}") is None:
            continue
        module = importlib.import_module(f"engine.cli.{name}")
        if only is not None and hasattr(module, "prepare"):
            module.prepare()  # e.g. train sets its compiled kernels up while it imports
        sub_parser = module.add_parser(sub)
        sub_parser.set_defaults(_run=module.run, _parser=sub_parser,
                                _extra_ok=getattr(module, "ACCEPTS_EXTRA", False))  # fmt: skip
    return parser


def _named_command(argv: list[str]) -> str | None:
    """The subcommand a command line names, when its first word is one (after -v)."""
    words = [word for word in argv if word not in ("-v", "--verbose")]
    return words[0] if words and words[0] in SUBCOMMANDS else None


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(only=_named_command(argv))
    args, unknown = parser.parse_known_args(argv)
    if unknown and getattr(args, "_extra_ok", False):  # a plugin's own options (plugin run)
        args.extra = unknown
    elif unknown:
        _refuse(parser, args, argv, unknown)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(levelname)s: %(message)s",
        stream=sys.stderr,
    )
    if not hasattr(args, "_run"):
        parser.print_help()
        return 2
    # NumPy's floating-point warnings would come before the one line the engine writes about a
    # NaN or an infinity (naming the epoch, iteration and layer); they add nothing to it.
    warnings.filterwarnings(
        "ignore", r"(overflow|invalid value|divide by zero) encountered", RuntimeWarning
    )
    try:
        code = int(args._run(args) or 0)
        sys.stdout.flush()  # a reader that went away (``| head -1``) shows here, not at exit
        return code
    except BrokenPipeError:
        return _stdout_closed()
    except UserError as exc:
        print(f"neurocanvas {args.command}: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"neurocanvas {args.command}: interrupted", file=sys.stderr)
        return 130
    except OSError as exc:  # a full disk wherever it struck (the writers removed their parts)
        from engine.core.atomic import DISK_FULL, describe_write_error

        if exc.errno not in DISK_FULL:
            raise
        print(f"neurocanvas {args.command}: error: {one_line(describe_write_error(exc))}",
              file=sys.stderr)  # fmt: skip
        return 1


def project_error(path: object, exc: BaseException) -> UserError:
    """``exc`` as the line a command prints: an error in a project's content (a layer's property,
    a setting) names the project file first (a job folder's: its network.ncproj), as a
    ProjectFileError does; the others (a dataset's CSV, ``-o``) name their own place already."""
    from engine.core.messages import in_file
    from engine.runtime.compiler import CompileError
    from engine.runtime.job import Job
    from engine.runtime.session import SetupError

    if not isinstance(exc, (SetupError, CompileError)):  # not a ProgramError about the data
        return UserError(str(exc))
    folder = Path(str(path))
    return UserError(in_file(Job(folder).project_file if folder.is_dir() else path, exc))


def _refuse(parser: argparse.ArgumentParser, args: argparse.Namespace, argv: list[str],
            unknown: list[str]) -> None:  # fmt: skip
    """argparse's message and exit status for unknown words, from the subcommand's parser
    (its usage, ``neurocanvas train: error:``) when they follow the subcommand's name."""
    command = getattr(args, "_parser", None)
    first = argv.index(args.command) if command is not None else len(argv)
    if command is None or any(word in unknown for word in argv[:first]):  # ``--bad train``
        command = parser
    else:
        command = _chosen(command, args)
    command.error(f"unrecognized arguments: {' '.join(unknown)}")


def _chosen(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The innermost parser the command line chose (``quantize insert``'s, not ``quantize``'s)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            chosen = action.choices.get(getattr(args, action.dest, None) or "")
            if chosen is not None:
                return _chosen(chosen, args)
    return parser


def _stdout_closed() -> int:
    """The reader of stdout closed it: stop quietly, as a command killed by SIGPIPE does.
    Whatever is still buffered goes to /dev/null so that the exit flush does not complain."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 141  # 128 + SIGPIPE (13), what a shell shows for such a command; no SIGPIPE on Windows


if __name__ == "__main__":
    sys.exit(main())
