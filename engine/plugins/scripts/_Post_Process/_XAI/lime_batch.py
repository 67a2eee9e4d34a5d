"""LIME (batch): every row of a table (NeuroCanvas built-in plugin, NNC protocol)."""

from engine.plugins import script_kit


def main():
    parser = script_kit.batch_parser(
        "LIME (batch)\n\nLIME over a grid of superpixels of each image "
        "of the table, for its predicted class "
        "(or a given one); the table comes back with a picture per row.",
        "explain",
    )
    script_kit.add_superpixels(parser, 500, "masked images per row")
    script_kit.add_num_rows(parser, "-r")
    script_kit.add_seed(parser)
    script_kit.add_output(parser, "lime.csv")
    args = parser.parse_args()
    from engine.plugins import batch  # after --help

    def explain():
        return batch.lime_map(args.grid, args.num_samples, args.seed, args.output_variable)

    batch.run_batch(args, "lime", explain, "LIME (batch)")


if __name__ == "__main__":
    main()
