"""Grad-CAM of every row of a table (NeuroCanvas built-in plugin, NNC protocol)."""

from engine.plugins import script_kit


def main():
    parser = script_kit.batch_parser(
        "Grad-CAM (batch)\n\nGrad-CAM of each image of the table, for its predicted "
        "class (or a given one); the table comes back with a picture per row."
    )
    script_kit.add_num_rows(parser)
    script_kit.add_output(parser, "grad_cam.csv")
    args = parser.parse_args()
    from engine.plugins import batch  # after --help

    def explain():
        from engine.plugins import xai

        return lambda m, x, c: xai.grad_cam(m, x, c, args.output_variable)

    batch.run_batch(args, "grad_cam", explain, "Grad-CAM (batch)")


if __name__ == "__main__":
    main()
