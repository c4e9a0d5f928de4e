"""Doctests that draw figures need matplotlib (the ``report`` extra): skip them, saying
why, where it is not installed, so ``pip install -e '.[test]'`` alone still runs the rest.
"""

from __future__ import annotations

import importlib.util

import pytest

DRAWING_MODULES = ("spades_sim/report/figures.py", "spades_sim/report/__init__.py")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if importlib.util.find_spec("matplotlib") is not None:
        return
    skip = pytest.mark.skip(
        reason="matplotlib is not installed: pip install -e '.[test,report]' to run it"
    )
    for item in items:
        path = str(item.path).replace("\\", "/")
        if type(item).__name__ == "DoctestItem" and path.endswith(DRAWING_MODULES):
            item.add_marker(skip)
