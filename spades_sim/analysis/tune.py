"""Tuning a policy's parameters against a baseline in duplicate: :func:`tune`.

Contract
--------
``tune(policy, {"bias": (-3, 3)}, against="count", deals=N, trials=T, study=FILE)``
searches the parameters named for the values with the best **duplicate margin** of the
policy against the baseline: every trial plays the same ``N`` deals (``mode="games"``:
``N`` games) twice, the tuned side North-South then East-West
(:func:`~spades_sim.analysis.compare.duplicate`), so each comparison is paired, and every
trial plays the *same* deals (seed ``seed``), so two trials differ by their parameters
alone. The objective is the tuned side's mean paired score margin per hand.

**What is tuned.** ``policy`` is one bidding or one play policy (its kind from its name,
or ``kind=`` when a name is both, as ``random``), the other seats' other decisions made by
``bidding`` or ``play``; or a whole side, a ``(bidding, play)`` pair (text
``"count/heuristic"``: the policy labels' form), the baseline then a pair too. A
parameter is named plainly, or ``bid.NAME`` / ``play.NAME`` (a pair's parameter both of
its policies have must be named so). A range written in whole numbers (``-3..3``) tries
whole numbers; with a decimal point (``0.0..1.0``) any number; a built-in's parameter
that takes only whole values (:class:`~spades_sim.policies.ParamSpec` ``values``) is
searched over them however its bounds are written: a count as whole numbers, a switch or
an enumerated setting as categories (no order between them). A built-in's range must lie
inside the parameter's own (``spades-sim policies``), and the policy as given must be a
value the search tries (it is the first trial). The parameters not tuned keep the
values ``policy`` gives them. The baseline defaults to ``policy`` as given.

**The study.** The search is Optuna's (TPE, seeded by ``seed``; the ``tune`` extra,
imported only here, on first use), kept in an SQLite file: every finished trial is there,
so an interrupted tuning resumes where it stopped when called again with the same
arguments (``trials`` is the total, not the number to add), and Optuna's own tools
(``optuna-dashboard``, ``optuna.load_study``) read it (study name :data:`STUDY_NAME`).
The first trial of a new study is the policy's own values, so the search never reports
worse than where it started on its own deals; values a trial already measured are not
played again (the same deals give the same margin). The study records what it tunes
(:meth:`TuneSpec.setup`: the distributions exactly); a study file of another setup
(another policy, ranges, baseline, deals, seed, mode or rules) is refused with the first
difference, and so is a file that is not an Optuna SQLite file or holds another tool's
studies: none is ever written. A resumed study's trials left RUNNING by a killed tuning
are marked failed. Ctrl-C or SIGTERM raises while a trial measures; anywhere else (above
all inside Optuna's SQLite commit) it is noted and the search stops after the trial,
then raises the same ``KeyboardInterrupt``. Seeds are 0..2**63-1 as ``simulate``'s.

**The answer.** A search's best is biased upward (it is the maximum of noisy figures), so
:class:`TuneResult` gives the best trial's values with their margin **re-measured on
fresh deals** (seed ``fresh_seed``, ``seed + 1`` by default: a different stream of
deals), with its 95% interval, beside the search's own figure; and a plot of the trials
(:func:`plot_trials`: each trial's margin with its interval and the best so far, and the
margin against each parameter), drawn with matplotlib (the ``report`` extra).

Mistakes in the arguments are one ``ValueError`` line, raised before any file is touched:
a plot path that is the study or not a ``.png`` name, and more deals a trial than the
machine's memory holds (:func:`check_memory`), included.
"""

from __future__ import annotations

import json
import math
import os
import re
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

import numpy as np
import pandas as pd
from tqdm import tqdm

from spades_sim.analysis.compare import Duplicate, duplicate
from spades_sim.analysis.stats import Estimate
from spades_sim.dataset.layout import first_difference, lookup
from spades_sim.policies import Kind, Policy, describe, parse_policy
from spades_sim.policies import lookup as lookup_policy
from spades_sim.rules import Rules
from spades_sim.run.interrupts import deferred_interrupts
from spades_sim.text import policy_text
from spades_sim.validate import check_count

__all__ = [
    "STUDY_NAME",
    "ParamRange",
    "TuneResult",
    "TuneSpec",
    "parse_range",
    "plot_trials",
    "tune",
]

STUDY_NAME: Final = "spades-sim tune"
"""The name of the Optuna study in a study file (``optuna.load_study(study_name=...)``)."""

SETUP_KEY: Final = "spades_sim_tune"
"""The study's user attribute holding :meth:`TuneSpec.setup` (JSON)."""

TUNE_HINT: Final = "pip install 'spades_sim[tune]'"
PLOT_HINT: Final = "pip install 'spades_sim[report]'"
SQLITE_MAGIC: Final = b"SQLite format 3\x00"
SEEDS: Final = 2**63
"""Seeds are 0..2**63-1, as ``simulate``'s; Optuna's sampler takes 0..2**32-1, so it is
seeded with the seed plus the trials done, modulo 2**32 (:func:`_sampler_seed`)."""
PNG_MAGIC: Final = b"\x89PNG\r\n\x1a\n"

Side = tuple[Policy, Policy]
"""A whole side: its bidding policy and its play policy."""


