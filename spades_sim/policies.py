"""Policy names, parameters and the registry; user-written policies.

A policy is a name plus numeric parameters (docs/architecture.md "Data contracts"). Built-in
policies are dispatched inside the kernel by integer id, with a float64 parameter vector, so
a parameter sweep never recompiles. A policy is given as text (``"count"``,
``"count:bias=0.5,nil_threshold=2"``; user code as ``path/to/file.py:my_bid[:k=v,...]`` or
``package.module:my_bid``), as a :class:`Policy`, or as a function of one context
(``spades_sim.nb.bidder`` / ``player`` make the policy; ``spades_sim.custom`` runs it).

>>> parse_policy("count:bias=0.5", "bid").params["bias"]
0.5
>>> parse_policy("random", "play").name
'random'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from spades_sim._nb.enums import COUNT_DEFAULTS, PARAM_SLOTS, SEATED_BIDS
from spades_sim.custom.function import (
    UserFunction,
    function_of,
    is_reference,
    load_reference,
    user_function,
)
from spades_sim.policy_table import BUILTINS, Kind, ParamSpec, ParamValues, PolicySpec, names_with


@dataclass(frozen=True)
class Policy:
    """A chosen policy: a built-in name with parameter values, or a user-written function
    of one context (``spades_sim.nb.bidder``/``player`` make one) with its parameters.

    >>> Policy.of("count", "bid", {"bias": -0.5}).params["bias"]
    -0.5
    >>> Policy.of("count", "bid").with_params(bias=1).to_text()
    'count:bias=1,nil_threshold=2.5,blind_nil_deficit=200,blind_nil_max_bags=7,blind_nil_partner_min=3,blind_nil_before_partner=1,nil_partner_min=2,round_up=0.5,blind_nil_opp_within=100,king_value=1,spade_length=4,short_value=1'
    """

    kind: Kind
    name: str
    params: Mapping[str, float] = field(default_factory=dict)
    function: UserFunction | None = None

    @classmethod
    def of(cls, name: str, kind: Kind, params: Mapping[str, Any] | None = None) -> Policy:
        """A built-in policy by name with some parameters set (the rest default)."""
        spec = lookup(name, kind)
        values = {p.name: p.default for p in spec.params}
        for key, value in (params or {}).items():
            param = next((p for p in spec.params if p.name == key), None)
            if param is None:
                known = ", ".join(p.name for p in spec.params) or "none"
                raise ValueError(
                    f"{kind} policy {name!r} has no parameter {key!r} (parameters: {known})"
                )
            try:
                number = float(value)
            except (TypeError, ValueError):
                raise ValueError(
                    f"{kind} policy {name!r}: parameter {key} must be a number, got {value!r}"
                ) from None
            why = param.check(number)
            if why is not None:
                raise ValueError(f"{kind} policy {name!r}: parameter {why}")
            values[key] = number
        return cls(kind=kind, name=name, params=values)

    @classmethod
    def custom(
        cls,
        function: Callable[..., Any],
        kind: Kind,
        params: Mapping[str, Any] | None = None,
        name: str | None = None,
        blind_nil: Callable[..., Any] | str | None = None,
    ) -> Policy:
        """A user-written policy: ``function`` of one context (``ctx.params.<name>`` reads
        ``params``, declared here with their default values). ``spades_sim.nb.bidder`` and
        ``spades_sim.nb.player`` are the decorator forms; ``blind_nil`` as there."""
        if kind not in ("bid", "play"):
            raise ValueError(
                f"user-written {kind} policies are not supported: the {kind} decision is a "
                "built-in's (it never reads another policy's parameters)"
            )
        values = _numbers(dict(params or {}), f"{kind} policy {name or function!r}")
        fn = user_function(function, kind, tuple(values), blind_nil)
        return cls(kind=kind, name=name or fn.qualname, params=values, function=fn)

    @property
    def is_builtin(self) -> bool:
        return self.function is None

    def with_params(self, values: Mapping[str, Any] | None = None, **more: Any) -> Policy:
        """The same policy with some parameters changed (checked as at creation); the
        kernels read parameters at run time, so nothing is compiled again."""
        changes = {**(values or {}), **more}
        if self.is_builtin:
            return Policy.of(self.name, self.kind, {**self.params, **changes})
        unknown = [k for k in changes if k not in self.params]
        if unknown:
            known = ", ".join(self.params) or "none"
            raise ValueError(
                f"{self.kind} policy {self.name!r} has no parameter {unknown[0]!r} "
                f"(parameters: {known})"
            )
        new = {**self.params, **_numbers(changes, f"{self.kind} policy {self.name!r}")}
        return Policy(self.kind, self.name, new, self.function)

    def lower(self) -> np.ndarray:
        """The float64 parameter vector the kernel reads: a built-in's id in slot 0 and its
        parameters after it; a user policy's parameters from slot 0, in declared order."""
        out = np.zeros(PARAM_SLOTS, dtype=np.float64)
        values = list(self.params.values())
        if self.is_builtin:
            out[0] = lookup(self.name, self.kind).policy_id
            out[1 : 1 + len(values)] = values
        else:
            out[: len(values)] = values
        return out

    def to_text(self) -> str:
        """The policy as text, e.g. ``count:bias=0.5,nil_threshold=1``."""
        if not self.params:
            return self.name
        return self.name + ":" + ",".join(f"{k}={v:g}" for k, v in self.params.items())

    def to_dict(self) -> dict[str, Any]:
        """What a run's manifest records: for a user policy also where its code lives and
        the digest of that code (a resume refuses changed code)."""
        out = {"name": self.name, "params": dict(self.params), "builtin": self.is_builtin}
        if self.function is not None:
            out["module"] = self.function.origin
            out["function"] = self.function.qualname
            out["code_sha256"] = self.function.digest
        return out

    @classmethod
    def from_dict(cls, entry: Mapping[str, Any], kind: Kind) -> Policy:
        """The policy a manifest entry (:meth:`to_dict`) records; a user policy is loaded
        from its code again and refused if that code changed."""
        if entry.get("builtin", True):
            return cls.of(entry["name"], kind, entry.get("params") or {})
        origin, qualname = entry.get("module"), entry.get("function")
        if not origin or not qualname:
            raise ValueError(
                f"the {kind} policy {entry.get('name')!r} was user-written and its code is "
                "not recorded; give it again"
            )
        from_code = parse_policy(load_reference(f"{origin}:{qualname}"), kind)
        if from_code.function is None or from_code.function.digest != entry.get("code_sha256"):
            raise ValueError(
                f"the {kind} policy {origin}:{qualname} changed since the run (its code digest "
                "differs from the recorded one)"
            )
        return from_code.with_params(entry.get("params") or {})


