"""Demographic Parity (NeuroCanvas built-in fairness plugin, NNC protocol)."""

import argparse  # noqa: F401 - the protocol: an argparse --help (fairness_script.parser)

if __name__ == "__main__":
    from engine.plugins.fairness_script import main

    main("Demographic Parity", "P(positive | unprivileged) - P(positive | privileged).")
