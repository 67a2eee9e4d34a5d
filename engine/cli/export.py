"""``neurocanvas export {python,onnx,nnp,c,tflite} SOURCE -o FILE``: a project or trained job.

``python`` writes every network as a function on ``engine.nn`` (``--target nnabla``: on
nnabla itself; from a job folder also the trained parameters and a short ``main``); ``onnx``
writes the runtime network as an ONNX model (needs the optional extra ``onnx``); ``nnp`` writes
nnabla's model file (networks, settings and parameters), which nnabla, NNC and nnabla's
converters read; ``c`` writes the runtime network as a C99 folder (``-o DIR``: model.h, model.c,
parameters.c, main.c, Makefile, export_summary.json) and prints its flash and RAM bytes;
``tflite`` writes the runtime network as a TensorFlow Lite file, float32 or (``--int8``) full
integer (needs the optional extra ``tflite``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from engine.cli import UserError

# Each format's line in ``export --help``, its description and the options that apply to it;
# the others are still accepted (hidden from its --help) so that run() names where they apply.
FORMATS = {
    "python": ("Python code", "Write every network as a function on engine.nn (--target nnabla: "
               "on nnabla); from a job folder also its trained parameters and a main.", {"target"}),
    "onnx": ("an ONNX model", "Write the runtime network as an ONNX model (needs the extra "
             "onnx).", {"network", "params", "quantized", "opset"}),
    "nnp": ("nnabla's .nnp", "Write nnabla's model file: networks, settings and parameters.",
            set()),
    "c": ("a C99 source folder", "Write the runtime network as a C99 folder (-o DIR: model.h, "
          "model.c, parameters.c, main.c, Makefile) and print its flash and RAM bytes.",
          {"network", "params", "float_only"}),
    "tflite": ("a TensorFlow Lite file", "Write the runtime network as a TensorFlow Lite file, "
               "float32 or (--int8) full integer (needs the extra tflite).",
               {"network", "params", "int8"}),
}  # fmt: skip


def add_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(
        "export", help="export a project or job as Python code, ONNX, NNP, C source or TFLite",
        description="Export a project file or a trained job folder; "
        "'export FORMAT --help' lists that format's options.",
    )  # fmt: skip
    formats = parser.add_subparsers(dest="format", metavar="FORMAT", required=True)
    for name, (title, description, applies) in FORMATS.items():
        _add_options(formats.add_parser(name, help=title, description=description), name,
                     applies)  # fmt: skip
    return parser


def _add_options(parser: argparse.ArgumentParser, name: str, applies: set[str]) -> None:
    def only(dest: str, text: str) -> str:
        return text if dest in applies else argparse.SUPPRESS

    parser.add_argument("source", metavar="SOURCE", help="project file or job folder")
    parser.add_argument("-o", "--output", required=True, metavar="DIR" if name == "c" else "FILE",
                        help=f"the {'folder' if name == 'c' else 'file'} to write")  # fmt: skip
    parser.add_argument(
        "--target",
        choices=("neurocanvas", "nnabla"),
        default=None,
        help=only("target", "the library it imports (default neurocanvas)"),
    )
    parser.add_argument("--network", metavar="NAME", default=None,
                        help=only("network", "the network to write (default: the first "
                        "executor's); a training network such as quantize insert's Main_q8 is "
                        "written as its runtime form"))  # fmt: skip
    parser.add_argument("--params", metavar="FILE.npz|JOB_DIR", default=None,
                        help=only("params", "parameters for a project SOURCE: a "
                        "parameters.npz or the trained job folder itself (for its quantized "
                        "network from quantize insert)"))  # fmt: skip
    parser.add_argument("--float", dest="float_only", action="store_true",
                        help=only("float_only", "float arithmetic also for a network with "
                        "FixedPointQuantize layers (default: integer where it equals the engine "
                        "exactly)"))  # fmt: skip
    parser.add_argument("--quantized", action="store_true",
                        help=only("quantized", "FixedPointQuantize layers as QuantizeLinear/"
                        "DequantizeLinear (int8 QDQ; 9 to 16 bits as int16) instead of refusing "
                        "them"))  # fmt: skip
    parser.add_argument(
        "--int8",
        action="store_true",
        help=only(
            "int8",
            "full-integer int8 (ranges from the network's "
            "FixedPointQuantize layers, else calibrated on the training set)",
        ),
    )
    parser.add_argument("--opset", type=int, default=None,
                        help=only("opset", "ONNX opset (default 17)"))  # fmt: skip
    parser.add_argument("--force", "-f", action="store_true",
                        help={"python": "overwrite FILE and its _parameters.npz",
                              "c": "overwrite the C files in an existing folder"}.get(
                            name, "overwrite FILE"))  # fmt: skip
    parser.add_argument("--checkpoint", choices=("best", "last"), default="best",
                        help="which trained parameters of a job")  # fmt: skip


def run(args: argparse.Namespace) -> int:
    from engine.export import (
        ExportError,
        export_c,
        export_nnp,
        export_onnx,
        export_python,
        export_tflite,
        open_source,
        with_network,
    )

    if args.opset is not None and args.format != "onnx":
        raise UserError("--opset applies to onnx only")
    if args.target is not None and args.format != "python":
        raise UserError("--target applies to python only")
    if (args.network or args.params) and args.format not in ("c", "onnx", "tflite"):
        raise UserError("--network and --params apply to c, onnx and tflite only")
    if args.float_only and args.format != "c":
        raise UserError("--float applies to c only")
    if args.quantized and args.format != "onnx":
        raise UserError("--quantized applies to onnx only")
    if args.int8 and args.format != "tflite":
        raise UserError("--int8 applies to tflite only")
    if args.format not in ("c", "tflite"):
        _check_output(Path(args.output), args.format, args.force)
    try:
        source = open_source(args.source, args.checkpoint)
        if args.network is not None or args.params is not None:
            source, note = with_network(source, args.network or source.runtime or "",
                                        args.params, args.checkpoint)  # fmt: skip
            if note:
                print(note)
        if args.format == "c":
            arithmetic = "float" if args.float_only else "auto"
            written = export_c(source, args.output, args.force, arithmetic)
            _print_sizes(Path(args.output) / "export_summary.json")
        elif args.format == "python":
            written = export_python(source, args.output, args.target or "neurocanvas")
        elif args.format == "tflite":
            written = [export_tflite(source, args.output, args.int8, args.force)]
        elif args.format == "nnp":
            written = [export_nnp(source, args.output)]
        else:
            written = [export_onnx(source, args.output, args.opset, args.quantized)]
    except ExportError as exc:
        raise UserError(str(exc)) from None
    except ImportError as exc:
        raise UserError(f"{exc}; install the extra: pip install 'neurocanvas[onnx]'") from None
    for path in written:
        print(f"wrote {path}")
    return 0


def _print_sizes(summary: Path) -> None:
    import json

    data = json.loads(summary.read_text(encoding="utf-8"))
    print(f"{'layer':<32} {'type':<22} {'flash bytes':>12} {'RAM bytes':>10}")
    for row in data["layers"]:
        ram = "(shared)" if row["shares_input_buffer"] else row["ram_bytes"]
        print(f"{row['name']:<32} {row['type']:<22} {row['flash_bytes']:>12} {ram:>10}")
    because = f" ({data['float_because']})" if data["float_because"] else ""
    print(f"arithmetic: {data['arithmetic']}{because}")
    rounded = data.get("rounded_layers") or []
    if rounded:
        print(f"not bit-equal to the engine (int64 sums past 2^24 units, which the engine's "
              f"float32 rounds, or C's float function of 16-bit codes; a code after them may "
              f"differ by one): {', '.join(rounded)}")  # fmt: skip
    print(
        f"flash (parameters): {data['flash_bytes']} bytes; RAM (activation arena): "
        f"{data['ram_bytes']} bytes (without reuse: {data['activations_without_reuse_bytes']})"
    )
    stats = data.get("nnc_statistics") or {}
    if stats:
        print("NNC statistics: " + ", ".join(f"{k} {v}" for k, v in stats.items()))


def _check_output(out: Path, kind: str, force: bool) -> None:
    """As ``convert``: a folder or a missing folder is an error, an existing file needs --force."""
    if out.is_dir():
        raise UserError(f"{out}: is a folder; -o names the file to write")
    if not out.parent.is_dir():
        raise UserError(f"{out}: the folder {out.parent} does not exist")
    targets = [out] + ([out.with_name(out.stem + "_parameters.npz")] if kind == "python" else [])
    existing = [str(p) for p in targets if p.exists()]
    if existing and not force:
        verb = "exists" if len(existing) == 1 else "exist"
        raise UserError(f"{' and '.join(existing)} {verb}; pass --force to overwrite")
