"""Statistics of each trained parameter (NeuroCanvas built-in plugin, NNC protocol)."""

from engine.plugins import script_kit


def main():
    parser = script_kit.parser(
        "Parameter Stats\n\nShape, size, mean, deviation, extremes and the share of "
        "near-zero values of each trained parameter of the job."
    )
    script_kit.add_model(parser)
    parser.add_argument(
        "-z",
        "--zero",
        type=float,
        default=1e-6,
        help="magnitude counted as zero (float) default=1e-6",
    )
    script_kit.add_output(parser, "parameter_stats.csv")
    args = parser.parse_args()

    import numpy as np

    def run():
        model = script_kit.load_model(args.model)
        rows = []
        for name, var in model.params.items():
            v = np.asarray(var.d, np.float64)
            rows.append(
                [
                    name,
                    "x".join(str(n) for n in v.shape),
                    v.size,
                    f"{v.mean():.6g}",
                    f"{v.std():.6g}",
                    f"{v.min():.6g}",
                    f"{v.max():.6g}",
                    f"{np.abs(v).mean():.6g}",
                    f"{np.mean(np.abs(v) < args.zero):.6g}",
                ]
            )
        script_kit.write_csv(
            args.output,
            ["parameter", "shape", "size", "mean", "std", "min", "max", "mean |x|", "zero ratio"],
            rows,
        )

    script_kit.main(run, "Parameter stats")


if __name__ == "__main__":
    main()