@dataclass(frozen=True)
class ParamRange:
    """One tuned parameter: its name in the study (``bias``, or ``bid.bias`` for a
    side's), the policy kind it belongs to, its bounds, whether only whole numbers are
    tried and whether they are tried as categories (a switch or an enumerated setting,
    whose values have no order a search could follow)."""

    name: str
    kind: Kind
    param: str
    low: float
    high: float
    integer: bool
    categorical: bool = False

    def __post_init__(self) -> None:
        if not (math.isfinite(self.low) and math.isfinite(self.high)):
            raise ValueError(f"--param {self.name}: the range must be finite numbers")
        if not self.low < self.high:
            raise ValueError(
                f"--param {self.name}={self.low:g}..{self.high:g}: the range is empty "
                "(give LO..HI with LO < HI)"
            )

    def text(self) -> str:
        """The search's distribution exactly, in the command line's form: bounds of a
        range of any number as Python writes them (``repr``: two ranges whose texts are
        equal are equal), categories as ``a|b``. A study records these.

        >>> ParamRange("bias", "bid", "bias", -3, 3, True).text()
        'bias=-3..3'
        >>> ParamRange("bias", "bid", "bias", -3, 3, False).text()
        'bias=-3.0..3.0'
        >>> ParamRange("bag_avoid", "play", "bag_avoid", 0, 1, True, True).text()
        'bag_avoid=0|1'
        """
        if self.categorical:
            return f"{self.name}=" + "|".join(str(v) for v in self.choices())
        if self.integer:
            return f"{self.name}={int(self.low)}..{int(self.high)}"
        return f"{self.name}={float(self.low)!r}..{float(self.high)!r}"

    def choices(self) -> list[int]:
        """The whole numbers of the range (the categories of a categorical one)."""
        return list(range(int(self.low), int(self.high) + 1))

    def holds(self, value: float) -> bool:
        """Whether the search can try ``value``."""
        return self.low <= value <= self.high and (not self.integer or value == int(value))


_NUMBER = r"[-+]?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?"
_RANGE = re.compile(rf"\s*([A-Za-z_][\w.-]*)\s*=\s*({_NUMBER})\s*\.\.\s*({_NUMBER})\s*")


def parse_range(text: str) -> tuple[str, float, float, bool]:
    """``NAME=LO..HI`` as ``(name, lo, hi, integer)``; ``integer`` when both bounds are
    written as whole numbers. A malformed text is one ``ValueError``.

    >>> parse_range("bias=-3..3"), parse_range("play.set_push=0.5..6")
    (('bias', -3.0, 3.0, True), ('play.set_push', 0.5, 6.0, False))
    """
    # "-3...3" would read as -3..0.3 (or -3...3): two dots only, never a guess
    found = None if "..." in text else _RANGE.fullmatch(text)
    if found is None:
        raise ValueError(f"--param {text!r}: expected NAME=LO..HI, e.g. bias=-3..3")
    name, lo, hi = found.groups()
    integer = all(re.fullmatch(r"[-+]?\d+", x) for x in (lo, hi))
    return name, float(lo), float(hi), integer


def _infer(value: str | Policy, kind: Kind | None) -> Policy:
    """One bidding or play policy from text, its kind from its name unless given."""
    if isinstance(value, Policy):
        if kind is not None and value.kind != kind:
            raise ValueError(f"policy {value.name!r} is a {value.kind} policy, not a {kind} one")
        return value
    if kind is not None:
        return parse_policy(value, kind)
    found: list[Policy] = []
    errors: list[str] = []
    for k in ("bid", "play"):
        try:
            found.append(parse_policy(value, k))
        except ValueError as exc:
            errors.append(str(exc))
    if len(found) == 2:
        raise ValueError(
            f"{value!r} names a bidding policy and a play policy: say which (kind='bid' or "
            "'play'; --kind on the command line)"
        )
    if not found:
        # a name neither kind knows, or the one kind's complaint (a bad parameter)
        told = [e for e in errors if not e.startswith("unknown ")]
        raise ValueError(told[0] if told else _unknown(value))
    return found[0]


def _unknown(value: str) -> str:
    bids = ", ".join(sorted(_names("bid")))
    plays = ", ".join(sorted(_names("play")))
    return f"unknown policy {value!r} (bidding: {bids}; play: {plays})"


def _names(kind: Kind) -> list[str]:
    return [spec.name for spec in describe(kind)]


def _side(value: str | Policy | Sequence[Any], kind: Kind | None) -> tuple[Side | None, Policy]:
    """``(pair, first)``: a side given as a ``(bidding, play)`` pair (or text
    ``BID/PLAY``) and its bidding policy, or ``(None, policy)`` for one policy."""
    if isinstance(value, (tuple, list)):
        if len(value) != 2:
            raise ValueError("a side is a (bidding, play) pair of policies")
        pair = (_infer(value[0], "bid"), _infer(value[1], "play"))
        return pair, pair[0]
    if isinstance(value, str) and "/" in value:
        try:
            return None, _infer(value, kind)
        except ValueError:
            # "BID/PLAY", a side; a user file's path has slashes too, so each cut is tried
            cuts = [m.start() for m in re.finditer("/", value)]
            for at in cuts:
                try:
                    pair = (_infer(value[:at], "bid"), _infer(value[at + 1 :], "play"))
                except ValueError as exc:
                    why = exc
                    continue
                return pair, pair[0]
            raise ValueError(
                f"{value!r} is neither one policy nor a side BID/PLAY: {why}"
            ) from None
    if not isinstance(value, (str, Policy)):
        raise ValueError(f"a policy is text or a Policy, got {value!r}")
    return None, _infer(value, kind)


