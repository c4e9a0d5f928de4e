"""``docs/architecture.md`` held to the code: its module tables list every module of the
package once and nothing else, and a table that says its modules import only modules
above it is right.

A table is marked by the comment line before it: ``<!-- modules: spades_sim/PKG -->``
(``ordered`` after the folder when the order is an import order); its first column
names the modules of that folder.
"""

from __future__ import annotations

import re
from pathlib import Path

from test_imports import MODULES, dependencies

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
MARK = re.compile(r"<!-- modules: (\S+)( ordered)? -->")


def tables() -> list[tuple[str, bool, list[str]]]:
    """Every marked table: (folder, ordered, the module files in table order)."""
    lines = DOC.read_text().splitlines()
    found = []
    for i, line in enumerate(lines):
        mark = MARK.fullmatch(line.strip())
        if not mark:
            continue
        names = []
        for row in lines[i + 3 :]:  # after the header and the rule
            if not row.startswith("|"):
                break
            names.append(re.match(r"\| `([^`]+)` \|", row).group(1))  # type: ignore[union-attr]
        found.append((mark.group(1), bool(mark.group(2)), names))
    return found


def module_of(folder: str, file: str) -> str:
    stem = file.removesuffix(".py")
    base = folder.replace("/", ".")
    return base if stem == "__init__" else f"{base}.{stem}"


def test_the_tables_list_every_module_once() -> None:
    listed: list[str] = []
    for folder, _, names in tables():
        for name in names:
            assert name.endswith(".py"), f"{folder}: {name!r} is not a module file"
            path = ROOT / folder / name
            assert path.is_file(), f"{folder}/{name} is in the table, not in the code"
            listed.append(module_of(folder, name))
    assert len(listed) == len(set(listed)), "a module is listed twice"
    missing = sorted(set(MODULES) - set(listed))
    assert not missing, f"modules missing from docs/architecture.md: {missing}"


def test_ordered_tables_import_only_what_is_above() -> None:
    ordered = [t for t in tables() if t[1]]
    assert {folder for folder, _, _ in ordered} >= {"spades_sim/_nb", "spades_sim/run"}
    for folder, _, names in ordered:
        modules = [module_of(folder, n) for n in names]
        for k, module in enumerate(modules):
            later = set(modules[k:])
            wrong = sorted(d for d in dependencies(module) if d in later)
            assert not wrong, f"{module} imports {wrong}, listed at or below it"


def reached(module: str) -> set[str]:
    """Every module of the package ``module`` imports, directly or through others."""
    seen: set[str] = set()
    todo = [module]
    while todo:
        for dep in dependencies(todo.pop()):
            if dep not in seen:
                seen.add(dep)
                todo.append(dep)
    return seen


def test_the_solver_and_the_thread_pool_sit_below_the_run_layer() -> None:
    # the run layer solves runs with the solver; the solver never needs a run
    below = [m for m in MODULES if m.startswith("spades_sim.solve") or m == "spades_sim.threads"]
    assert "spades_sim.threads" in below and "spades_sim.solve.batch" in below
    for module in below:
        wrong = sorted(d for d in reached(module) if d.startswith("spades_sim.run"))
        assert not wrong, f"{module} reaches the run layer: {wrong}"


def test_the_table_of_policies_is_on_the_ground_floor() -> None:
    # everything about a built-in policy is derived from it, the kernels' enums included
    assert not reached("spades_sim.policy_table")
    assert "spades_sim.policy_table" in dependencies("spades_sim._nb.enums")
