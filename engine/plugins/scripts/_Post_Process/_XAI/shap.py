"""Kernel SHAP of one image over superpixels (NeuroCanvas built-in, NNC protocol)."""

from engine.plugins import script_kit


def main():
    parser = script_kit.image_parser(
        "SHAP\n\nKernel SHAP of a class score over a grid of superpixels, each masked "
        "to the background value when absent (Lundberg and Lee, 2017).",
        "explain",
    )
    script_kit.add_superpixels(parser, 2048, "coalitions evaluated, all when 2^features fit")
    parser.add_argument(
        "-b",
        "--background",
        type=float,
        default=0.0,
        help="value of a masked pixel (float) default=0.0",
    )
    script_kit.add_seed(parser)
    script_kit.add_output(parser, "shap.png")
    args = parser.parse_args()

    import numpy as np

    from engine.plugins import shap, xai

    def run():
        model = script_kit.load_model(args.model)
        image = model.load(args.image)
        segments = shap.grid_segments(image.shape, args.grid)
        build = shap.masked_images(image, segments, args.background)
        score = model.class_score(args.output_variable, args.class_index)
        m = args.grid * args.grid
        phi, expected = shap.kernel_shap(
            lambda rows: score(build(rows)),
            np.ones(m),
            np.zeros((1, m)),
            args.num_samples,
            args.seed,
        )
        heat = phi[segments]
        xai.save_overlay(args.output, image, np.maximum(heat, 0), scale=4)
        script_kit.write_csv(
            "shap.csv",
            ["superpixel", "row", "col", "SHAP value"],
            [[k, k // args.grid, k % args.grid, f"{v:.6g}"] for k, v in enumerate(phi)],
        )
        print(f"expected value {expected:.6g}, f(x) {expected + phi.sum():.6g}", flush=True)

    script_kit.main(run, "SHAP")


if __name__ == "__main__":
    main()