@dataclass(frozen=True)
class TuneSpec:
    """Everything that decides a tuning's trials, validated when built
    (:meth:`build` takes the loose arguments of :func:`tune`)."""

    start: Side
    """The tuned side as given: bidding and play policy (the one not tuned is the others')."""
    baseline: Side
    tuned: Literal["bid", "play", "side"]
    space: tuple[ParamRange, ...]
    deals: int
    trials: int
    seed: int = 0
    mode: Literal["hands", "games"] = "hands"
    rules: Rules = field(default_factory=Rules)
    draw: str = "threshold"
    fresh_seed: int | None = None
    fresh_deals: int | None = None

    def __post_init__(self) -> None:
        check_count(self.deals, "deals", 1, "the number of deals (games) each trial plays")
        check_count(self.trials, "trials", 1, "the number of trials")
        for name in ("seed", "fresh_seed"):
            value = getattr(self, name)
            if name == "fresh_seed" and value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < SEEDS:
                # the seeds simulate takes; Optuna's sampler gets one derived from it
                raise ValueError(f"{name}: must be a whole number 0..2**63-1, got {value!r}")
        if self.fresh_seed == self.seed:
            raise ValueError(
                f"fresh_seed: {self.fresh_seed} is the search's own seed; the best is "
                "re-measured on other deals"
            )
        if self.fresh_deals is not None:
            check_count(self.fresh_deals, "fresh_deals", 1, "the deals of the re-measure")
        if self.mode not in ("hands", "games"):
            raise ValueError(f"mode: must be 'hands' or 'games', got {self.mode!r}")
        if not self.space:
            raise ValueError("give one parameter to tune or more (--param NAME=LO..HI)")
        names = [r.name for r in self.space]
        if len(set(names)) != len(names):
            raise ValueError(f"--param {names[0]}: a parameter is given twice")
        if not self.rules.partnerships:
            raise ValueError(
                "rules: tune measures a duplicate margin between two partnerships; "
                "cutthroat (partnerships=false) has none"
            )
        for r in self.space:
            # the first trial is the policy as given: it must be a value the search tries
            policy = self.start[0 if r.kind == "bid" else 1]
            value = float(policy.params[r.param])
            if r.holds(value):
                continue
            if not r.low <= value <= r.high:
                why = f"outside the range searched, {_fmt(r.low)}..{_fmt(r.high)}"
            else:
                why = f"not a whole number, and {_fmt(r.low)}..{_fmt(r.high)} tries whole numbers"
            raise ValueError(
                f"--param {r.name}: the policy as given has {r.param}={value:g}, {why}; the "
                f"first trial is the policy as given: start inside the range "
                f"({policy.name}:{r.param}=...) or widen it"
            )

    @classmethod
    def build(
        cls,
        policy: str | Policy | Sequence[Any],
        params: Mapping[str, tuple[float, float]] | Sequence[str],
        *,
        against: str | Policy | Sequence[Any] | None = None,
        deals: int,
        trials: int,
        kind: Kind | None = None,
        bidding: str | Policy = "count",
        play: str | Policy = "heuristic",
        **rest: Any,
    ) -> TuneSpec:
        """From :func:`tune`'s arguments: policies as text or :class:`Policy`, the ranges
        as ``{"bias": (-3, 3)}`` or ``["bias=-3..3"]``."""
        if kind is not None and kind not in ("bid", "play"):
            raise ValueError(f"kind: must be 'bid' or 'play', got {kind!r}")
        pair, single = _side(policy, kind)
        if pair is None:
            tuned: Literal["bid", "play", "side"] = single.kind  # type: ignore[assignment]
            try:
                common_bid = _infer(bidding, "bid")
            except ValueError as exc:
                raise ValueError(f"--bidding {bidding!r}: {exc}") from None
            try:
                common_play = _infer(play, "play")
            except ValueError as exc:
                raise ValueError(f"--play {play!r}: {exc}") from None
            start = (single, common_play) if single.kind == "bid" else (common_bid, single)
        else:
            tuned, start = "side", pair
        if against is None:
            baseline = start
        else:
            try:
                other_pair, other = _side(against, None if tuned == "side" else tuned)
            except ValueError as exc:
                raise ValueError(f"--against {against!r}: {exc}") from None
            if tuned == "side":
                if other_pair is None:
                    raise ValueError(
                        f"--against {against!r}: a side is tuned, so the baseline is a side "
                        "too (BID/PLAY)"
                    )
                baseline = other_pair
            else:
                if other_pair is not None or other.kind != tuned:
                    raise ValueError(
                        f"--against {against!r}: the baseline of a {tuned} policy is a {tuned} "
                        "policy"
                    )
                baseline = (other, start[1]) if tuned == "bid" else (start[0], other)
        space = _space(start, tuned, params)
        return cls(start, baseline, tuned, space, deals, trials, **rest)

    def policies(self, values: Mapping[str, float]) -> Side:
        """The tuned side with the study's parameter ``values`` set."""
        bid, play = self.start
        by_kind: dict[str, dict[str, float]] = {"bid": {}, "play": {}}
        for r in self.space:
            if r.name in values:
                by_kind[r.kind][r.param] = float(values[r.name])
        if by_kind["bid"]:
            bid = bid.with_params(by_kind["bid"])
        if by_kind["play"]:
            play = play.with_params(by_kind["play"])
        return bid, play

    def start_values(self) -> dict[str, float]:
        """The starting policy's values of the tuned parameters (values the search tries:
        checked when the spec is built)."""
        out: dict[str, float] = {}
        for r in self.space:
            value = float(self.start[0 if r.kind == "bid" else 1].params[r.param])
            out[r.name] = int(value) if r.integer else value
        return out

    def label(self, side: Side) -> str:
        """A side as text (parameters off their defaults only): the tuned policy alone,
        or ``bid/play``."""
        bid, play = (policy_text(p.to_dict(), p.kind) for p in side)
        if self.tuned == "side":
            return f"{bid}/{play}"
        return bid if self.tuned == "bid" else play

    def setup(self) -> dict[str, Any]:
        """What a study of this tuning records and a resume must match (JSON): what is
        tuned, the search's distributions exactly (:meth:`ParamRange.text`), the tuned
        side with its tuned parameters left out (they are the search's), the baseline,
        hands or games and how many, seed, rules and draw policy. In this order: a resume
        names the first difference, so the parameters searched come before the policy
        whose fixed parameters they change."""
        tuned = {(r.kind, r.param) for r in self.space}

        def fixed(p: Policy) -> dict[str, Any]:
            entry = p.to_dict()
            entry["params"] = {k: v for k, v in p.params.items() if (p.kind, k) not in tuned}
            return entry

        return json.loads(
            json.dumps(
                {
                    "tuned": self.tuned,
                    "space": [r.text() for r in self.space],
                    "policy": {"bid": fixed(self.start[0]), "play": fixed(self.start[1])},
                    "against": {
                        "bid": self.baseline[0].to_dict(),
                        "play": self.baseline[1].to_dict(),
                    },
                    "mode": self.mode,
                    "deals": self.deals,
                    "seed": self.seed,
                    "rules": self.rules.to_dict(),
                    "draw": self.draw,
                }
            )
        )

    def measure(self, side: Side, seed: int, n: int, threads: int | None = None) -> Duplicate:
        """The paired duplicate of ``side`` against the baseline on ``n`` deals of ``seed``."""
        common: dict[str, Any] = {
            "seed": seed,
            "mode": self.mode,
            "rules": self.rules,
            "draw": self.draw,
            "threads": threads,
        }
        if self.tuned == "side":
            return duplicate(side, self.baseline, n, kind="side", **common)
        if self.tuned == "bid":
            return duplicate(side[0], self.baseline[0], n, kind="bid", play=side[1], **common)
        return duplicate(side[1], self.baseline[1], n, kind="play", bidding=side[0], **common)


