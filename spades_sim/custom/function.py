"""A user-written policy's function: compiled, described, digested, found again by reference.

Contract. :func:`user_function` turns a function of one context (plain Python or already
``@njit``) into a :class:`UserFunction`: the function compiled for inlining into the
kernels, its parameter names (``ctx.params.<name>``), its blind nil decision (bidders:
``None`` never, ``"builtin"`` the built-in rule with the ``count`` defaults, or a
function of a blind nil context), where its code lives (a module name or a file path,
and the name in it) and :func:`code_digest`, a SHA-256 of its source and of everything it
calls or reads outside this package (functions, compiled or not, and constant values),
so any edit to the policy or a helper it uses changes the digest.

A :class:`UserFunction` pickles by reference (its origin, name and digest): unpickling
imports the module or loads the file again and refuses code whose digest differs, so a
Dask worker runs exactly the code the client ran. A function with no importable origin
(defined at a prompt) pickles by value instead.

:func:`load_reference` resolves ``path/to/file.py:name`` and ``package.module:name``.

>>> def always_three(ctx):
...     return 3
>>> fn = user_function(always_three, "bid")
>>> fn.kind, fn.param_names, fn.blind_nil, len(fn.digest)
('bid', (), None, 64)
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.machinery
import importlib.util
import inspect
import keyword
import os
import pickle
import sys
import types
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

PACKAGE = "spades_sim"
MAX_PARAMS = 16  # a user policy's parameters fit a parameter row (``_nb.enums.PARAM_SLOTS``)
BLIND_NIL_CHOICES = (None, "builtin")


class PolicyCodeError(ValueError):
    """A user-written policy that cannot be used: not a function of one context, not
    found at its reference, or changed since a run recorded it."""


@dataclass(frozen=True, eq=False)
class UserFunction:
    """A user-written policy function, ready for the kernels (see the module docstring)."""

    kind: str
    compiled: Any  # the function, compiled with ``inline="always"``
    py_func: Callable[..., Any]
    param_names: tuple[str, ...]
    blind_nil: UserFunction | str | None
    origin: str | None  # a module name or a file path; None when it has none
    qualname: str
    digest: str

    @property
    def label(self) -> str:
        """``module:name`` (or ``file.py:name``), as runs and texts name the policy."""
        return f"{self.origin or '<interactive>'}:{self.qualname}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UserFunction) and (self.kind, self.digest) == (
            other.kind,
            other.digest,
        )

    def __hash__(self) -> int:
        return hash((self.kind, self.digest))

    def __reduce__(self) -> tuple[Any, ...]:
        if self.origin is not None and "<" not in self.qualname:
            return (restore, (self.origin, self.qualname, self.kind, self.digest))
        from numba import cloudpickle  # by value: only for functions with no origin

        payload = cloudpickle.dumps(self.py_func)
        return (rebuild, (payload, self.kind, self.param_names, self.blind_nil))


def _origin_of(func: Callable[..., Any]) -> str | None:
    """Where ``func``'s code can be loaded again: its module's name when that name imports
    the same file, else the file's path (a script, or a file loaded under another name);
    None when it has neither."""
    module = getattr(func, "__module__", None)
    loaded = sys.modules.get(module) if module else None
    path = getattr(loaded, "__file__", None)
    if module is None or loaded is None:
        return None
    if path is None:
        return None if module == "__main__" else module
    path = os.path.abspath(path)
    if module != "__main__" and not module.startswith("spades_sim_user_"):
        with contextlib.suppress(ImportError, ValueError, AttributeError):
            # a top-level name is searched on the path itself (a module loaded from a file
            # under a name of its own is in ``sys.modules``, not importable by that name)
            spec = (
                importlib.util.find_spec(module)
                if "." in module
                else importlib.machinery.PathFinder.find_spec(module)
            )
            if spec is not None and spec.origin and os.path.abspath(spec.origin) == path:
                return module
    return path


def _check_context_function(func: Callable[..., Any], what: str) -> None:
    """Refuse a function the engine cannot call as ``func(ctx)``, saying what it takes."""
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        return
    params = list(signature.parameters.values())
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    keywords = [p.name for p in params if p.kind == p.KEYWORD_ONLY and p.default is p.empty]
    name = f"{what} {getattr(func, '__name__', func)!r}"
    example = "a policy is a function of one context, e.g. def my_bid(ctx): ..."
    if len(required) > 1:
        raise PolicyCodeError(
            f"{name} takes {len(required)} arguments; {example} "
            "(the positional signatures are retired: see CHANGELOG.md)"
        )
    if not positional:
        if any(p.kind == p.VAR_POSITIONAL for p in params):
            takes = "any number of arguments"
        elif params:
            takes = "no positional argument"
        else:
            takes = "no argument"
        raise PolicyCodeError(f"{name} takes {takes} {signature}; {example}")
    if keywords:
        names = ", ".join(repr(k) for k in keywords)
        raise PolicyCodeError(
            f"{name} needs the keyword argument{'s' if len(keywords) > 1 else ''} {names}, "
            f"which the engine does not pass; {example}"
        )


def _check_param_names(names: Sequence[str]) -> tuple[str, ...]:
    out = tuple(str(n) for n in names)
    if len(out) > MAX_PARAMS:
        raise PolicyCodeError(f"a policy takes at most {MAX_PARAMS} parameters, got {len(out)}")
    for name in out:
        if not name.isidentifier() or keyword.iskeyword(name) or name.startswith("_"):
            raise PolicyCodeError(
                f"parameter name {name!r}: must be a Python name (ctx.params.{name})"
            )
    if len(set(out)) != len(out):
        raise PolicyCodeError(f"parameter names repeat: {out}")
    return out


def user_function(
    func: Callable[..., Any],
    kind: str,
    param_names: Sequence[str] = (),
    blind_nil: Callable[..., Any] | UserFunction | str | None = None,
) -> UserFunction:
    """``func`` (a function of one context, plain or ``@njit``) as a :class:`UserFunction`."""
    if isinstance(func, UserFunction):
        return func
    py_func = getattr(func, "py_func", func)
    if not isinstance(py_func, types.FunctionType):
        raise PolicyCodeError(f"a user-written {kind} policy must be a function, got {func!r}")
    what = {"bid": "bidder", "play": "player", "blind_nil": "blind nil decision"}.get(kind, kind)
    _check_context_function(py_func, what)
    names = _check_param_names(param_names)
    blind: UserFunction | str | None
    if blind_nil in BLIND_NIL_CHOICES or isinstance(blind_nil, UserFunction):
        blind = blind_nil
    elif isinstance(blind_nil, str):
        raise PolicyCodeError(
            f"blind_nil: a function of a blind nil context, 'builtin' or None, got {blind_nil!r}"
        )
    elif kind != "bid":
        raise PolicyCodeError("blind_nil: only a bidder decides blind nil")
    else:
        blind = user_function(blind_nil, "blind_nil", names)
    compiled = njit(inline="always")(py_func)
    digest = hashlib.sha256()
    digest.update(f"{kind}\0{names}\0".encode())
    digest.update(code_digest(py_func).encode())
    digest.update(str(blind.digest if isinstance(blind, UserFunction) else blind).encode())
    return UserFunction(
        kind=kind,
        compiled=compiled,
        py_func=py_func,
        param_names=names,
        blind_nil=blind,
        origin=_origin_of(py_func),
        qualname=py_func.__qualname__,
        digest=digest.hexdigest(),
    )


# --- The digest of a function's code ------------------------------------------------------


def _code_names(code: types.CodeType) -> Iterator[str]:
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_names(const)


def _source_of(func: types.FunctionType) -> bytes:
    try:
        return inspect.getsource(func).encode()
    except (OSError, TypeError):
        code = func.__code__
        return code.co_code + repr(code.co_consts).encode()


def _in_package(obj: Any) -> bool:
    module = getattr(obj, "__module__", None) or getattr(obj, "__name__", "")
    return module == PACKAGE or str(module).startswith(PACKAGE + ".")


def code_digest(func: Callable[..., Any]) -> str:
    """SHA-256 of ``func``'s source and of what it reads: the functions it calls (their
    sources, recursively; the package's own are covered by the kernels' digest) and the
    values of the constants it reads (arrays by their bytes)."""
    h = hashlib.sha256()
    seen: set[int] = set()

    def value(obj: Any, names: set[str]) -> None:
        obj = getattr(obj, "py_func", obj)
        if isinstance(obj, types.FunctionType):
            if _in_package(obj):
                h.update(f"pkg:{obj.__module__}.{obj.__qualname__}".encode())
            else:
                visit(obj)
        elif isinstance(obj, types.ModuleType):
            if _in_package(obj):
                return
            for name in sorted(names):  # the module's attributes it may read
                if hasattr(obj, name):
                    h.update(name.encode())
                    value(getattr(obj, name), set())
        elif isinstance(obj, np.ndarray):
            h.update(f"{obj.dtype}{obj.shape}".encode() + np.ascontiguousarray(obj).tobytes())
        elif isinstance(obj, (bool, int, float, complex, str, bytes, np.generic, type(None))):
            h.update(repr(obj).encode())
        elif isinstance(obj, tuple):
            for item in obj:
                value(item, set())
        else:
            h.update(type(obj).__qualname__.encode())

    def visit(func: types.FunctionType) -> None:
        if id(func) in seen:
            return
        seen.add(id(func))
        h.update(_source_of(func))
        names = set(_code_names(func.__code__))
        for name in sorted(names):
            if name in func.__globals__:
                h.update(name.encode())
                value(func.__globals__[name], names)
        for cell in func.__closure__ or ():
            with contextlib.suppress(ValueError):  # an empty cell has no contents
                value(cell.cell_contents, names)

    visit(getattr(func, "py_func", func))  # type: ignore[arg-type]
    return h.hexdigest()


# --- References and pickling ----------------------------------------------------------------


def _load_file(path: str) -> types.ModuleType:
    full = os.path.abspath(path)
    name = "spades_sim_user_" + hashlib.sha256(full.encode()).hexdigest()[:12]
    if name in sys.modules:
        return sys.modules[name]
    if not os.path.isfile(full):
        raise PolicyCodeError(f"{path}: no such file")
    spec = importlib.util.spec_from_file_location(name, full)
    if spec is None or spec.loader is None:
        raise PolicyCodeError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # Numba and pickling find functions by module name
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise PolicyCodeError(f"{path}: loading it failed: {type(exc).__name__}: {exc}") from exc
    return module


def load_origin(origin: str) -> types.ModuleType:
    """The module ``origin`` names: a file path (``.py``) or an importable module name
    (looked up in the working directory too, as ``python -m`` does)."""
    if origin.endswith(".py") or os.sep in origin or "/" in origin:
        return _load_file(origin)
    try:
        return importlib.import_module(origin)
    except ImportError as first:
        # as ``python -m`` would: a module of the working directory (the console script
        # does not put it on the path)
        if os.getcwd() in sys.path or "" in sys.path:
            raise PolicyCodeError(f"{origin}: cannot import it ({first})") from first
        sys.path.append(os.getcwd())
        try:
            return importlib.import_module(origin)
        except ImportError as exc:
            raise PolicyCodeError(f"{origin}: cannot import it ({exc})") from exc


def load_reference(reference: str) -> Any:
    """The object a reference ``path/to/file.py:name`` or ``package.module:name`` names."""
    where, sep, name = reference.rpartition(":")
    if not sep or not where or not name:
        raise PolicyCodeError(
            f"{reference!r}: expected path/to/file.py:name or package.module:name"
        )
    module = load_origin(where)
    obj: Any = module
    for part in name.split("."):
        if not hasattr(obj, part):
            raise PolicyCodeError(f"{reference}: {where} has no {name!r}")
        obj = getattr(obj, part)
    return obj


def is_reference(text: str) -> bool:
    """Whether policy text names user code (``file.py:name``, ``package.module:name``)
    rather than a built-in (built-in names hold no ``.`` or ``/`` before a ``:``)."""
    head = text.split(":", 1)[0]
    return ":" in text and ("." in head or "/" in head or os.sep in head)


def function_of(obj: Any, kind: str) -> UserFunction:
    """The :class:`UserFunction` behind ``obj``: a :class:`~spades_sim.policies.Policy`
    made by ``nb.bidder``/``nb.player``, a :class:`UserFunction` or a function."""
    found = getattr(obj, "function", None)
    if isinstance(found, UserFunction):
        return found
    if isinstance(obj, UserFunction):
        return obj
    return user_function(obj, kind)


def restore(origin: str, qualname: str, kind: str, digest: str) -> UserFunction:
    """A pickled :class:`UserFunction`, loaded again from its code; refuses changed code."""
    obj = load_reference(f"{origin}:{qualname}")
    found = function_of(obj, kind)
    if found.digest != digest:
        raise PolicyCodeError(
            f"{origin}:{qualname}: the policy's code changed (its digest differs from the "
            "one recorded)"
        )
    return found


def rebuild(
    payload: bytes, kind: str, param_names: tuple[str, ...], blind_nil: Any
) -> UserFunction:
    """A :class:`UserFunction` pickled by value."""
    return user_function(pickle.loads(payload), kind, param_names, blind_nil)
