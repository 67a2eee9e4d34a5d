"""SmoothGrad of every row of a table (NeuroCanvas built-in plugin, NNC protocol)."""

from engine.plugins import script_kit


def main():
    parser = script_kit.batch_parser(
        "SmoothGrad (batch)\n\nSmoothGrad (25 noisy copies, seed 0) of each "
        "image of the table, for its predicted "
        "class (or a given one); the table comes back with a picture per row."
    )
    script_kit.add_num_rows(parser)
    script_kit.add_output(parser, "smoothgrad.csv")
    args = parser.parse_args()
    from engine.plugins import batch  # after --help

    def explain():
        from engine.plugins import xai

        return lambda m, x, c: xai.smooth_grad(m, x, c, args.output_variable).max(axis=0)

    batch.run_batch(args, "smoothgrad", explain, "SmoothGrad (batch)")


if __name__ == "__main__":
    main()
