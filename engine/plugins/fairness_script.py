"""The command line the fairness plugins share (each script names its metric)."""

from __future__ import annotations

import argparse

from engine.plugins import script_kit, stats

METRICS = {  # title: (function of engine.plugins.stats, needs the target, fair range)
    "Demographic Parity": ("demographic_parity", False, (-0.1, 0.1)),
    "Disparate Impact": ("disparate_impact", False, (0.8, 1.25)),
    "Equal Opportunity": ("equal_opportunity", True, (-0.1, 0.1)),
    "Equalised Odds": ("equalised_odds", True, (0.0, 0.1)),
    "Theil Index": ("theil_index", True, (0.0, 0.1)),
}


def parser(title: str, what: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        description=f"{title}\n\n{what}", formatter_class=argparse.RawTextHelpFormatter
    )
    p.add_argument(
        "-i",
        "--input",
        default="output_result.csv",
        help="path to input csv file (csv) default=output_result.csv",
    )
    if METRICS[title][1]:
        p.add_argument(
            "-t", "--target_variable", default="y", help="true label, 0 or 1 (variable) default=y"
        )
    p.add_argument(
        "-v",
        "--output_variable",
        default="y'",
        help="score of the favourable outcome (variable) default=y'",
    )
    if title != "Theil Index":
        p.add_argument(
            "-p",
            "--privileged_variable",
            required=True,
            help="1 for a member of the privileged group (variable)",
        )
        p.add_argument(
            "-u",
            "--unprivileged_variable",
            required=True,
            help="1 for a member of the unprivileged group (variable)",
        )
    p.add_argument(
        "-ct",
        "--clf_threshold",
        type=float,
        default=0.5,
        help="score from which the outcome is positive (float) default=0.5",
    )
    p.add_argument(
        "-o",
        "--output",
        default="fairness.csv",
        help="path to output csv file (csv) default=fairness.csv",
    )
    return p


def run(title: str, args: argparse.Namespace) -> None:
    name, needs_target, (low, high) = METRICS[title]
    func = getattr(stats, name)
    header, rows = script_kit.read_table(args.input)

    def col(name: str, what: str):  # type: ignore[no-untyped-def]
        return script_kit.numbers(script_kit.column(header, rows, name, what), name)

    score = col(args.output_variable, "--output_variable")
    inputs = [col(args.target_variable, "--target_variable")] if needs_target else []
    inputs.append(score)
    if title != "Theil Index":
        inputs += [
            col(args.privileged_variable, "--privileged_variable"),
            col(args.unprivileged_variable, "--unprivileged_variable"),
        ]
    value = float(func(*inputs, threshold=args.clf_threshold))
    verdict = "fair" if low <= value <= high else "unfair"
    fig, ax = script_kit.figure(4, 5)
    ax.axhspan(low, high, color="lightgreen", alpha=0.5)
    ax.bar([title], [value], color="darkcyan")
    ax.axhline(0, color="grey")
    ax.set_title(f"{title}: {value:.4f} ({verdict})")
    fig.savefig("fairness.png", dpi=100, bbox_inches="tight")
    script_kit.write_csv(
        args.output,
        ["metric", "value", "fair range", "verdict", "rows"],
        [[title, f"{value:.6g}", f"{low:g} to {high:g}", verdict, len(rows)]],
    )


def main(title: str, what: str) -> None:
    args = parser(title, what).parse_args()
    script_kit.main(lambda: run(title, args), title)
