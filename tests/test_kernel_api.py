"""The kernel contracts and the public kernel API (``spades_sim.nb``).

The named index declarations of ``_nb/enums.py`` against what reads and fills them (the
schema, ``Rules.lower()``, the registry), the import structure of the kernel layer (no
cycle, nothing importing the dispatch layer from below), the example policy's imports, and
where the lock-step kernels' 512-bit vectors come from.
"""

from __future__ import annotations

import ast
import inspect
import itertools
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from spades_sim import nb
from spades_sim._nb import enums
from spades_sim.rules import Rules
from spades_sim.run.chunks import I8_ROWS, I32_ROWS
from spades_sim.schema import GAME_COLUMNS, HAND_COLUMNS, KERNEL_ONLY_ROWS

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ROOT / "spades_sim" / "_nb"


def test_output_rows_are_the_schema_columns() -> None:
    # every column the kernels write has its row, named after it, and nothing else does
    for block, rows in (("i8", enums.OutI8), ("i32", enums.OutI32), ("game", enums.GameOut)):
        columns = HAND_COLUMNS if block != "game" else GAME_COLUMNS
        names = tuple(c.name for c in columns if c.block == block)
        assert rows._fields == names + KERNEL_ONLY_ROWS.get(block, ())
        assert tuple(rows) == tuple(range(len(rows)))
    assert {n: getattr(enums.OutI8, n) for n in enums.OutI8._fields[:-1]} == I8_ROWS
    assert dict(zip(enums.OutI32._fields, enums.OutI32, strict=True)) == I32_ROWS
    assert {c.block for c in (*HAND_COLUMNS, *GAME_COLUMNS)} == {None, "i8", "i32", "game"}


def test_rule_array_is_filled_by_name() -> None:
    rules = Rules(target=300, bag_penalty=50, loss_threshold=-200, jokers=True)
    lowered = rules.lower()
    assert lowered.shape == (enums.N_RULE_FIELDS,) and lowered.dtype == np.int64
    assert lowered[enums.RuleField.target] == 300
    assert lowered[enums.RuleField.bag_penalty] == 50
    assert lowered[enums.RuleField.jokers] == 1
    assert lowered[enums.RuleField.has_loss_threshold] == 1
    assert lowered[enums.RuleField.loss_threshold] == -200
    assert Rules().lower()[enums.RuleField.has_loss_threshold] == 0


def test_every_contract_is_distinct_within_itself() -> None:
    # a slot used twice would make two meanings share one array entry
    for name in dir(enums):
        value = getattr(enums, name)
        if isinstance(value, tuple) and hasattr(value, "_fields"):
            assert len(set(value)) == len(value), name
    wide = {"trick_cards": 4, "bids": 4, "nil": 4, "tricks_won": 4, "scores": 2, "bags": 2,
            "voids": 4, "played_by": 4, "history": enums.MAX_PLAYS}  # fmt: skip
    ends = sorted((v, v + wide.get(k, 1)) for k, v in enums.InfoSlot._asdict().items())
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(ends))
    assert ends[-1][1] <= enums.N_INFO


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            if node.module == "spades_sim._nb":
                found |= {f"spades_sim._nb.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
    return found


def test_kernel_modules_form_no_cycle() -> None:
    graph = {
        p.stem: {m.rsplit(".", 1)[1] for m in _imports(p) if m.startswith("spades_sim._nb.")}
        for p in KERNELS.glob("*.py")
        if p.stem != "__init__"
    }
    done: set[str] = set()

    def visit(node: str, path: tuple[str, ...]) -> None:
        assert node not in path, " -> ".join((*path, node))
        if node in done:
            return
        for dep in graph[node]:
            visit(dep, (*path, node))
        done.add(node)

    for node in graph:
        visit(node, ())
    # the dispatch sits on top: only the loops (and the loops' prelude, prepare), the
    # user policies' contexts, pimc (a play function only generated modules call; both
    # for borrowed views), the learning environment's table (its built-in seats) and the
    # checked-in entry points of the generated modules of user policies import it
    assert {m for m, deps in graph.items() if "policies" in deps} == {
        "context", "env", "loop", "odds", "pimc", "prepare", "user_kernels",
    }  # fmt: skip
    assert "enums" in graph and not graph["enums"]


def test_example_policy_uses_only_the_public_api() -> None:
    imports = _imports(ROOT / "analyses" / "custom_policy.py")
    assert not [m for m in imports if m.startswith("spades_sim._nb")]
    assert "spades_sim" in imports  # from spades_sim import nb


def test_public_helpers_run_inside_njit() -> None:
    from numba import njit

    @njit
    def probe(hand, info, rules):  # type: ignore[no-untyped-def]
        spades = nb.popcount_nb(hand & nb.SPADE_MASK)
        return spades, rules[nb.RuleField.target], info[nb.InfoSlot.players]

    info = np.zeros(nb.N_INFO, dtype=np.int64)
    info[nb.InfoSlot.players] = 4
    hand = np.uint64((1 << 39) | (1 << 51) | 1)
    assert probe(hand, info, Rules().lower()) == (2, 500, 4)


def test_import_leaves_numba_settings_alone() -> None:
    code = (
        "import os, spades_sim.simulate\nfrom numba.core import config\n"
        "print(repr(config.CPU_FEATURES), repr(os.environ.get('NUMBA_CPU_FEATURES')))"
    )
    clean = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_CPU")}
    out = subprocess.run(
        [sys.executable, "-c", code], env=clean, capture_output=True, text=True, check=True,
        cwd=ROOT,
    )  # fmt: skip
    assert out.stdout.split() == ["None", "None"]


def test_lockstep_kernels_ask_for_wide_vectors_for_themselves() -> None:
    from numba import njit

    from spades_sim._nb import lockstep, lockstep_heuristic

    @njit
    def marked(x):  # type: ignore[no-untyped-def]
        lockstep.prefer_wide_vectors_nb()
        return x + 1

    @njit
    def unmarked(x):  # type: ignore[no-untyped-def]
        return x + 1

    assert marked(1) == 2 and unmarked(1) == 2
    assert lockstep.WIDE_VECTORS in "".join(marked.inspect_llvm().values())
    assert lockstep.WIDE_VECTORS not in "".join(unmarked.inspect_llvm().values())
    # every function that holds a loop over the lanes is marked (LLVM inlines the
    # forceinline ones after vectorising them on their own)
    for function in (
        lockstep.play_random_lockstep_nb,
        lockstep_heuristic.play_heuristic_general_lockstep_nb,
        lockstep_heuristic._play_heuristic_defaults_loops_nb,
        lockstep_heuristic._clear_play_nb,
        lockstep_heuristic._heuristic_position_nb,
        lockstep_heuristic._heuristic_needs_nb,
    ):
        assert "prefer_wide_vectors_nb()" in inspect.getsource(function.py_func)
