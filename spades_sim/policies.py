"""Policy names, parameters and the registry; user-written policies.

A policy is a name plus numeric parameters (DESIGN.md "Policies"). Built-in policies are
dispatched inside the kernel by integer id, with a float64 parameter vector, so a
parameter sweep never recompiles. A policy is given as text (``"count"``,
``"count:bias=0.5,nil_threshold=2"``), as a :class:`Policy`, or, for a user-written policy,
as an ``@njit`` function with the documented signature (see ``spades_sim._nb.policies``):

    bid(hand, seat, info, rules, params, rand) -> int          # 0..13, 0 = nil
    play(hand, legal, seat, info, rules, params, rand) -> int  # a card id in legal

>>> parse_policy("count:bias=0.5", "bid").params["bias"]
0.5
>>> parse_policy("random", "play").name
'random'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from spades_sim._nb import layout as L

Kind = Literal["bid", "play", "draw"]
PARAM_SLOTS = 16  # length of every lowered parameter vector (slot 0: the built-in id)


@dataclass(frozen=True)
class ParamSpec:
    """One numeric parameter of a policy: its default, allowed range and meaning."""

    name: str
    default: float
    low: float
    high: float
    help: str


@dataclass(frozen=True)
class PolicySpec:
    """A built-in policy: kernel id, parameters, and where its idea comes from."""

    kind: Kind
    name: str
    policy_id: int
    params: tuple[ParamSpec, ...]
    summary: str
    source: str


@dataclass(frozen=True)
class Policy:
    """A chosen policy: a built-in name with parameter values, or a user ``@njit`` function.

    >>> Policy.of("count", "bid", {"bias": -0.5}).params["bias"]
    -0.5
    """

    kind: Kind
    name: str
    params: Mapping[str, float] = field(default_factory=dict)
    function: Callable[..., Any] | None = None

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
            if not param.low <= number <= param.high:
                raise ValueError(
                    f"{kind} policy {name!r}: parameter {key}={number:g} is outside "
                    f"{param.low:g}..{param.high:g}"
                )
            values[key] = number
        return cls(kind=kind, name=name, params=values)

    @classmethod
    def custom(
        cls,
        function: Callable[..., Any],
        kind: Kind,
        params: Mapping[str, float] | None = None,
        name: str | None = None,
    ) -> Policy:
        """A user-written ``@njit`` policy; ``params`` values reach it in order."""
        if not hasattr(function, "py_func"):
            raise ValueError(
                f"a user-written {kind} policy must be a numba @njit function, got {function!r}"
            )
        values = {str(k): float(v) for k, v in (params or {}).items()}
        if len(values) > PARAM_SLOTS:
            raise ValueError(f"a policy takes at most {PARAM_SLOTS} parameters")
        label = name or f"{function.py_func.__module__}:{function.py_func.__name__}"
        return cls(kind=kind, name=label, params=values, function=function)

    @property
    def is_builtin(self) -> bool:
        return self.function is None

    def lower(self) -> np.ndarray:
        """The float64 parameter vector the kernel reads (built-ins: slot 0 is the id)."""
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
        return {"name": self.name, "params": dict(self.params), "builtin": self.is_builtin}


_REGISTRY: dict[tuple[str, str], PolicySpec] = {}


def register(spec: PolicySpec) -> PolicySpec:
    """Add a built-in policy to the registry (used by this module at import)."""
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
    if callable(value):
        return Policy.custom(value, kind)
    if not isinstance(value, str):
        raise ValueError(f"a {kind} policy must be a name or a function, got {value!r}")
    name, _, rest = value.strip().partition(":")
    params: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, eq, text = item.partition("=")
        if not eq:
            raise ValueError(f"{kind} policy {value!r}: expected param=value, got {item!r}")
        params[key.strip()] = text.strip()
    return Policy.of(name.strip(), kind, params)


def describe(kind: Kind | None = None) -> list[PolicySpec]:
    """Every built-in policy (of one kind, or all) with its parameters and source.

    >>> [spec.name for spec in describe("play")][:1]
    ['random']
    """
    return [spec for (k, _), spec in _REGISTRY.items() if kind is None or k == kind]


register(
    PolicySpec(
        kind="bid",
        name="count",
        policy_id=L.BID_COUNT,
        params=(
            ParamSpec("bias", 0.0, -5.0, 5.0, "added to the counted tricks before rounding"),
            ParamSpec("nil_threshold", 1.0, -1.0, 50.0, "bid nil when the nil risk is at most"),
            ParamSpec(
                "blind_nil_deficit", 200.0, 0.0, 1e9, "declare blind nil when behind by this"
            ),
        ),
        summary=(
            "The classic count: side-suit aces and guarded kings, spade honours, spade "
            "length beyond four, voids and singletons with spare spades; nil when the nil "
            "risk (high or long spades, unguarded honours) is low."
        ),
        source="pagat.com, Spades: bidding (John McLeod); common club counting advice",
    )
)
register(
    PolicySpec(
        kind="bid",
        name="random",
        policy_id=L.BID_RANDOM,
        params=(
            ParamSpec("nil_rate", 0.1, 0.0, 1.0, "probability of bidding nil"),
            ParamSpec("blind_nil_rate", 0.05, 0.0, 1.0, "probability of declaring blind nil"),
            ParamSpec("max_bid", 6.0, 1.0, 13.0, "bids are uniform on 1..max_bid otherwise"),
        ),
        summary="Random bids and nils: a baseline and a generator of unusual situations.",
        source="baseline",
    )
)
register(
    PolicySpec(
        kind="play",
        name="random",
        policy_id=L.PLAY_RANDOM,
        params=(),
        summary="A uniformly random legal card.",
        source="baseline",
    )
)
register(
    PolicySpec(
        kind="draw",
        name="threshold",
        policy_id=0,
        params=(
            ParamSpec("side_rank", 9.0, 0.0, 13.0, "keep side cards of this rank or more (J=9)"),
            ParamSpec("spade_rank", 3.0, 0.0, 15.0, "keep spades of this rank or more (5=3)"),
            ParamSpec("nil_rank", 5.0, -1.0, 12.0, "going nil: keep side cards up to this rank"),
        ),
        summary=(
            "Two players: keep a drawn card when it is high enough (a spade or an honour), "
            "or, going for nil, when it is a low side card."
        ),
        source="the Frisian two-player sheet's advice",
    )
)