def _numbers(values: Mapping[str, Any], what: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for key, value in values.items():
        try:
            out[str(key)] = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"{what}: parameter {key} must be a number, got {value!r}") from None
    return out


_REGISTRY: dict[tuple[str, str], PolicySpec] = {}


def register(spec: PolicySpec) -> PolicySpec:
    """Add a built-in policy to the registry (this module adds every one of
    ``policy_table.BUILTINS`` at import)."""
    _REGISTRY[(spec.kind, spec.name)] = spec
    return spec


def lookup(name: str, kind: Kind) -> PolicySpec:
    """The built-in policy of this kind and name; unknown names raise ``ValueError``."""
    spec = _REGISTRY.get((kind, name))
    if spec is None:
        known = ", ".join(sorted(n for k, n in _REGISTRY if k == kind))
        raise ValueError(f"unknown {kind} policy {name!r} (known: {known})")
    return spec


def parse_policy(value: str | Policy | Callable[..., Any], kind: Kind) -> Policy:
    """A policy from text ``name[:param=value,...]``, a :class:`Policy` or an @njit function.

    >>> parse_policy("random:nil_rate=0.2", "bid").params["nil_rate"]
    0.2
    """
    if isinstance(value, Policy):
        if value.kind != kind:
            raise ValueError(f"policy {value.name!r} is a {value.kind} policy, not a {kind} one")
        return value
    if isinstance(value, UserFunction) or callable(value):
        function = function_of(value, kind)
        if function.kind != kind:
            raise ValueError(f"{function.qualname} is a {function.kind} policy, not a {kind} one")
        return Policy(kind, function.qualname, dict.fromkeys(function.param_names, 0.0), function)
    if not isinstance(value, str):
        raise ValueError(f"a {kind} policy must be a name or a function, got {value!r}")
    text = value.strip()
    if is_reference(text):  # user code: path/to/file.py:name[:params] or module:name[:params]
        where, _, rest = text.partition(":")
        name, _, rest = rest.partition(":")
        found = parse_policy(load_reference(f"{where}:{name}"), kind)
        return found.with_params(_param_text(rest, kind, value)) if rest else found
    name, _, rest = text.partition(":")
    return Policy.of(name.strip(), kind, _param_text(rest, kind, value))


def _param_text(rest: str, kind: str, value: str) -> dict[str, str]:
    params: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, eq, text = item.partition("=")
        if not eq:
            raise ValueError(f"{kind} policy {value!r}: expected param=value, got {item!r}")
        if key.strip() in params:
            raise ValueError(f"{kind} policy {value!r}: parameter {key.strip()} is given twice")
        params[key.strip()] = text.strip()
    return params


