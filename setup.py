"""Packaging beyond pyproject.toml: the sample projects and the app's resources travel in the wheel.

``projects/`` and ``resources/`` stay where a source checkout has them, and the wheel ships the
same files as the packages ``neurocanvas_samples`` and ``neurocanvas_resources``
(engine.package_data finds them in either place). A mapped package cannot be declared
beside ``packages.find`` in pyproject.toml, hence this file.
"""

from setuptools import find_packages, setup

setup(
    packages=[
        *find_packages(include=["engine*", "console_app*", "neurocanvas"]),
        "neurocanvas_samples",
        "neurocanvas_resources",
    ],
    package_dir={"neurocanvas_samples": "projects", "neurocanvas_resources": "resources"},
    package_data={
        "engine.guard": ["*.json"],
        "neurocanvas_samples": ["*.ncproj"],
        "neurocanvas_resources": ["*.svg", "*.desktop", "i18n/*.ts", "help/*.md"],
    },
)
