"""LIME of one image over superpixels (NeuroCanvas built-in, NNC protocol)."""

from engine.plugins import script_kit


def main():
    parser = script_kit.image_parser(
        "LIME\n\nThe superpixels that most raise a class score, from a weighted "
        "linear model fitted on images with random superpixels masked (Ribeiro et al., 2016).",
        "explain",
    )
    script_kit.add_superpixels(parser, 1000, "masked images evaluated")
    parser.add_argument(
        "-k", "--num_segments", type=int, default=3, help="superpixels shown (int) default=3"
    )
    script_kit.add_seed(parser)
    script_kit.add_output(parser, "lime.png")
    args = parser.parse_args()

    import numpy as np

    from engine.plugins import lime, shap, xai

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
