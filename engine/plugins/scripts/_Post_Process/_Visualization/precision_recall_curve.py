"""Precision-recall curve and average precision (NeuroCanvas built-in, NNC protocol)."""

import argparse


def main():
    parser = argparse.ArgumentParser(
        description="Precision-Recall Curve\n\nPrecision against recall and the average "
        "precision (AP); a class "
        "output y'__0..y'__n gives one curve per class (that class against the rest).",
        formatter_class=argparse.RawTextHelpFormatter,
    )
    parser.add_argument(
        "-i",
        "--input",
        default="output_result.csv",
        help="path to input csv file (csv) default=output_result.csv",
    )
    parser.add_argument(
        "-t", "--target_variable", default="y", help="original label (variable) default=y"
    )
    parser.add_argument(
        "-v", "--output_variable", default="y'", help="predicted score (variable) default=y'"
    )
    parser.add_argument(
        "-w", "--width", type=float, default=6, help="graph width in inches (float) default=6"
    )
    parser.add_argument(
        "-he", "--height", type=float, default=5, help="graph height in inches (float) default=5"
    )
    parser.add_argument(
        "-o",
        "--output",
        default="precision_recall.csv",
        help="path to output csv file (csv) default=precision_recall.csv",
    )
    args = parser.parse_args()

    from engine.plugins import script_kit, stats

    def run():
        header, rows = script_kit.read_table(args.input)
        truth, classes = script_kit.class_scores(
            header, rows, args.target_variable, args.output_variable
        )
        fig, ax = script_kit.figure(args.width, args.height)
        table, points = [], []
        for name, score in classes:
            positive = truth == float(name)
            precision, recall, thresholds = stats.pr_curve(positive, score)
            ap = stats.average_precision(positive, score)
            table.append([name, f"{ap:.6f}", int(positive.sum()), int((~positive).sum())])
            points += [
                [name, f"{t:.6g}", f"{x:.6f}", f"{y:.6f}"]
                for t, x, y in zip(thresholds, recall, precision, strict=True)
            ]
            ax.step(recall, precision, where="post", label=f"class {name} (AP {ap:.4f})")
        ax.set_xlabel("Recall")
        ax.set_ylabel("Precision")
        ax.set_title("Precision-recall curve")
        ax.legend(loc="lower left", fontsize="small")
        fig.savefig("precision_recall_curve.png", dpi=100, bbox_inches="tight")
        script_kit.write_csv(
            args.output, ["class", "average precision", "positives", "negatives"], table
        )
        script_kit.write_csv(
            "precision_recall_points.csv", ["class", "threshold", "recall", "precision"], points
        )

    script_kit.main(run, "Precision-recall curve")


if __name__ == "__main__":
    main()
