"""Numba kernels only: pure functions of arrays and scalars, no I/O, names ending in ``_nb``.

Nothing here validates its input; the Python layer (``rules``, ``hand``, ``simulate``)
does that once, at the boundary, and lowers everything to plain integers and arrays.

On x86 hosts with AVX-512, LLVM's tuning for most Intel server cores prefers 256-bit
vectors; the lock-step kernels (``lockstep.py``, ``lockstep_heuristic.py``) run faster
with 512-bit ones. Numba sets CPU features for the whole process (one target machine,
created when the first ``@njit`` function is declared), not per function, so asking for
512-bit vectors changes every Numba user's code in the process. It is therefore opt-in:
``SPADES_SIM_WIDE_VECTORS=1`` in the environment before the package is imported asks
Numba for the host's features minus that preference (``-prefer-256-bit``); ``0`` forbids
it. Unset, the package's own command line (``spades-sim``) opts in by itself, a library
import never does. When applied, the choice is logged (logger ``spades_sim``, INFO) and
put in the environment, so worker processes started from this one (the local Dask
cluster) compile the same way. It is skipped when the user chose CPU features or a CPU
name for Numba. It changes only how wide the vectorised loops are, never a result.

Numba's on-disk cache checks only the source file of the function it compiled, so a
kernel that inlines code from a sibling module would be loaded stale after that module
changed. The locators registered below stamp every cache entry of this package with a
digest of all its kernel sources instead, so any edit here invalidates them all.
"""

import hashlib
import logging
import os
import sys
from pathlib import Path

from llvmlite import binding
from numba.core import caching, config

WIDE_VECTORS = "SPADES_SIM_WIDE_VECTORS"


def _wide_vectors_wanted() -> bool:
    """The switch: ``SPADES_SIM_WIDE_VECTORS`` 1 or 0 when set, else whether this process
    is the package's own command line."""
    value = os.environ.get(WIDE_VECTORS)
    if value is not None:
        return value.strip() == "1"
    return os.path.basename(sys.argv[0] if sys.argv else "") == "spades-sim"


def _prefer_512_bit_vectors() -> None:
    if not _wide_vectors_wanted():
        return
    if os.environ.get("NUMBA_CPU_FEATURES") or os.environ.get("NUMBA_CPU_NAME"):
        return
    if config.CPU_FEATURES or config.CPU_NAME:
        return
    features = binding.get_host_cpu_features().flatten()
    if "+avx512f" in features.split(","):
        config.CPU_FEATURES = features + ",-prefer-256-bit"
        os.environ[WIDE_VECTORS] = "1"  # worker processes started from here do the same
        logging.getLogger("spades_sim").info(
            "spades_sim: Numba compiles for 512-bit vectors in this process (%s=1)", WIDE_VECTORS
        )


_prefer_512_bit_vectors()

_HERE = os.path.dirname(os.path.abspath(__file__))
# ``enums.py`` builds the output rows from ``schema.py``, so the kernels depend on it too.
_SOURCES = [*sorted(Path(_HERE).glob("*.py")), Path(_HERE).parent / "schema.py"]
_DIGEST = hashlib.sha256(b"".join(path.read_bytes() for path in _SOURCES)).hexdigest()


def _stamped(base: type) -> type:
    class Locator(base):  # type: ignore[misc, valid-type]
        @classmethod
        def from_function(cls, py_func, py_file):  # type: ignore[no-untyped-def]
            if os.path.dirname(os.path.abspath(py_file)) != _HERE:
                return None
            return super().from_function(py_func, py_file)

        def get_source_stamp(self):  # type: ignore[no-untyped-def]
            return _DIGEST

    Locator.__name__ = f"KernelSource{base.__name__}"
    return Locator


def _public_or_private(name: str) -> type:
    return getattr(caching, name, None) or getattr(caching, "_" + name)


_impl = _public_or_private("CacheImpl")
for _name in reversed(("UserProvidedCacheLocator", "InTreeCacheLocator", "UserWideCacheLocator")):
    _impl._locator_classes.insert(0, _stamped(_public_or_private(_name)))
