"""SGD influence of the training images (a NeuroCanvas built-in plugin, NNC's protocol)."""

from engine.plugins import script_kit


def main():
    parser = script_kit.influence_parser(
        "SGD Influence\n\nThe training samples that most helped or hurt the loss of the "
        "evaluated rows (one row, or all): SGD replayed backwards over the trained parameters "
        "(Hara et al., 2019; Suzuki et al., 2021). Negative influence: leaving the sample out "
        "lowers that loss (listed first, candidates for data cleansing).",
        "sgd_influence.csv",
    )
    script_kit.add_sgd_arguments(parser)
    args = parser.parse_args()
    script_kit.run_influence(args, "SGD influence", script_kit.sgd_scores(args))


if __name__ == "__main__":
    main()
