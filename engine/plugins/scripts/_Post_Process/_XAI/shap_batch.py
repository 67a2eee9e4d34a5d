"""SHAP (batch): every row of a table (NeuroCanvas built-in plugin, NNC protocol)."""

import argparse


def main():
    parser = argparse.ArgumentParser(
        description="SHAP (batch)\n\nKernel SHAP over a grid of superpixels of each image "
        "of the table, for its predicted class "
        "(or a given one); the table comes back with a picture per row.",
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
        help="output variable to explain (variable) default=y'",
    )
    parser.add_argument(
        "-c",
        "--class_index",
        type=int,
        default=-1,
        help="class to explain, -1 for each row's prediction (int) default=-1",
    )
    parser.add_argument(
        "-g", "--grid", type=int, default=4, help="superpixels per side (int) default=4"
    )
    parser.add_argument(
        "-n", "--num_samples", type=int, default=512, help="masked images per row (int) default=512"
    )
    parser.add_argument(
        "-r", "--num_rows", type=int, default=0, help="rows to process, 0 for all (int) default=0"
    )
    parser.add_argument("-s", "--seed", type=int, default=0, help="random seed (int) default=0")
    parser.add_argument(
        "-o", "--output", default="shap.csv", help="path to output csv file (csv) default=shap.csv"
    )
    args = parser.parse_args()

    from engine.plugins import batch, script_kit

    def run():
        model = script_kit.load_model(args.model)
        explain = batch.shap_map(args.grid, args.num_samples, args.seed, args.output_variable)
        batch.explain_rows(
            model,
            args.input,
            args.output_variable,
            args.class_index,
            args.num_rows,
            "shap",
            explain,
            args.output,
        )

    script_kit.main(run, "SHAP (batch)")


if __name__ == "__main__":
    main()
