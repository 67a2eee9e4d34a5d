"""Cross tabulation of two columns of the output table (NeuroCanvas built-in, NNC protocol)."""

from engine.plugins import script_kit


def main():
    parser = script_kit.parser(
        "Cross Tabulation\n\nCount the rows for each pair of values of two variables."
    )
    script_kit.add_input(parser)
    parser.add_argument(
        "-v1", "--variable1", default="y", help="variable name for row (variable) default=y"
    )
    parser.add_argument(
        "-v2",
        "--variable2",
        default="y'",
        help="variable name for col; a class output's argmax (variable) default=y'",
    )
    parser.add_argument(
        "-r", "--output_in_ratio", action="store_true", help="output in ratio (bool)"
    )
    script_kit.add_output(parser, "cross_tabulation.csv")
    args = parser.parse_args()

    from engine.plugins import stats

    def run():
        header, rows = script_kit.read_table(args.input)
        row_values, col_values, table = stats.cross_tabulation(
            script_kit.variable_values(header, rows, args.variable1, "--variable"),
            script_kit.variable_values(header, rows, args.variable2, "--variable"),
            args.output_in_ratio,
        )
        out = [
            [f"{args.variable1} = {v}", *[f"{x:g}" for x in line]]
            for v, line in zip(row_values, table, strict=True)
        ]
        script_kit.write_csv(
            args.output, [""] + [f"{args.variable2} = {v}" for v in col_values], out
        )

    script_kit.main(run, "Cross tabulation")


if __name__ == "__main__":
    main()
