"""The kernels of a run with user-written policies: a generated module, cached on disk.

Contract. :func:`kernels_for` takes the four policies of a run (bidding N-S, E-W; play
N-S, E-W; any of them may be built-in) and returns a module whose entry points have the
signatures of the built-in ones: ``hands_nb``, ``games_nb`` (``_nb.loop``),
``play_deals_nb`` and ``number_bid_nb`` (``_nb.odds``). Those entry points are
checked-in code, ``_nb/user_kernels.py``, copied into the module (:func:`entries_text`);
only what follows them is generated: for each side an adapter that builds the policy's
context (``_nb.context``, with the policy's own named tuple of parameters) and calls the
user's function (a bid or blind nil decision through a real call with borrowed arrays,
so it compiles once a side instead of at each of the engine's call sites; a play
inlined, as its 52 decisions a hand are the hot path; both sides running the same
function share one copy), which the entry points built on the package's generic kernels
(``loop.hands_with_nb`` ...) call, among them the batch entry points
``hands_lanes_four_nb``/``hands_lanes_two_nb`` (``LANES`` deals a block, dealt, scored
and written in lock-step, played in lock-step when both sides play the same non-sampling
built-in: the same rows as ``hands_nb``). A built-in side keeps the built-in dispatch by
id (without the rollouts unless that side runs a sampling policy, so a module compiles
no more than it runs), except a side playing a built-in of :data:`GENERATED_ONLY`
(``pimc``): runs with ``pimc`` take a generated module even when every policy is a
built-in (:func:`needs_generated`), so that only they compile the solver, and in such a
module every built-in side that plays ``pimc``, ``random`` or ``heuristic`` calls
``pimc.pimc_or_plain_play_nb``, which picks by the side's parameters: ``pimc`` against
itself or a plain built-in, on either side, is one module (compiled once a machine: the
solver takes minutes cold). A user bidder's blind nil decision is its own
(``never_blind_nil_nb`` when it declares none), so no built-in rule reads a user's
parameters.

The two seatings of the same two sides (a duplicate's, a ladder's, a tuning's) are one
module (:func:`seating`): the module holds the sides in its own order, and where they
differ each side calls its own policy or the other's by ``SEATING_SLOT`` of its parameter
row, which ``RunSpec.params`` sets when a run seats them the other way round.

The module's file name is a digest of the package's kernel sources and of every user
function's :attr:`~spades_sim.custom.function.UserFunction.digest`, so its kernels are
compiled once per machine, cached by Numba next to it, and compiled afresh when the
policy, a helper it calls, or the package changes. The file lives in
``$SPADES_SIM_CACHE_DIR``, else ``$NUMBA_CACHE_DIR/spades_sim``, else
``~/.cache/spades_sim`` (``XDG_CACHE_HOME`` honoured). The user's functions reach the
module through :data:`REGISTRY` (filled before the module is imported): when Numba loads
the kernels from its cache they are not even compiled.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import tempfile
import threading
import types
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from spades_sim._nb import KERNEL_DIGEST, user_kernels
from spades_sim.custom.function import UserFunction
from spades_sim.policy_table import names_with

REGISTRY: dict[str, tuple[Any, ...]] = {}
"""The user functions of each generated module, by its key (read at its import)."""

_MODULES: dict[str, types.ModuleType] = {}
_LOCK = threading.Lock()

SLOTS = ("bid_ns", "bid_ew", "play_ns", "play_ew")


def cache_dir() -> Path:
    """Where generated kernel modules are written (see the module docstring)."""
    explicit = os.environ.get("SPADES_SIM_CACHE_DIR")
    if explicit:
        return Path(explicit)
    numba_dir = os.environ.get("NUMBA_CACHE_DIR")
    if numba_dir:
        return Path(numba_dir) / "spades_sim"
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "spades_sim"


SAMPLING = {kind: names_with(kind, "sampling") for kind in ("bid", "play")}
"""The built-ins whose searches a kernel compiles only when a side runs one (their
decisions are the scalar kernels' only: no lock-step batches)."""

GENERATED_ONLY = dict.fromkeys(names_with("play", "needs_solver"), "pimc_or_plain_play_nb")
"""Built-in play policies no built-in kernel compiles (the double-dummy solver and the
kernels around it take minutes to compile cold): a run with a side playing one takes a
generated module, whose plain built-in sides and sides playing it call the function
named here (``spades_sim._nb.pimc``)."""


def needs_generated(policies: Sequence[Any]) -> bool:
    """Whether a run of these policies must take a generated module: a user-written
    policy, or a built-in of :data:`GENERATED_ONLY`."""
    return any(not p.is_builtin or p.name in GENERATED_ONLY for p in policies)


def _slot_functions(policies: Sequence[Any]) -> tuple[UserFunction | None, ...]:
    return tuple(p.function if p.function is not None else None for p in policies)


def _generated_only(policies: Sequence[Any]) -> str | None:
    """The :data:`GENERATED_ONLY` dispatcher of a module of these policies, if any."""
    for p in policies:
        if p.is_builtin and p.kind == "play" and p.name in GENERATED_ONLY:
            return GENERATED_ONLY[p.name]
    return None


def _builtin_dispatch(policy: Any, policies: Sequence[Any]) -> str:
    """The dispatcher a built-in side of a generated module calls: the full one when the
    side runs a sampling policy, else the one without rollouts (it compiles in a fraction
    of the time and chooses the same bids and cards); in a module that runs a
    :data:`GENERATED_ONLY` policy, that policy's dispatcher for it and for the plain
    built-ins."""
    special = _generated_only(policies) if policy.kind == "play" else None
    if special is not None and (
        policy.name in GENERATED_ONLY or policy.name not in SAMPLING["play"]
    ):
        return special
    if policy.name in SAMPLING[policy.kind]:
        return "builtin_bid_nb" if policy.kind == "bid" else "builtin_play_nb"
    return "plain_bid_nb" if policy.kind == "bid" else "plain_play_nb"


def lane_play(policies: Sequence[Any]) -> str:
    """How the batch kernels (``hands_lanes_*_nb``) play: a built-in's lock-step play
    (``lockstep_entries.heuristic_lanes_nb``, ...: both sides the same built-in with
    lock-step lanes), else ``play_lanes_nb`` (lane by lane through the play functions)."""
    play_ns, play_ew = policies[2], policies[3]
    same = play_ns.is_builtin and play_ew.is_builtin and play_ns.name == play_ew.name
    if same and play_ns.name in names_with("play", "lanes"):
        return f"lockstep_entries.{play_ns.name.replace('-', '_')}_lanes_nb"
    return "play_lanes_nb"


def batches_allowed(policies: Sequence[Any]) -> bool:
    """Whether a hands run of these policies may take the batch kernels: no side runs a
    sampling built-in (their rollouts are the scalar kernels' only)."""
    return not any(p.is_builtin and p.name in SAMPLING[p.kind] for p in policies)


def _what(policy: Any, policies: Sequence[Any]) -> str:
    """What a slot compiles: a user function's digest, else the built-in dispatcher."""
    return policy.function.digest if policy.function else _builtin_dispatch(policy, policies)


def seating(policies: Sequence[Any]) -> tuple[tuple[Any, ...], bool]:
    """The module's own order of these four policies, and whether a run of them seats
    the two sides the other way round (its rows then carry 1 in ``SEATING_SLOT``). A
    duplicate plays the same two sides both ways round: one module serves both seatings,
    its sides choosing their policy by that slot, so a user policy's module compiles once
    for the two seatings, not twice (the engine around the policies is most of a
    module's compile)."""
    turned = (policies[1], policies[0], policies[3], policies[2])
    if tuple(_what(p, policies) for p in turned) < tuple(_what(p, policies) for p in policies):
        return turned, True
    return tuple(policies), False


def module_key(policies: Sequence[Any]) -> str:
    """The digest naming the module of these four policies (built-in sides by their
    kind only: their parameters are read at run time; either seating of the two sides
    the same module, :func:`seating`)."""
    policies = seating(policies)[0]
    h = hashlib.sha256(KERNEL_DIGEST.encode())
    h.update(lane_play(policies).encode())
    for slot, policy in zip(SLOTS, policies, strict=True):
        h.update(f"{slot}={_what(policy, policies)};".encode())
    return h.hexdigest()[:24]


def _seated(slot: str, args: Sequence[str]) -> list[str]:
    """Source of ``{slot}_nb`` for a side whose policy depends on the seating: the
    module's own ``seat_{slot}_nb`` in its own seating, the other side's when the run
    seats the sides the other way round (``SEATING_SLOT`` of the side's row)."""
    side = slot[-2:]
    other = slot[:-2] + ("ew" if side == "ns" else "ns")
    passed = ", ".join(args)
    return [
        '@njit(inline="always", cache=True)',
        f"def {slot}_nb({passed}):",
        "    if params[SEATING_SLOT] == 0.0:",
        f"        return seat_{slot}_nb({passed})",
        f"    return seat_{other}_nb({passed})",
        "",
        "",
    ]


def _params_tuple(name: str, names: Sequence[str]) -> list[str]:
    fields = ", ".join(repr(n) for n in names)
    values = ", ".join(f"params[{k}]" for k in range(len(names)))
    return [
        f"{name} = namedtuple({name!r}, ({fields}{',' if len(names) == 1 else ''}))",
        "",
        "",
        '@njit(inline="always", cache=True)',
        f"def {name.lower()}_nb(params):",
        f"    return {name}({values})",
        "",
        "",
    ]


BID_ARGS = ("hand", "seat", "info", "rules", "params", "rand")
BLIND_ARGS = ("seat", "info", "rules", "params", "rand")
PLAY_ARGS = ("hand", "legal", "seat", "info", "rules", "params", "rand")
ARRAY_ARGS = {"info", "rules", "params"}


def _same_code(a: UserFunction | None, b: UserFunction | None) -> bool:
    """Whether two slots' functions compile to the same kernel: the same code, the same
    parameter names and the same blind nil decision."""
    return (
        a is not None
        and b is not None
        and (a.digest, a.param_names, a.blind_nil) == (b.digest, b.param_names, b.blind_nil)
    )


def _borrowing_shell(name: str, call: str, args: Sequence[str]) -> list[str]:
    """Source of ``name``, an inlined shell that calls the real function ``call`` with its
    arrays borrowed (``policies.borrow_nb``): the user's function and the context built
    around it are then compiled once a slot, not once at each of the engine's call sites
    (Numba typing those inlined copies was most of a module's compile), for a real call
    per decision that costs no reference counting."""
    passed = ", ".join(f"borrow_nb({a})" if a in ARRAY_ARGS else a for a in args)
    return [
        '@njit(inline="always", cache=True)',
        f"def {name}({', '.join(args)}):",
        f"    return {call}({passed})",
        "",
        "",
    ]


ENTRIES = Path(user_kernels.__file__)
"""The checked-in part of every generated module (imported here, so a kernel it names that
was renamed fails the package's import)."""

_FROM = "# --- copied into every generated module: from here ---\n"
_TO = "# --- copied into every generated module: to here ---\n"


def entries_text() -> str:
    """The imports and entry points every generated module holds, copied from
    ``_nb/user_kernels.py`` between its two marker lines."""
    text = ENTRIES.read_text()
    return text[text.index(_FROM) + len(_FROM) : text.index(_TO)]


def source(key: str, policies: Sequence[Any]) -> str:
    """The generated module's text for these four policies (``REGISTRY[key]`` holds the
    user functions it reads, in slot order, blind nil decisions after): the checked-in
    entry points (:func:`entries_text`), then the adapters, in the order of
    :func:`seating`, a pair of slots whose sides differ read through :func:`_seated`."""
    policies = seating(policies)[0]
    functions = _slot_functions(policies)
    seated = {
        kind: _what(policies[k], policies) != _what(policies[k + 1], policies)
        for k, kind in ((0, "bid"), (2, "play"))
    }
    special = _generated_only(policies)
    lines = [
        f'"""Kernels for user-written policies, generated by spades_sim (key {key}).',
        "",
        "Do not edit: the file is named by a digest of the policies' code and of the",
        "package's kernels, and written anew under another name when either changes. The",
        'entry points are spades_sim/_nb/user_kernels.py\'s; the adapters follow them."""',
        "",
        entries_text(),
        "",
        "# the adapters of this module's policies",
        *([f"from spades_sim._nb.pimc import {special}"] if special is not None else []),
        "from spades_sim.custom.kernels import REGISTRY",
        "",
        f"USER = REGISTRY[{key!r}]",
        f"lane_play_nb = {lane_play(policies)}",
        "",
        "",
    ]
    for k, (bare, function) in enumerate(zip(SLOTS, functions, strict=True)):
        kind = bare.split("_")[0]
        pre = "seat_" if seated[kind] else ""
        slot = pre + bare
        if function is None:
            lines += [f"{slot}_nb = {_builtin_dispatch(policies[k], policies)}", ""]
            if kind == "bid":
                lines += [f"{pre}blind_{bare[4:]}_nb = blind_nil_nb", ""]
            continue
        if k % 2 and _same_code(function, functions[k - 1]):
            # both sides run the same function: one compiled copy (each side still
            # passes its own parameter row)
            lines += [f"{slot}_nb = {pre}{SLOTS[k - 1]}_nb", ""]
            if kind == "bid":
                lines += [f"{pre}blind_{bare[4:]}_nb = {pre}blind_{SLOTS[k - 1][4:]}_nb", ""]
            continue
        params = f"Params{k}"
        lines += _params_tuple(params, function.param_names)
        lines += [f"user_{bare} = USER[{k}]", "", ""]
        if kind == "bid":
            lines += [
                "@njit(cache=True)",
                f"def {slot}_call_nb({', '.join(BID_ARGS)}):",
                f"    return user_{bare}(",
                "        bid_context_nb(",
                f"            hand, seat, info, rules, {params.lower()}_nb(params), rand",
                "        )",
                "    )",
                "",
                "",
                *_borrowing_shell(f"{slot}_nb", f"{slot}_call_nb", BID_ARGS),
            ]
            side = bare[4:]
            blind = function.blind_nil
            if blind is None:
                lines += [f"{pre}blind_{side}_nb = never_blind_nil_nb", ""]
            elif blind == "builtin":
                lines += [
                    "@njit(cache=True)",
                    f"def blind_{side}_call_nb({', '.join(BLIND_ARGS)}):",
                    "    return blind_nil_rule_nb(",
                    f"        blind_nil_context_nb(seat, info, rules, {params.lower()}_nb"
                    "(params), rand)",
                    "    )",
                    "",
                    "",
                    *_borrowing_shell(f"{pre}blind_{side}_nb", f"blind_{side}_call_nb", BLIND_ARGS),
                ]
            else:
                lines += [
                    f"user_blind_{side} = USER[{4 + k}]",
                    "",
                    "",
                    "@njit(cache=True)",
                    f"def blind_{side}_call_nb({', '.join(BLIND_ARGS)}):",
                    f"    return user_blind_{side}(",
                    f"        blind_nil_context_nb(seat, info, rules, {params.lower()}_nb"
                    "(params), rand)",
                    "    ) != 0",
                    "",
                    "",
                    *_borrowing_shell(f"{pre}blind_{side}_nb", f"blind_{side}_call_nb", BLIND_ARGS),
                ]
        else:
            lines += [
                # inlined where the engine plays: 52 decisions a hand, where a real
                # call cost a tenth to a fifth of the rate (benchmarks/user_policy.py)
                '@njit(inline="always", cache=True)',
                f"def {slot}_nb(hand, legal, seat, info, rules, params, rand):",
                f"    return user_{bare}(",
                "        play_context_nb(",
                f"            hand, legal, seat, info, rules, {params.lower()}_nb(params), rand",
                "        )",
                "    )",
                "",
                "",
            ]
    for kind, slots in (("bid", ("bid_ns", "bid_ew")), ("play", ("play_ns", "play_ew"))):
        if not seated[kind]:
            continue
        for slot in slots:
            if kind == "bid":
                lines += _seated(slot, BID_ARGS) + _seated(f"blind_{slot[4:]}", BLIND_ARGS)
            else:
                lines += _seated(slot, PLAY_ARGS)
    return "\n".join(lines).rstrip() + "\n"


def _write_once(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` unless it holds it already (atomically: a temporary file
    renamed, so a concurrent process never imports half a module). The file is never
    rewritten with the same name: Numba's cache trusts its modification time."""
    if path.exists() and path.read_text() == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.stem, suffix=".tmp")
    with os.fdopen(fd, "w") as handle:
        handle.write(text)
    os.chmod(tmp, 0o644)  # readable as any module is (mkstemp makes it private)
    os.replace(tmp, path)


def kernels_for(policies: Sequence[Any]) -> types.ModuleType:
    """The generated kernel module for a run's four policies (bidding N-S, E-W, play N-S,
    E-W), generated and imported on first use in this process."""
    key = module_key(policies)
    with _LOCK:
        if key in _MODULES:
            return _MODULES[key]
        # the module reads its functions in its own order of the sides, not the run's
        functions = _slot_functions(seating(policies)[0])
        blind = tuple(
            f.blind_nil.compiled
            if f is not None and isinstance(f.blind_nil, UserFunction)
            else None
            for f in functions[:2]
        )
        REGISTRY[key] = (*(f.compiled if f is not None else None for f in functions), *blind)
        path = cache_dir() / f"policies_{key}.py"
        try:
            _write_once(path, source(key, policies))
        except OSError as exc:
            raise OSError(f"{path.parent}: cannot write the policy kernels there ({exc})") from exc
        name = f"spades_sim_policies_{key}"
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # Numba resolves a function's module by name
        spec.loader.exec_module(module)
        _MODULES[key] = module
        return module


def is_policy_kernel(kernel: Any) -> bool:
    """Whether ``kernel`` belongs to a generated module (for the compile notice)."""
    module = getattr(getattr(kernel, "py_func", kernel), "__module__", "")
    return str(module).startswith("spades_sim_policies_")
