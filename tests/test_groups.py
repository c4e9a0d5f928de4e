"""Every ``xdist_group`` mark of the tests names a group listed here, and every group
listed is used: under ``--dist loadgroup`` (the README's test command) one worker runs a
group's tests, so that the kernels they share are compiled once; a misspelt name would
quietly make a group of its own, and both workers would compile those kernels again."""

from __future__ import annotations

import re
from pathlib import Path

from test_docs import PAGE_GROUPS

TESTS = Path(__file__).resolve().parent

GROUPS = {
    "user_policies": "the generated modules of the example's and the file's own policies",
    "variants_user_bidders": "the module of tests/test_variants.py's two user bidders",
    "linear_player": "the linear player's modules: tests/test_env.py and docs/env.md",
    "env_kernels": "the learning environment's kernels (tests/test_env.py)",
    "pimc_module": "the generated module every run with a side playing pimc takes",
    "pimc_kernels": "the solver's and pimc's kernels, called directly (test_pimc, test_worlds)",
}
"""The groups, each with the kernels its tests share."""

MARK = re.compile(r"xdist_group\((['\"])(\w+)\1\)")


def used_groups() -> dict[str, list[str]]:
    """Each group a test file's marks or a documentation page name, with where."""
    used: dict[str, list[str]] = {}
    for path in sorted(TESTS.glob("*.py")):
        for m in MARK.finditer(path.read_text()):
            used.setdefault(m.group(2), []).append(path.name)
    for page, group in PAGE_GROUPS.items():
        used.setdefault(group, []).append(page)
    return used


def test_every_xdist_group_is_a_known_group() -> None:
    used = used_groups()
    unknown = sorted(set(used) - set(GROUPS))
    assert not unknown, f"xdist_group names not in GROUPS: {[(g, used[g]) for g in unknown]}"
    unused = sorted(set(GROUPS) - set(used))
    assert not unused, f"GROUPS no test uses: {unused}"
