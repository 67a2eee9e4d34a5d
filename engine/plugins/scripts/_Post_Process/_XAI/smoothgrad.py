"""SmoothGrad of one image (a NeuroCanvas built-in plugin, NNC's protocol)."""

import argparse


def main():
    parser = argparse.ArgumentParser(
        description="SmoothGrad\n\nThe mean absolute gradient of a class score over noisy copies "
        "of the image (Smilkov et al., 2017).",
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
        "-n", "--num_samples", type=int, default=25, help="number of noisy copies (int) default=25"
    )
    parser.add_argument(
        "-nl",
        "--noise_level",
        type=float,
        default=0.15,
        help="noise deviation over the input range (float) default=0.15",
    )
    parser.add_argument(
        "-s", "--seed", type=int, default=0, help="random seed of the noise (int) default=0"
    )
    parser.add_argument(
        "-o",
        "--output",
        default="smoothgrad.png",
        help="path to output image file (image) default=smoothgrad.png",
    )
    args = parser.parse_args()

    from engine.plugins import script_kit, xai

    def run():
        model = script_kit.load_model(args.model)
        image = model.load(args.image)
        grads = xai.smooth_grad(
            model,
            image,
            args.class_index,
            args.output_variable,
            samples=args.num_samples,
            noise_level=args.noise_level,
            seed=args.seed,
        )
        heat = grads.max(axis=0) if grads.ndim == 3 else grads
        xai.save_overlay(args.output, image, heat, scale=4)

    script_kit.main(run, "SmoothGrad")


if __name__ == "__main__":
    main()