def _space(
    start: Side, tuned: str, params: Mapping[str, tuple[float, float]] | Sequence[str]
) -> tuple[ParamRange, ...]:
    items: list[tuple[str, float, float, bool]] = []
    if isinstance(params, Mapping):
        for name, bounds in params.items():
            try:
                lo, hi = bounds
            except (TypeError, ValueError):
                raise ValueError(f"--param {name}: give its range as (low, high)") from None
            integer = all(
                isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in (lo, hi)
            )
            try:
                items.append((str(name), float(lo), float(hi), integer))
            except (TypeError, ValueError):
                raise ValueError(f"--param {name}: the range must be numbers") from None
    elif isinstance(params, str):
        items.append(parse_range(params))
    else:
        items.extend(parse_range(text) for text in params)
    out = []
    for name, lo, hi, integer in items:
        kind, param = _resolve(start, tuned, name)
        policy = start[0 if kind == "bid" else 1]
        categorical = False
        if policy.is_builtin:
            params_of = lookup_policy(policy.name, policy.kind).params
            spec = next(p for p in params_of if p.name == param)
            if lo < spec.low or hi > spec.high:
                raise ValueError(
                    f"--param {name}={lo:g}..{hi:g}: outside {spec.low:g}..{spec.high:g}, "
                    f"the range of {param} in {kind} policy {policy.name!r}"
                )
            if spec.whole:
                # a count, switch or setting takes whole values only: never a continuous
                # range (a switch's 0.549 is on); a switch's or setting's values have no
                # order, so they are categories
                if lo != int(lo) or hi != int(hi):
                    low, high = math.ceil(lo), math.floor(hi)
                    if spec.values != "whole" or not low < high:
                        low, high = int(spec.low), int(spec.high)
                    raise ValueError(
                        f"--param {name}={lo:g}..{hi:g}: {param} {spec.takes()}; give whole "
                        f"bounds ({name}={low}..{high})"
                    )
                integer, categorical = True, spec.values in ("switch", "choice")
        shown = f"{kind}.{param}" if tuned == "side" else param
        out.append(ParamRange(shown, kind, param, lo, hi, integer, categorical))  # type: ignore[arg-type]
    return tuple(out)


