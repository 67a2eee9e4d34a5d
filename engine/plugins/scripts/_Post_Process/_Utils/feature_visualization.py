"""Feature Visualization: a layer's output for one input, as pictures (NeuroCanvas built-in,
NNC protocol)."""

from engine.plugins import script_kit


def main():
    parser = script_kit.parser(
        "Feature Visualization\n\nThe output of a layer of the trained network for one input "
        "(the selected row's image): a picture per channel, each scaled from its minimum (black) "
        "to its maximum (white), and all of them tiled."
    )
    script_kit.add_model(parser)
    parser.add_argument("-image", "--image", required=True, help="path to input data (image)")
    parser.add_argument(
        "-l",
        "--layer_name",
        default="Convolution",
        help="layer name to visualize (text) default=Convolution",
    )
    parser.add_argument(
        "-c", "--num_column", type=int, default=8, help="maps per row of the tile (int) default=8"
    )
    script_kit.add_output(parser, "feature_visualization.csv")
    args = parser.parse_args()

    from pathlib import Path

    import numpy as np

    def run():
        from engine.data.writers import save_image
        from engine.plugins import visual

        model = script_kit.load_model(args.model)
        key = model.variable(args.layer_name, "--layer_name")
        (value,) = model.forward(model.load(args.image)[None], [key])
        pictures, ranges = visual.feature_maps(value[0])
        folder = Path("feature_maps")
        folder.mkdir(exist_ok=True)
        out = []
        for k, (p, (low, high)) in enumerate(zip(pictures, ranges, strict=True)):
            path = folder / f"{k:04d}.png"
            save_image(path, p[None])
            out.append([k, path.as_posix(), f"{low:.8g}", f"{high:.8g}", f"{float(p.mean()):.6g}"])
        script_kit.write_csv(args.output, ["channel", "map:image", "min", "max", "mean pixel"], out)
        gray = [np.repeat(p[:, :, None], 3, axis=2) for p in pictures]
        scale = max(1, 64 // max(pictures[0].shape))  # small maps drawn larger
        big = [g.repeat(scale, axis=0).repeat(scale, axis=1) for g in gray]
        save_image(Path("feature_maps.png"), visual.tile(big, args.num_column).transpose(2, 0, 1))
        print(f"{args.layer_name}: output of shape {tuple(value.shape[1:])}", flush=True)

    script_kit.main(run, "Feature visualization")


if __name__ == "__main__":
    main()
