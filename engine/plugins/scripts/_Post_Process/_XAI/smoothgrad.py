"""SmoothGrad of one image (a NeuroCanvas built-in plugin, NNC's protocol)."""

from engine.plugins import script_kit


def main():
    parser = script_kit.image_parser(
        "SmoothGrad\n\nThe mean absolute gradient of a class score over noisy copies "
        "of the image (Smilkov et al., 2017).",
        "visualize",
        required_model=True,
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
    script_kit.add_output(parser, "smoothgrad.png")
    args = parser.parse_args()

    from engine.plugins import xai

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
