"""Precision-recall curve and average precision (NeuroCanvas built-in, NNC protocol)."""

from engine.plugins import script_kit


def main():
    parser = script_kit.curve_parser(
        "Precision-Recall Curve\n\nPrecision against recall and the average "
        "precision (AP); a class "
        "output y'__0..y'__n gives one curve per class (that class against the rest).",
        "precision_recall.csv",
    )
    args = parser.parse_args()

    from engine.plugins import stats

    def curve(positive, score):
        precision, recall, thresholds = stats.pr_curve(positive, score)
        return stats.average_precision(positive, score), recall, precision, thresholds

    def run():
        fig, ax = script_kit.class_curves(
            args,
            curve,
            ("average precision", "AP"),
            ("precision_recall_points.csv", "recall", "precision"),
            step=True,
        )
        ax.set_xlabel("Recall")
        ax.set_ylabel("Precision")
        ax.set_title("Precision-recall curve")
        ax.legend(loc="lower left", fontsize="small")
        fig.savefig("precision_recall_curve.png", dpi=100, bbox_inches="tight")

    script_kit.main(run, "Precision-recall curve")


if __name__ == "__main__":
    main()
