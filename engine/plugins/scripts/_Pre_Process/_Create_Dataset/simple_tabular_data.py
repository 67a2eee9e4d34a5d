"""Simple Tabular Dataset (NeuroCanvas built-in, NNC protocol): a CSV of mixed columns to a
normalised NNC dataset CSV (engine/plugins/create_dataset.py has the definitions)."""

import argparse


def main():
    parser = argparse.ArgumentParser(
        description="Simple Tabular Dataset\n\nConvert a table (numbers and categories) to an "
        "NNC dataset:\nnumbers standardised, categories one-hot, the objective as y.",
        formatter_class=argparse.RawTextHelpFormatter,
    )
    parser.add_argument("-i", "--input", required=True, help="tabular dataset (csv)")
    parser.add_argument(
        "-E",
        "--encoding",
        default="utf-8-sig",
        help="input text file encoding (text) default=utf-8-sig",
    )
    parser.add_argument(
        "-c", "--comment-cols", help="columns kept as comments, separated by commas (text)"
    )
    parser.add_argument(
        "-n",
        "--include-variables",
        help="explanatory variables, separated by commas; empty: every other column (text)",
    )
    parser.add_argument(
        "-e", "--exclude-variables", help="columns left out of the explanatory variables (text)"
    )
    parser.add_argument(
        "-b",
        "--objective-variables",
        required=True,
        help="objective variables (y), separated by commas (text)",
    )
    parser.add_argument(
        "-z", "--sensitive-variables", help="sensitive variables (z), separated by commas (text)"
    )
    parser.add_argument(
        "-u",
        "--numeric-variables",
        help="columns that must hold numbers, separated by commas (text)",
    )
    parser.add_argument(
        "-t",
        "--standardize",
        action="store_true",
        help="standardize numbers to mean 0 standard deviation 1 (bool) default=True",
    )
    parser.add_argument(
        "-p", "--preprocess-param-input", help="preprocessing parameter file input (csv)"
    )
    parser.add_argument(
        "-r",
        "--preprocess-param-output",
        default="preprocessing_parameters.csv",
        help="preprocessing parameter file output (csv) default=preprocessing_parameters.csv",
    )
    from engine.plugins import pre_kit

    pre_kit.add_output_arguments(parser)
    args = parser.parse_args()

    from engine.plugins import create_dataset as cd

    def run():
        pre_kit.output_dir(args)
        source = cd.read_source(args.input, args.encoding)
        names = {
            o: cd.columns_named(source, getattr(args, o.replace("-", "_")), f"--{o}")
            for o in (
                "comment-cols",
                "include-variables",
                "exclude-variables",
                "objective-variables",
                "sensitive-variables",
                "numeric-variables",
            )
        }
        params = (
            cd.read_parameters(args.preprocess_param_input) if args.preprocess_param_input else None
        )
        header, rows, transforms = cd.tabular(
            source,
            objective=names["objective-variables"],
            include=names["include-variables"],
            exclude=names["exclude-variables"],
            comment=names["comment-cols"],
            sensitive=names["sensitive-variables"],
            numeric=names["numeric-variables"],
            standardize=args.standardize,
            parameters=params,
        )
        for t in transforms:
            what = (
                f"numeric, mean {t.mean:g}, std {t.std:g}"
                if t.kind == "numeric"
                else f"category of {len(t.categories)}"
            )
            print(f"{t.name}: {what}", flush=True)
        pre_kit.save_split(args, header, [[row] for row in rows])
        if args.preprocess_param_output:
            out = pre_kit.output_dir(args) / args.preprocess_param_output
            with open(out, "w", newline="", encoding="utf-8") as f:
                cd.csv.writer(f, lineterminator="\n").writerows(t.row() for t in transforms)

    pre_kit.main(run, "Simple Tabular Dataset")


if __name__ == "__main__":
    main()
