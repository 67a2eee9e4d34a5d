"""Packaging beyond pyproject.toml: the sample projects travel in the wheel.

``projects/`` stays where a source checkout has it (tests, the README and users of a checkout
use that path), and the wheel ships the same files as the package ``neurocanvas_samples``
(engine.formats.samples finds them in either place). A mapped package cannot be declared
beside ``packages.find`` in pyproject.toml, hence this file.
"""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["engine*", "console_app*"]), "neurocanvas_samples"],
    package_dir={"neurocanvas_samples": "projects"},
    package_data={"engine.guard": ["*.json"], "neurocanvas_samples": ["*.ncproj"]},
)
