"""Grad-CAM of one image (a NeuroCanvas built-in plugin, NNC's protocol)."""

from engine.plugins import script_kit


def main():
    parser = script_kit.image_parser(
        "Grad-CAM\n\nThe image areas that raise a class score, weighted by the mean "
        "gradient of the last convolution's maps (Selvaraju et al., ICCV 2017).",
        "visualize",
        required_model=True,
    )
    parser.add_argument(
        "-l",
        "--layer",
        default="",
        help="convolution layer to read, empty for the last Convolution (text)",
    )
    parser.add_argument(
        "-mo",
        "--mode",
        default="nnc",
        help="nnc (ReLU per channel, scaled) or paper (ReLU of the sum) (text) default=nnc",
    )
    script_kit.add_output(parser, "grad_cam.png")
    args = parser.parse_args()

    from engine.plugins import xai

    def run():
        model = script_kit.load_model(args.model)
        image = model.load(args.image)
        cam = xai.grad_cam(
            model, image, args.class_index, args.output_variable, args.layer or None, args.mode
        )
        xai.save_overlay(args.output, image, cam, scale=4)

    script_kit.main(run, "Grad-CAM")


if __name__ == "__main__":
    main()
