"""LIME of one image over superpixels (NeuroCanvas built-in, NNC protocol)."""

import argparse


def main():
    parser = argparse.ArgumentParser(
        description="LIME\n\nThe superpixels that most raise a class score, from a weighted "
        "linear model fitted on images with random superpixels masked (Ribeiro et al., 2016).",
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
        default=1000,
        help="masked images evaluated (int) default=1000",
    )
    parser.add_argument(
        "-k", "--num_segments", type=int, default=3, help="superpixels shown (int) default=3"
    )
    parser.add_argument("-s", "--seed", type=int, default=0, help="random seed (int) default=0")
    parser.add_argument(
        "-o",
        "--output",
        default="lime.png",
        help="path to output image file (image) default=lime.png",
    )
    args = parser.parse_args()

    import numpy as np

    from engine.plugins import lime, script_kit, shap, xai

    def run():
        model = script_kit.load_model(args.model)
        image = model.load(args.image)
        segments = shap.grid_segments(image.shape, args.grid)
        build = shap.masked_images(image, segments, 0.0)
        score = model.class_score(args.output_variable, args.class_index)
        weights, _ = lime.lime_weights(
            lambda z: score(build(z)), args.grid**2, args.num_samples, seed=args.seed
        )
        top = np.argsort(-weights)[: args.num_segments]
        keep = np.isin(segments, top)
        xai.save_overlay(args.output, image * keep, np.where(keep, weights[segments], 0), scale=4)
        script_kit.write_csv(
            "lime.csv",
            ["superpixel", "row", "col", "weight", "shown"],
            [
                [k, k // args.grid, k % args.grid, f"{v:.6g}", int(k in top)]
                for k, v in enumerate(weights)
            ],
        )

    script_kit.main(run, "LIME")


if __name__ == "__main__":
    main()
