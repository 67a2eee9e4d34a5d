"""Grad-CAM of one image (a NeuroCanvas built-in plugin, NNC's protocol)."""

import argparse


def main():
    parser = argparse.ArgumentParser(
        description="Grad-CAM\n\nThe image areas that raise a class score, weighted by the mean "
        "gradient of the last convolution's maps (Selvaraju et al., ICCV 2017).",
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
    parser.add_argument(
        "-o",
        "--output",
        default="grad_cam.png",
        help="path to output image file (image) default=grad_cam.png",
    )
    args = parser.parse_args()

    from engine.plugins import script_kit, xai

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
