"""SGD influence of the rows of a training table (a NeuroCanvas built-in plugin, NNC's
protocol): the SGD influence script's computation on a table's feature columns."""

from engine.plugins import script_kit


def main():
    parser = script_kit.influence_parser(
        "SGD Influence (tabular)\n\nThe training rows of a table that most helped or hurt the "
        "loss of the evaluated rows (one row, or all): SGD replayed backwards over the trained "
        "parameters (Hara et al., 2019). Negative influence: leaving the row out lowers that "
        "loss (listed first).",
        "sgd_influence_tabular.csv",
    )
    script_kit.add_sgd_arguments(parser)
    args = parser.parse_args()
    script_kit.run_influence(args, "SGD influence (tabular)", script_kit.sgd_scores(args))


if __name__ == "__main__":
    main()
