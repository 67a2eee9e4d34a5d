"""ROC curve and AUC (NeuroCanvas built-in, NNC protocol)."""

from engine.plugins import script_kit


def main():
    parser = script_kit.curve_parser(
        "ROC Curve\n\nReceiver operating characteristic and its area (AUC); a class "
        "output y'__0..y'__n gives one curve per class (that class against the rest).",
        "roc_auc.csv",
    )
    args = parser.parse_args()

    from engine.plugins import stats

    def curve(positive, score):
        fpr, tpr, thresholds = stats.roc_curve(positive, score)
        return stats.trapezoid(fpr, tpr), fpr, tpr, thresholds

    def run():
        fig, ax = script_kit.class_curves(
            args, curve, ("AUC", "AUC"), ("roc_points.csv", "FPR", "TPR")
        )
        ax.plot([0, 1], [0, 1], color="grey", linestyle=":")
        ax.set_xlabel("False positive rate")
        ax.set_ylabel("True positive rate")
        ax.set_title("ROC curve")
        ax.legend(loc="lower right", fontsize="small")
        fig.savefig("roc_curve.png", dpi=100, bbox_inches="tight")

    script_kit.main(run, "ROC curve")


if __name__ == "__main__":
    main()
