"""Influence functions of the training samples (a NeuroCanvas built-in plugin, NNC's
protocol)."""

from engine.plugins import script_kit


def main():
    parser = script_kit.influence_parser(
        "Influence Functions\n\nThe training samples that most helped or hurt the loss of the "
        "evaluated rows (one row, or all): the predicted change of that loss when a sample is "
        "left out, (1/n) grad L_test . (H + damping I)^-1 grad L(z) (Koh and Liang, 2017). "
        "Negative influence: leaving the sample out lowers that loss (listed first).",
        "influence_functions.csv",
    )
    parser.add_argument(
        "-d",
        "--damping",
        type=float,
        default=0.01,
        help="added to the Hessian's diagonal (float) default=0.01",
    )
    parser.add_argument(
        "-it",
        "--iterations",
        type=int,
        default=30,
        help="conjugate gradient iterations (int) default=30",
    )
    args = parser.parse_args()

    def scores(model, x, t, ex, et):
        from engine.plugins import influence

        return influence.influence_functions(
            model, x, t, ex, et, args.damping, args.iterations, script_kit.progress
        )

    script_kit.run_influence(args, "Influence functions", scores)


if __name__ == "__main__":
    main()