def _resolve(start: Side, tuned: str, name: str) -> tuple[str, str]:
    """``(kind, parameter)`` of a tuned parameter's name; an unknown one is one line
    listing the parameters there are."""
    kinds = ["bid", "play"] if tuned == "side" else [tuned]
    prefix, dot, rest = name.partition(".")
    if dot and prefix in ("bid", "play"):
        if prefix not in kinds:
            raise ValueError(f"--param {name}: the {prefix} policy is not the one tuned")
        kinds, name = [prefix], rest
    having = [k for k in kinds if name in start[0 if k == "bid" else 1].params]
    if len(having) == 1:
        return having[0], name
    if len(having) == 2:
        raise ValueError(
            f"--param {name}: both policies of the side have it; write bid.{name} or play.{name}"
        )
    known = [
        (f"{k}.{p}" if tuned == "side" else p)
        for k in kinds
        for p in start[0 if k == "bid" else 1].params
    ]
    policy = " and ".join(start[0 if k == "bid" else 1].name for k in kinds)
    raise ValueError(
        f"--param {name}: {policy} has no parameter {name!r} "
        f"(parameters: {', '.join(known) or 'none'})"
    )


@dataclass(frozen=True)
class TuneResult:
    """What :func:`tune` found: the best trial's values, its margin on the search's own
    deals and re-measured on fresh ones, every trial, and where the study and plot are."""

    spec: TuneSpec
    best_params: dict[str, float]
    best: Side
    search: Estimate
    """The best trial's margin on the search's deals (biased upward: it is a maximum)."""
    fresh: Estimate
    """The best values' margin re-measured on fresh deals: the figure to believe."""
    fresh_wins: Estimate | None
    trials: pd.DataFrame
    study: Path
    plot: Path | None
    ran: int
    """Trials this call ran (the rest were in the study already)."""

    def lines(self) -> list[str]:
        """The answer as lines of text (what ``spades-sim tune`` prints)."""
        spec = self.spec
        unit = "games" if spec.mode == "games" else "deals"
        fresh_seed, fresh_deals = _fresh(spec)
        done = int((self.trials["state"] == "COMPLETE").sum())
        values = ", ".join(f"{k}={_fmt(v)}" for k, v in self.best_params.items())
        out = [
            f"best of {done} trials ({self.ran} run now): {values}",
            f"  {spec.label(self.best)} against {spec.label(spec.baseline)}",
            f"  margin a hand on the {spec.deals} {unit} searched (seed {spec.seed}): "
            f"{self.search}",
            *self._start_line(),
            f"  re-measured on {fresh_deals} fresh {unit} (seed {fresh_seed}): {self.fresh}",
        ]
        if self.fresh_wins is not None:
            out.append(f"  win rate on the fresh games: {self.fresh_wins}")
        out.append(f"study {self.study} (Optuna, study name {STUDY_NAME!r})")
        if self.plot is not None:
            out.append(f"plot {self.plot}")
        return out

    def _start_line(self) -> list[str]:
        """The policy as given, as the search measured it (its first trial), if it was."""
        start = self.spec.start_values()
        done = self.trials[self.trials["state"] == "COMPLETE"]
        same = np.ones(len(done), dtype=bool)
        for name, value in start.items():
            same &= done[name].to_numpy(dtype=float) == float(value)
        if not same.any():
            return []
        row = done[same].iloc[0]
        measured = Estimate(
            float(row["margin"]), float(row["ci_low"]), float(row["ci_high"]), int(row["n"])
        )
        return [f"  the policy as given ({self.spec.label(self.spec.start)}) there: {measured}"]

    def __str__(self) -> str:
        return "\n".join(self.lines())


def _fmt(value: float) -> str:
    return f"{value:g}"


def _fresh(spec: TuneSpec) -> tuple[int, int]:
    seed = spec.fresh_seed if spec.fresh_seed is not None else (spec.seed + 1) % SEEDS
    return seed, spec.fresh_deals or spec.deals


def require_optuna() -> Any:
    """The ``optuna`` module (the ``tune`` extra), or one ``ValueError`` saying how to
    install it."""
    try:
        # optuna (and SQLAlchemy under it) only when a tuning runs: it is an extra
        import optuna
    except ImportError:
        raise ValueError(f"tune needs optuna, which is not installed: {TUNE_HINT}") from None
    # the progress bar says how it goes, and a trial stopped by Ctrl-C is not a warning
    # with a traceback (Optuna logs one): what goes wrong in a trial is raised anyway
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    return optuna


def require_pyplot() -> Any:
    """``matplotlib.pyplot`` on the Agg backend, or one ``ValueError`` saying how to get
    it (the ``report`` extra)."""
    try:
        # matplotlib only when a plot is drawn (about a second to import)
        import matplotlib
    except ImportError:
        raise ValueError(
            f"tune draws its plot with matplotlib, which is not installed: {PLOT_HINT} "
            "(or plot=False / --no-plot)"
        ) from None
    matplotlib.use("Agg", force=True)  # no display: render straight to a PNG
    # pyplot after the backend is chosen (importing it first picks one)
    import matplotlib.pyplot as plt

    return plt


