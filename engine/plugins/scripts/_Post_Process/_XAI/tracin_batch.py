"""TracIn of every row of a table (NeuroCanvas built-in plugin, NNC protocol)."""

from engine.plugins import script_kit


def main():
    parser = script_kit.parser(
        "TracIn (batch)\n\nFor each row of the table (the whole evaluation set), the training "
        "samples that most raised (proponents) and most lowered (opponent) its prediction: "
        "TracIn scores, the sum over the job's checkpoints of learning rate x loss gradient "
        "dot products (Pruthi et al., 2020). The table comes back with them per row."
    )
    script_kit.add_model(parser)
    script_kit.add_input(parser)
    script_kit.add_training_rows(parser)
    script_kit.add_num_rows(parser, "-r")
    parser.add_argument(
        "-k", "--top", type=int, default=3, help="proponents listed per row (int) default=3"
    )
    script_kit.add_output(parser, "tracin_batch.csv")
    args = parser.parse_args()

    import numpy as np

    def run():
        from engine.plugins import tracin

        model = script_kit.load_model(args.model)
        header, rows, x, t = script_kit.training_set(model, args.train, args.num_samples)
        eh, erows = script_kit.read_table(args.input)
        if args.num_rows > 0:
            erows = erows[: args.num_rows]
        ex, et = script_kit.labelled(model, eh, erows, f"--input {args.input}")
        scores = tracin.tracin_matrix(
            model, tracin.job_checkpoints(model), x, t, ex, et, script_kit.progress
        )
        # a training sample is shown by its file (a thumbnail), else by its row number
        files = [k for k, h in enumerate(header) if h.endswith(":image")]

        def shown(i):
            return rows[i][files[0]] if files else str(i)

        kind = ":image" if files else ""
        top = max(1, args.top)
        extra = []
        for k in range(1, top + 1):
            extra += [f"proponent_{k}{kind}", f"proponent_{k}_row", f"proponent_{k}_influence"]
        extra += [f"opponent{kind}", "opponent_row", "opponent_influence"]
        out = []
        for j, row in enumerate(erows):
            order = np.argsort(-scores[j], kind="stable")
            cells = []
            for i in order[:top]:
                cells += [shown(i), int(i), f"{scores[j, i]:.6g}"]
            worst = int(order[-1])
            cells += [shown(worst), worst, f"{scores[j, worst]:.6g}"]
            out.append([*row, *cells])
        script_kit.write_csv(args.output, [*eh, *extra], out)

    script_kit.main(run, "TracIn (batch)")


if __name__ == "__main__":
    main()
