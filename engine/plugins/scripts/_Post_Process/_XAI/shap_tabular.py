"""Kernel SHAP of one row of tabular data (NeuroCanvas built-in, NNC protocol)."""

from engine.plugins import script_kit


def main():
    parser = script_kit.parser(
        "SHAP (tabular)\n\nKernel SHAP of a class score over the input's features; "
        "absent features take the values of background rows of the input table."
    )
    script_kit.add_model(parser)
    script_kit.add_input(parser)
    parser.add_argument(
        "-ix", "--index", type=int, default=0, help="row of the input to explain (int) default=0"
    )
    parser.add_argument(
        "-ov",
        "--output_variable",
        default="y'",
        help="output variable to explain (variable) default=y'",
    )
    parser.add_argument(
        "-c", "--class_index", type=int, default=0, help="class index to explain (int) default=0"
    )
    parser.add_argument(
        "-b",
        "--num_background",
        type=int,
        default=50,
        help="background rows, the first of the table (int) default=50",
    )
    parser.add_argument(
        "-n",
        "--num_samples",
        type=int,
        default=2048,
        help="coalitions evaluated, all when 2^features fit (int) default=2048",
    )
    script_kit.add_output(parser, "shap_tabular.csv")
    args = parser.parse_args()

    import numpy as np

    from engine.plugins import shap
    from engine.plugins.model import PluginError

    def run():
        model = script_kit.load_model(args.model)
        header, rows = script_kit.read_table(args.input)
        if not 0 <= args.index < len(rows):
            raise PluginError(f"--index {args.index}: the input has rows 0 to {len(rows) - 1}")
        x = model.row_input(header, rows[args.index]).ravel()
        background = np.stack(
            [model.row_input(header, r).ravel() for r in rows[: max(1, args.num_background)]]
        )
        score = model.class_score(args.output_variable, args.class_index)
        phi, expected = shap.kernel_shap(
            lambda v: score(v.astype(np.float32)), x, background, args.num_samples
        )
        names = [h for h in header if h.split(":")[0].startswith(f"{model.input}__")]
        names = names or [f"{model.input}__{k}" for k in range(x.size)]
        script_kit.write_csv(
            args.output,
            ["feature", "value", "SHAP value"],
            [[n, f"{v:.6g}", f"{p:.6g}"] for n, v, p in zip(names, x, phi, strict=False)]
            + [
                ["expected value", "", f"{expected:.6g}"],
                ["prediction", "", f"{expected + phi.sum():.6g}"],
            ],
        )

    script_kit.main(run, "SHAP (tabular)")


if __name__ == "__main__":
    main()
