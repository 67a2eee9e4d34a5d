"""Theil Index (NeuroCanvas built-in fairness plugin, NNC protocol)."""

import argparse  # noqa: F401 - the protocol: an argparse --help (fairness_script.parser)

if __name__ == "__main__":
    from engine.plugins.fairness_script import main

    main("Theil Index", "Generalized entropy (alpha 1) of the benefits prediction - truth + 1.")
