"""What the completion benchmarks (``advise.py``, ``nil_odds.py``) share: their options,
the policies and threads they pass on, a stopwatch, and the printing of the result.

Each script builds its parser with :func:`parser` (``--completions``, ``--rounds``,
``--bidding``, ``--play``, ``--threads``, ``--json``), passes :func:`policies` to the
calls it times, times each with :func:`seconds` and ends with :func:`report`: one JSON
line with ``--json``, else one aligned line per figure.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any


def parser(doc: str | None, completions: int, rounds: int = 5) -> argparse.ArgumentParser:
    """The shared options, described by the first line of the script's docstring ``doc``."""
    out = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    out.add_argument("--completions", type=int, default=completions)
    out.add_argument("--rounds", type=int, default=rounds)
    out.add_argument("--bidding", default="count")
    out.add_argument("--play", default="heuristic")
    out.add_argument("--threads", type=int, default=None)
    out.add_argument("--json", action="store_true")
    return out


def policies(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments every timed call takes: the policies and the threads."""
    return {"bidding": args.bidding, "play": args.play, "threads": args.threads}


def described(args: argparse.Namespace) -> dict[str, Any]:
    """The figures that say what was measured: policies, threads and completions."""
    return {
        "policies": f"{args.bidding} + {args.play}",
        "threads": args.threads or "all",
        "completions": args.completions,
    }


def seconds(call: Callable[[], Any]) -> tuple[float, Any]:
    """The wall-clock seconds ``call()`` took, and what it returned."""
    start = time.perf_counter()
    value = call()
    return time.perf_counter() - start, value


def report(result: dict[str, Any], as_json: bool) -> None:
    """Print ``result``: one JSON line, or a line per figure (numbers with thousands
    separators)."""
    if as_json:
        print(json.dumps(result))
        return
    width = max(map(len, result))
    for key, value in result.items():
        shown = f"{value:,}" if isinstance(value, (int, float)) else str(value)
        print(f"{key:{width}s}  {shown}")
