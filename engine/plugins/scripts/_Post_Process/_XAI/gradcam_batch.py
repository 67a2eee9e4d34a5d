"""Grad-CAM of every row of a table (NeuroCanvas built-in plugin, NNC protocol)."""

import argparse


def main():
    parser = argparse.ArgumentParser(
        description="Grad-CAM (batch)\n\nGrad-CAM of each image of the table, for its predicted "
        "class (or a given one); the table comes back with a picture per row.",
        formatter_class=argparse.RawTextHelpFormatter,
    )
    parser.add_argument(
        "-m",
        "--model",
        default="results.nnp",
        help="path to model nnp file (model) default=results.nnp",
    )
    parser.add_argument(
        "-i",
        "--input",
        default="output_result.csv",
        help="path to input csv file (csv) default=output_result.csv",
    )
    parser.add_argument(
        "-ov",
        "--output_variable",
        default="y'",
        help="output variable to visualize (variable) default=y'",
    )
    parser.add_argument(
        "-c",
        "--class_index",
        type=int,
        default=-1,
        help="class to visualize, -1 for each row's prediction (int) default=-1",
    )
    parser.add_argument(
        "-n", "--num_rows", type=int, default=0, help="rows to process, 0 for all (int) default=0"
    )
    parser.add_argument(
        "-o",
        "--output",
        default="grad_cam.csv",
        help="path to output csv file (csv) default=grad_cam.csv",
    )
    args = parser.parse_args()

    from engine.plugins import batch, script_kit, xai

    def run():
        model = script_kit.load_model(args.model)
        batch.explain_rows(
            model,
            args.input,
            args.output_variable,
            args.class_index,
            args.num_rows,
            "grad_cam",
            lambda m, x, c: xai.grad_cam(m, x, c, args.output_variable),
            args.output,
        )

    script_kit.main(run, "Grad-CAM (batch)")


if __name__ == "__main__":
    main()
