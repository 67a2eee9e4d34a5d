"""ROC curve and AUC (NeuroCanvas built-in, NNC protocol)."""

import argparse


def main():
    parser = argparse.ArgumentParser(
        description="ROC Curve\n\nReceiver operating characteristic and its area (AUC); a class "
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
        default="roc_auc.csv",
        help="path to output csv file (csv) default=roc_auc.csv",
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
            fpr, tpr, thresholds = stats.roc_curve(positive, score)
            auc = stats.trapezoid(fpr, tpr)
            table.append([name, f"{auc:.6f}", int(positive.sum()), int((~positive).sum())])
            points += [
                [name, f"{t:.6g}", f"{x:.6f}", f"{y:.6f}"]
                for t, x, y in zip(thresholds, fpr, tpr, strict=True)
            ]
            ax.plot(fpr, tpr, label=f"class {name} (AUC {auc:.4f})")
        ax.plot([0, 1], [0, 1], color="grey", linestyle=":")
        ax.set_xlabel("False positive rate")
        ax.set_ylabel("True positive rate")
        ax.set_title("ROC curve")
        ax.legend(loc="lower right", fontsize="small")
        fig.savefig("roc_curve.png", dpi=100, bbox_inches="tight")
        script_kit.write_csv(args.output, ["class", "AUC", "positives", "negatives"], table)
        script_kit.write_csv("roc_points.csv", ["class", "threshold", "FPR", "TPR"], points)

    script_kit.main(run, "ROC curve")


if __name__ == "__main__":
    main()