def check_study_file(path: Path) -> bool:
    """Whether ``path`` holds a study file already (False: it will be created). A path
    that is a directory, a file that is not SQLite, or an SQLite file that is not an
    Optuna storage is one ``ValueError``: it is never written."""
    if path.is_dir():
        raise ValueError(f"--study {path}: is a directory; give a file")
    if not path.exists():
        if not path.parent.is_dir():
            raise ValueError(f"--study {path}: the directory {path.parent} does not exist")
        return False
    try:
        with path.open("rb") as f:
            head = f.read(len(SQLITE_MAGIC))
    except OSError as exc:
        raise ValueError(f"--study {path}: cannot be read ({exc.strerror})") from None
    if head != SQLITE_MAGIC:
        raise ValueError(
            f"--study {path}: not a study file (not SQLite); give a new file or one tune wrote"
        )
    try:
        with sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True) as db:
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
    except sqlite3.Error as exc:
        raise ValueError(f"--study {path}: an unreadable SQLite file ({exc})") from None
    if not {"studies", "trials", "version_info"} <= tables:
        raise ValueError(
            f"--study {path}: an SQLite file but not an Optuna study file; give a new file "
            "or one tune wrote"
        )
    return True


BYTES_A_HAND: Final = 1000
"""Memory a trial holds for each hand it plays, rounded up: its rows in both seatings
and the paired margins (the peak resident size grew by about 590 bytes a hand over
``duplicate("count:bias=1", "count", 400_000, kind="bid")``)."""


def check_memory(spec: TuneSpec) -> None:
    """Refuse a trial (or re-measure) of more hands than this machine's memory holds: a
    game plays one hand at least. One ``ValueError`` naming the option."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return  # no sysconf (Windows): the measure itself will say
    unit = "games" if spec.mode == "games" else "deals"
    _, fresh = _fresh(spec)
    for option, n in ((f"--{unit}", spec.deals), ("--fresh", fresh)):
        if n * BYTES_A_HAND > total:
            raise ValueError(
                f"{option} {n}: more than this machine can hold ({total / 2**30:.1f} GiB "
                f"of memory; a trial keeps about {BYTES_A_HAND} bytes a hand): give at most "
                f"{total // BYTES_A_HAND} {unit}"
            )


def check_plot_file(path: Path, study: Path) -> None:
    """A plot is written only as a ``.png`` file, over a PNG (one tune drew, or another)
    or a new file, and never over the study."""
    if path.resolve() == study.resolve() or (
        path.exists() and study.exists() and path.samefile(study)
    ):
        raise ValueError(
            f"--plot {path}: is the study file {study} (the plot's default is the study's "
            "name with .png); drawing it would replace every trial: give another --plot "
            "or --study, or --no-plot"
        )
    if path.suffix.lower() != ".png":
        raise ValueError(f"--plot {path}: the plot is a PNG image; give a name ending in .png")
    if path.is_dir():
        raise ValueError(f"--plot {path}: is a directory; give a file")
    if path.exists():
        with path.open("rb") as f:
            if f.read(len(PNG_MAGIC)) != PNG_MAGIC:
                raise ValueError(f"--plot {path}: exists and is not a PNG image; not replaced")
    elif not path.parent.is_dir():
        raise ValueError(f"--plot {path}: the directory {path.parent} does not exist")


def _open_study(spec: TuneSpec, path: Path, exists: bool) -> Any:
    """The study in ``path``: created (its setup recorded, the start values queued) or
    loaded and checked against ``spec`` (every check before the first write), its
    trials left running by a killed tuning then marked failed."""
    optuna = require_optuna()
    storage = optuna.storages.RDBStorage(f"sqlite:///{path.resolve()}")
    setup = spec.setup()
    if exists:
        names = [s.study_name for s in optuna.study.get_all_study_summaries(storage)]
        if STUDY_NAME in names:
            study = optuna.load_study(study_name=STUDY_NAME, storage=storage)
            stored = study.user_attrs.get(SETUP_KEY)
            if not isinstance(stored, dict):
                raise ValueError(
                    f"--study {path}: its study {STUDY_NAME!r} was not made by tune; give "
                    "another file"
                )
            where = first_difference(stored, setup)
            if where is not None:
                raise ValueError(
                    f"--study {path}: a study of {_setup_text(stored)}, not of this tuning "
                    f"({_difference(stored, setup, where)}); give another --study file"
                )
            # a trial still RUNNING was cut off by a kill (nothing else runs the study):
            # failed, so it is neither counted nor looked up; it is run again
            running = study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.RUNNING,))
            study_id = storage.get_study_id_from_name(STUDY_NAME)
            for trial in running:
                trial_id = storage.get_trial_id_from_study_id_trial_number(study_id, trial.number)
                storage.set_trial_state_values(trial_id, optuna.trial.TrialState.FAIL)
            # seeded by the seed and the trials there: a resumed search repeats too
            study.sampler = optuna.samplers.TPESampler(
                seed=_sampler_seed(spec.seed, len(study.trials))
            )
            return study
        if names:
            raise ValueError(
                f"--study {path}: an Optuna storage holding another tool's studies "
                f"({', '.join(map(repr, names))}), not tune's; give a new file"
            )
    sampler = optuna.samplers.TPESampler(seed=_sampler_seed(spec.seed, 0))
    study = optuna.create_study(
        study_name=STUDY_NAME, storage=storage, direction="maximize", sampler=sampler
    )
    study.set_user_attr(SETUP_KEY, setup)
    study.enqueue_trial(spec.start_values())
    return study


def _sampler_seed(seed: int, done: int) -> int:
    """Optuna's sampler seed (0..2**32-1) for a study of ``seed`` with ``done`` trials."""
    return (seed + done) % 2**32


