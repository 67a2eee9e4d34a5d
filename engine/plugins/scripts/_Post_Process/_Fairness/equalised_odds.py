"""Equalised Odds (NeuroCanvas built-in fairness plugin, NNC protocol)."""

import argparse  # noqa: F401 - the protocol: an argparse --help (fairness_script.parser)

if __name__ == "__main__":
    from engine.plugins.fairness_script import main

    main(
        "Equalised Odds",
        "Mean of the absolute differences of the groups' false and true positive rates.",
    )
