"""TracIn: the training samples behind a prediction (NeuroCanvas built-in, NNC protocol)."""

import argparse


def main():
    parser = argparse.ArgumentParser(
        description="TracIn\n\nInfluence of each training sample on one evaluated sample (or "
        "each one's self-influence, which ranks mislabelled samples first): the sum over the "
        "job's checkpoints of learning rate x loss gradient dot products (Pruthi et al., 2020).",
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
        "-ix",
        "--index",
        type=int,
        default=-1,
        help="row of the input to explain, -1 for self-influence (int) default=-1",
    )
    parser.add_argument(
        "-t", "--train", default="", help="training dataset csv, empty for the job's (csv)"
    )
    parser.add_argument(
        "-n",
        "--num_samples",
        type=int,
        default=0,
        help="training rows to score, 0 for all (int) default=0",
    )
    parser.add_argument(
        "-k",
        "--top",
        type=int,
        default=20,
        help="rows listed, most influential first (int) default=20",
    )
    parser.add_argument(
        "-o",
        "--output",
        default="tracin.csv",
        help="path to output csv file (csv) default=tracin.csv",
    )
    args = parser.parse_args()

    from pathlib import Path

    import numpy as np

    from engine.plugins import script_kit, tracin
    from engine.plugins.model import PluginError

    def training_rows(model):
        if args.train:
            return args.train, script_kit.read_table(args.train)
        plan = model.job.plan()
        name = plan["optimizers"][0]["dataset"] if plan.get("optimizers") else None
        csv_path = plan.get("datasets", {}).get(name, {}).get("csv")
        if not csv_path:
            raise PluginError("the job names no training dataset CSV; give --train")
        return csv_path, script_kit.read_table(csv_path)

    def run():
        model = script_kit.load_model(args.model)
        csv_path, (header, rows) = training_rows(model)
        if args.num_samples > 0:
            rows = rows[: args.num_samples]
        base = Path(csv_path).resolve().parent
        label = model.label_variable()
        labels = [h.split(":")[0] for h in header]
        if label not in labels:
            raise PluginError(f"the training table has no label column {label!r}")
        t = np.array([float(r[labels.index(label)]) for r in rows])
        rows = [_absolute(r, header, base) for r in rows]
        x = np.stack([model.row_input(header, r) for r in rows])
        test_x = test_t = None
        if args.index >= 0:
            th, trows = script_kit.read_table(args.input)
            if args.index >= len(trows):
                raise PluginError(f"--index {args.index}: the input has {len(trows)} rows")
            test_x = model.row_input(th, trows[args.index])
            tl = [h.split(":")[0] for h in th]
            test_t = float(trows[args.index][tl.index(label)])
        scores = tracin.tracin_scores(
            model, tracin.job_checkpoints(model), x, t, test_x, test_t, script_kit.progress
        )
        order = np.argsort(-scores, kind="stable")[: args.top if args.top > 0 else None]
        script_kit.write_csv(
            args.output,
            ["rank", "training row", *header, "influence"],
            [[k + 1, int(i), *rows[i], f"{scores[i]:.6g}"] for k, i in enumerate(order)],
        )

    def _absolute(row, header, base):
        """Dataset cells naming files are relative to the dataset CSV's folder."""
        return [
            str(base / c) if h.endswith(":image") and not Path(c).is_absolute() else c
            for h, c in zip(header, row, strict=False)
        ]

    script_kit.main(run, "TracIn")


if __name__ == "__main__":
    main()
