"""TracIn: the training samples behind a prediction (NeuroCanvas built-in, NNC protocol)."""

from engine.plugins import script_kit


def main():
    parser = script_kit.parser(
        "TracIn\n\nInfluence of each training sample on one evaluated sample (or "
        "each one's self-influence, which ranks mislabelled samples first): the sum over the "
        "job's checkpoints of learning rate x loss gradient dot products (Pruthi et al., 2020)."
    )
    script_kit.add_model(parser)
    script_kit.add_input(parser)
    parser.add_argument(
        "-ix",
        "--index",
        type=int,
        default=-1,
        help="row of the input to explain, -1 for self-influence (int) default=-1",
    )
    script_kit.add_training_rows(parser)
    parser.add_argument(
        "-k",
        "--top",
        type=int,
        default=20,
        help="rows listed, most influential first (int) default=20",
    )
    script_kit.add_output(parser, "tracin.csv")
    args = parser.parse_args()

    import numpy as np

    from engine.plugins import tracin
    from engine.plugins.model import PluginError

    def run():
        model = script_kit.load_model(args.model)
        header, rows, x, t = script_kit.training_set(model, args.train, args.num_samples)
        test_x = test_t = None
        if args.index >= 0:
            th, trows = script_kit.read_table(args.input)
            if args.index >= len(trows):
                raise PluginError(f"--index {args.index}: the input has {len(trows)} rows")
            tx, tt = script_kit.labelled(model, th, [trows[args.index]], f"--input {args.input}")
            test_x, test_t = tx[0], tt[0]
        scores = tracin.tracin_scores(
            model, tracin.job_checkpoints(model), x, t, test_x, test_t, script_kit.progress
        )
        order = np.argsort(-scores, kind="stable")[: args.top if args.top > 0 else None]
        script_kit.write_csv(
            args.output,
            ["rank", "training row", *header, "influence"],
            [[k + 1, int(i), *rows[i], f"{scores[i]:.6g}"] for k, i in enumerate(order)],
        )

    script_kit.main(run, "TracIn")


if __name__ == "__main__":
    main()