def _difference(stored: Mapping[str, Any], setup: Mapping[str, Any], where: str) -> str:
    """The first difference between a study's setup and this tuning's, in the command
    line's words: ``--param: bias=-3..3 there, ... now``, ``--deals 500 there, --games
    50 now``."""
    if where.startswith("space"):
        before = " ".join(map(str, stored.get("space", [])))
        return f"--param: {before} there, {' '.join(setup['space'])} now"
    if where in ("mode", "deals"):

        def amount(s: Mapping[str, Any]) -> str:
            option = "--games" if s.get("mode") == "games" else "--deals"
            return f"{option} {s.get('deals')}"

        return f"{amount(stored)} there, {amount(setup)} now"
    before, now = json.dumps(lookup(stored, where)), json.dumps(lookup(setup, where))
    return f"{where}: {before} there, {now} now"


def _setup_text(setup: Mapping[str, Any]) -> str:
    """A stored setup in a few words: the policy tuned and its ranges."""
    try:
        kinds = ["bid", "play"] if setup["tuned"] == "side" else [setup["tuned"]]
        name = "/".join(str(setup["policy"][k]["name"]) for k in kinds)
        return f"{name} ({', '.join(setup['space'])})"
    except (KeyError, TypeError):
        return "another tuning"


def _suggest(trial: Any, r: ParamRange) -> float:
    if r.categorical:
        return float(trial.suggest_categorical(r.name, r.choices()))
    if r.integer:
        return float(trial.suggest_int(r.name, int(r.low), int(r.high)))
    return float(trial.suggest_float(r.name, r.low, r.high))


def _trials_frame(study: Any, spec: TuneSpec) -> pd.DataFrame:
    rows = []
    for t in study.trials:
        row: dict[str, Any] = {
            "number": t.number,
            "state": t.state.name,
            "margin": t.value if t.value is not None else np.nan,
            "ci_low": t.user_attrs.get("ci_low", np.nan),
            "ci_high": t.user_attrs.get("ci_high", np.nan),
            "n": t.user_attrs.get("n", 0),
        }
        for r in spec.space:
            row[r.name] = t.params.get(r.name, np.nan)
        rows.append(row)
    columns = ["number", "state", "margin", "ci_low", "ci_high", "n", *(r.name for r in spec.space)]
    return pd.DataFrame(rows, columns=columns)


def plot_trials(
    trials: pd.DataFrame, space: Sequence[ParamRange], path: Path, title: str = ""
) -> Path:
    """Draw the trials as a PNG: each finished trial's margin with its 95% interval and
    the best so far, then the margin against each tuned parameter (coloured by trial
    number, later trials lighter)."""
    plt = require_pyplot()
    done = trials[trials["state"] == "COMPLETE"].sort_values("number")
    panels = 1 + len(space)
    fig, axes = plt.subplots(1, panels, figsize=(4.2 * panels, 3.4), squeeze=False)
    ax = axes[0][0]
    x = done["number"].to_numpy()
    y = done["margin"].to_numpy(dtype=float)
    err = np.vstack([y - done["ci_low"].to_numpy(float), done["ci_high"].to_numpy(float) - y])
    ax.errorbar(x, y, yerr=err, fmt="o", ms=3, lw=0.8, color="#4472c4", label="trial (95% CI)")
    if len(y):
        ax.step(x, np.maximum.accumulate(y), where="post", color="#c00000", label="best so far")
    ax.axhline(0, color="grey", lw=0.6)
    ax.set_xlabel("trial")
    ax.set_ylabel("margin a hand vs baseline")
    ax.legend(fontsize=7)
    for k, r in enumerate(space, start=1):
        ax = axes[0][k]
        values = done[r.name].to_numpy(dtype=float)
        ax.scatter(values, y, s=12, c=x, cmap="viridis")
        ax.axhline(0, color="grey", lw=0.6)
        ax.set_xlabel(r.name)
        ax.set_xlim(r.low - 0.05 * (r.high - r.low), r.high + 0.05 * (r.high - r.low))
        ax.set_title("colour: trial number", fontsize=7)
    if title:
        fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, format="png", dpi=100)
    plt.close(fig)
    return path