# The bidders a sampling player's kernel evaluates from a hand (``_nb/rollout.py``,
# "Worlds that fit the bids"); ``random`` is passed on too: its seat is not read.
_READABLE_BIDDERS = names_with("bid", "readable")


def assumed_bidder(policy: Policy) -> np.ndarray:
    """The bidder row a sampling player that assumes the seated bidders (``assume=3``)
    reads a seat's bids by when ``policy`` bids there: the policy's own vector for a
    built-in the kernels evaluate (``count``, ``pagat``, ``partner-aware``, with its
    parameters; ``random``, whose seat is then not read), else ``count``'s defaults (a
    ``monte-carlo`` or user-written bidder: its bids depend on rollouts or on code no
    kernel of the sampling players can call)."""
    if policy.is_builtin and policy.name in _READABLE_BIDDERS:
        return policy.lower()
    return COUNT_DEFAULTS.copy()


def seated_bidders(rows: np.ndarray, bidders: list[Policy] | tuple[Policy, ...]) -> np.ndarray:
    """``rows`` (parameter vectors, ``PARAM_SLOTS`` each) with the bidders seated at seats
    0..3 after each (``_nb.enums.SEATED_BIDS``, :func:`assumed_bidder`): the rows a run's
    kernels read. ``bidders`` is one a seat, or two (N-S, E-W: seat s bids with
    ``bidders[s & 1]``, as the kernels seat them)."""
    tail = np.concatenate([assumed_bidder(bidders[s % len(bidders)]) for s in range(4)])
    out = np.zeros((rows.shape[0], SEATED_BIDS + tail.shape[0]), dtype=np.float64)
    out[:, :PARAM_SLOTS] = rows
    out[:, SEATED_BIDS:] = tail
    return out


def describe(kind: Kind | None = None) -> list[PolicySpec]:
    """Every built-in policy (of one kind, or all) with its parameters and source.

    >>> [spec.name for spec in describe("play")][:1]
    ['random']
    """
    return [spec for (k, _), spec in _REGISTRY.items() if kind is None or k == kind]


_INTRO = """\
A policy is a name with numeric parameters: `"count"`, `"count:bias=0.5,nil_threshold=2"`,
or `Policy.of("count", "bid", {"bias": 0.5})`. `simulate_hands`/`simulate_games` (and the
CLI) take one policy for every seat or one per side, `("heuristic", "random")` or
`{"ns": ..., "ew": ...}`; parameters are read by the compiled kernel at run time, so a
sweep never recompiles. A policy of your own is a function of one context, made a policy
by `spades_sim.nb.bidder` or `spades_sim.nb.player` (see "Your own policies" below); it
runs wherever a built-in does. A parameter's range in the tables below says what it
takes: any number in `low .. high`, a whole number in `low .. high whole` (a count), or
one of the values listed (`0, 1` a switch; `0, 1, 2, 3` an enumerated setting); any other
value is refused with the values it takes. Every policy sees only its own cards and the
public table state. `spades_sim.analysis.duplicate` compares two policies on the same deals with the
sides swapped; `benchmarks/strength.py` measures them."""


def markdown() -> str:
    """Every built-in policy as Markdown: per kind, a section per policy with its summary,
    source and a table of parameters (docs/policies.md's policy section is this text).

    >>> "| `bias` |" in markdown()
    True
    """
    titles = {"bid": "Bidding policies", "play": "Play policies", "draw": "Draw policies"}
    lines: list[str] = ["## Policies", "", *_INTRO.splitlines(), ""]
    for kind in ("bid", "play", "draw"):
        lines += [f"### {titles[kind]} (`{kind}`)", ""]
        for spec in describe(kind):
            lines += [f"#### `{spec.name}`", "", spec.summary, "", f"*Source:* {spec.source}", ""]
            if spec.params:
                lines += ["| parameter | default | range | meaning |", "|---|---|---|---|"]
                for p in spec.params:
                    span = p.range_text(" .. ")
                    lines.append(f"| `{p.name}` | {p.default:g} | {span} | {p.help} |")
            else:
                lines.append("No parameters.")
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


for _builtin in BUILTINS:
    register(_builtin)

__all__ = [
    "Kind",
    "ParamSpec",
    "ParamValues",
    "Policy",
    "PolicySpec",
    "assumed_bidder",
    "describe",
    "lookup",
    "markdown",
    "parse_policy",
    "register",
    "seated_bidders",
]
