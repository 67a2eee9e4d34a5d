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
    add_sgd_arguments(parser)
    args = parser.parse_args()
    script_kit.run_influence(args, "SGD influence", sgd_scores(args))


def add_sgd_arguments(parser):
    parser.add_argument(
        "-e",
        "--epochs",
        type=int,
        default=1,
        help="epochs replayed, the last ones, as NNC (int) default=1",
    )
    parser.add_argument(
        "-bs",
        "--batch_size",
        type=int,
        default=0,
        help="batch size replayed, 0 for the job's (int) default=0",
    )
    parser.add_argument(
        "-nt",
        "--n_trials",
        type=int,
        default=6,
        help="shuffles of the replayed epochs averaged (int) default=6",
    )
    script_kit.add_seed(parser)


def sgd_scores(args):
    def scores(model, x, t, ex, et):
        from engine.plugins import influence, tracin

        plan = model.job.plan()
        batch = args.batch_size or int(plan.get("batch_size") or 64)
        return influence.sgd_influence(
            model,
            x,
            t,
            ex,
            et,
            tracin.learning_rate(model),
            batch,
            max(1, args.epochs),
            max(1, args.n_trials),
            args.seed,
            script_kit.progress,
        )

    return scores


if __name__ == "__main__":
    main()
