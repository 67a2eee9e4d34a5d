"""Kernel SHAP of one image over superpixels (NeuroCanvas built-in, NNC protocol)."""

import argparse


def main():
    parser = argparse.ArgumentParser(
        description="SHAP\n\nKernel SHAP of a class score over a grid of superpixels, each masked "
        "to the background value when absent (Lundberg and Lee, 2017).",
        formatter_class=argparse.RawTextHelpFormatter,
    )
    parser.add_argument(
        "-m",
        "--model",
        default="results.nnp",
        help="path to model nnp file (model) default=results.nnp",
    )
    parser.add_argument("-image", "--image", help="path to input image file (image)", required=True)
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
        "-g", "--grid", type=int, default=4, help="superpixels per side (int) default=4"
    )
    parser.add_argument(
        "-n",
        "--num_samples",
        type=int,
        default=2048,
        help="coalitions evaluated, all when 2^features fit (int) default=2048",
    )
    parser.add_argument(
        "-b",
        "--background",
        type=float,
        default=0.0,
        help="value of a masked pixel (float) default=0.0",
    )
    parser.add_argument("-s", "--seed", type=int, default=0, help="random seed (int) default=0")
    parser.add_argument(
        "-o",
        "--output",
        default="shap.png",
        help="path to output image file (image) default=shap.png",
    )
    args = parser.parse_args()

    import numpy as np

    from engine.plugins import script_kit, shap, xai

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
