"""Integrated Gradients of one image (a NeuroCanvas built-in plugin, NNC's protocol)."""

from engine.plugins import script_kit


def main():
    parser = script_kit.image_parser(
        "Integrated Gradients\n\nThe input times the mean gradient of a class score "
        "along the straight path from a black image (Sundararajan et al., 2017).",
        "visualize",
        required_model=True,
    )
    parser.add_argument(
        "-n", "--steps", type=int, default=50, help="points along the path (int) default=50"
    )
    script_kit.add_output(parser, "integrated_gradients.png")
    args = parser.parse_args()

    import numpy as np

    from engine.plugins import xai

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