def tune(
    policy: str | Policy | Sequence[Any],
    params: Mapping[str, tuple[float, float]] | Sequence[str],
    *,
    against: str | Policy | Sequence[Any] | None = None,
    deals: int,
    trials: int,
    study: str | os.PathLike[str],
    kind: Kind | None = None,
    mode: Literal["hands", "games"] = "hands",
    seed: int = 0,
    fresh_seed: int | None = None,
    fresh_deals: int | None = None,
    rules: Rules | None = None,
    bidding: str | Policy = "count",
    play: str | Policy = "heuristic",
    draw: str = "threshold",
    threads: int | None = None,
    plot: str | os.PathLike[str] | bool = True,
    progress: bool = False,
    on_trial: Callable[[int, float], Any] | None = None,
) -> TuneResult:
    """Search ``policy``'s parameters ``params`` for the best duplicate margin against
    ``against`` (module docstring), in the study file ``study``; ``plot=True`` draws the
    trials beside it (``study`` with the suffix ``.png``), a path there, False none.
    ``on_trial(number, margin)`` is called after each trial this call runs.

    >>> import tempfile, pathlib
    >>> where = pathlib.Path(tempfile.mkdtemp())
    >>> r = tune("count:bias=2", {"bias": (-3, 2)}, against="count", deals=200, trials=8,
    ...          study=where / "s.db", plot=False)
    >>> r.best_params, r.fresh.value
    ({'bias': 0.0}, 0.0)
    """
    spec = TuneSpec.build(
        policy,
        params,
        against=against,
        deals=deals,
        trials=trials,
        kind=kind,
        bidding=bidding,
        play=play,
        seed=seed,
        mode=mode,
        rules=rules if rules is not None else Rules(),
        draw=draw,
        fresh_seed=fresh_seed,
        fresh_deals=fresh_deals,
    )
    # Path("") is ".": an empty name would be taken for the working directory
    if os.fspath(study) == "":
        raise ValueError("--study: the file name is empty; give the study's file")
    if not isinstance(plot, bool) and os.fspath(plot) == "":
        raise ValueError("--plot: the file name is empty; give a .png file (or --no-plot)")
    study_path = Path(study)
    plot_path: Path | None
    if plot is True:
        plot_path = study_path.with_suffix(".png")
    elif plot is False:
        plot_path = None
    else:
        plot_path = Path(plot)
    # every check before the first write: a mistake leaves every file as it was
    check_memory(spec)
    require_optuna()
    exists = check_study_file(study_path)
    if plot_path is not None:
        require_pyplot()
        check_plot_file(plot_path, study_path)
    with deferred_interrupts() as noted:
        # Ctrl-C or SIGTERM raises only while a trial measures (nothing half written);
        # elsewhere, above all inside the study's SQLite commits (creating it, starting or
        # finishing a trial), where an exception leaves a trial RUNNING for ever, it is
        # noted: the search stops after the trial, and it is raised once out of here
        opened = _open_study(spec, study_path, exists)
        complete = [t for t in opened.trials if t.state.name == "COMPLETE"]
        remaining = max(0, spec.trials - len(complete))

        def objective(trial: Any) -> float:
            values = {r.name: _suggest(trial, r) for r in spec.space}
            for seen in opened.trials:
                # the same values on the same deals give the same margin: not played again
                if seen.state.name == "COMPLETE" and seen.params == trial.params:
                    for key, value in seen.user_attrs.items():
                        trial.set_user_attr(key, value)
                    return float(seen.value)
            with noted.raising():
                result = spec.measure(spec.policies(values), spec.seed, spec.deals, threads)
            trial.set_user_attr("ci_low", result.margin.low)
            trial.set_user_attr("ci_high", result.margin.high)
            trial.set_user_attr("n", result.margin.n)
            if result.wins is not None:
                trial.set_user_attr("win_rate", result.wins.value)
            return float(result.margin.value)

        bar = tqdm(
            total=spec.trials,
            initial=len(complete),
            unit=" trials",
            desc="tune",
            dynamic_ncols=True,
            leave=False,
            disable=not progress,
        )

        def after(study_: Any, trial: Any) -> None:
            if noted.signal_number is not None:
                study_.stop()
            bar.update()
            if trial.value is not None:
                bar.set_postfix_str(f"best {study_.best_value:+.2f}")
                if on_trial is not None:
                    on_trial(trial.number, float(trial.value))

        with bar:
            if remaining and noted.signal_number is None:
                opened.optimize(objective, n_trials=remaining, callbacks=[after])
    noted.check()
    best_trial = opened.best_trial
    best_values = {r.name: float(best_trial.params[r.name]) for r in spec.space}
    best = spec.policies(best_values)
    search = Estimate(
        float(best_trial.value),
        float(best_trial.user_attrs.get("ci_low", np.nan)),
        float(best_trial.user_attrs.get("ci_high", np.nan)),
        int(best_trial.user_attrs.get("n", spec.deals)),
    )
    fresh_seed_, fresh_deals_ = _fresh(spec)
    again = spec.measure(best, fresh_seed_, fresh_deals_, threads)
    table = _trials_frame(opened, spec)
    if plot_path is not None:
        title = f"{spec.label(spec.start)} against {spec.label(spec.baseline)}, {spec.deals} "
        title += "games" if spec.mode == "games" else "deals"
        plot_trials(table, spec.space, plot_path, title)
    return TuneResult(
        spec=spec,
        best_params=best_values,
        best=best,
        search=search,
        fresh=again.margin,
        fresh_wins=again.wins,
        trials=table,
        study=study_path,
        plot=plot_path,
        ran=remaining,
    )
