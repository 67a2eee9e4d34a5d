"""Integrated Gradients of one image (a NeuroCanvas built-in plugin, NNC's protocol)."""

import argparse


def main():
    parser = argparse.ArgumentParser(
        description="Integrated Gradients\n\nThe input times the mean gradient of a class score "
        "along the straight path from a black image (Sundararajan et al., 2017).",
        formatter_class=argparse.RawTextHelpFormatter,
    )
    parser.add_argument(
        "-m",
        "--model",
        help="path to model nnp file (model) default=results.nnp",
        required=True,
        default="results.nnp",
    )
    parser.add_argument("-image", "--image", help="path to input image file (image)", required=True)
    parser.add_argument(
        "-ov",
        "--output_variable",
        default="y'",
        help="output variable to visualize (variable) default=y'",
    )
    parser.add_argument(
        "-c", "--class_index", type=int, default=0, help="class index to visualize (int) default=0"
    )
    parser.add_argument(
        "-n", "--steps", type=int, default=50, help="points along the path (int) default=50"
    )
    parser.add_argument(
        "-o",
        "--output",
        default="integrated_gradients.png",
        help="path to output image file (image) default=integrated_gradients.png",
    )
    args = parser.parse_args()

    import numpy as np

    from engine.plugins import script_kit, xai

    def run():
        model = script_kit.load_model(args.model)
        image = model.load(args.image)
        grads = xai.integrated_gradients(
            model, image, args.class_index, args.output_variable, steps=args.steps
        )
        heat = np.abs(grads).max(axis=0) if grads.ndim == 3 else np.abs(grads)
        xai.save_overlay(args.output, image, heat, scale=4)

    script_kit.main(run, "Integrated Gradients")


if __name__ == "__main__":
    main()
