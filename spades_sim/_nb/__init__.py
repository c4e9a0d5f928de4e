"""Numba kernels only: pure functions of arrays and scalars, no I/O, names ending in ``_nb``.

Nothing here validates its input; the Python layer (``rules``, ``hand``, ``simulate``)
does that once, at the boundary, and lowers everything to plain integers and arrays.

Importing the package leaves Numba's settings alone: the lock-step kernels ask for
512-bit vectors for themselves, by an LLVM attribute on their own functions
(``lockstep.prefer_wide_vectors_nb``), not through process-wide CPU features.

Numba's on-disk cache checks only the source file of the function it compiled, so a
kernel that inlines code from a sibling module would be loaded stale after that module
changed. The locators registered below stamp every cache entry of this package with a
digest of all its kernel sources instead (``KERNEL_DIGEST``; the generated kernels of
user-written policies are named by it too), so any edit here invalidates them all.
"""

import hashlib
import os
from pathlib import Path

from numba.core import caching

_HERE = os.path.dirname(os.path.abspath(__file__))
# ``enums.py`` builds the output rows from ``schema.py`` and the policies' ids, slots and
# defaults from ``policy_table.py``, so the kernels depend on them too.
_SOURCES = [
    *sorted(Path(_HERE).glob("*.py")),
    Path(_HERE).parent / "schema.py",
    Path(_HERE).parent / "policy_table.py",
]
KERNEL_DIGEST = hashlib.sha256(b"".join(path.read_bytes() for path in _SOURCES)).hexdigest()


def _stamped(base: type) -> type:
    class Locator(base):  # type: ignore[misc, valid-type]
        @classmethod
        def from_function(cls, py_func, py_file):  # type: ignore[no-untyped-def]
            if os.path.dirname(os.path.abspath(py_file)) != _HERE:
                return None
            return super().from_function(py_func, py_file)

        def get_source_stamp(self):  # type: ignore[no-untyped-def]
            return KERNEL_DIGEST

    Locator.__name__ = f"KernelSource{base.__name__}"
    return Locator


def _public_or_private(name: str) -> type:
    return getattr(caching, name, None) or getattr(caching, "_" + name)


_impl = _public_or_private("CacheImpl")
for _name in reversed(("UserProvidedCacheLocator", "InTreeCacheLocator", "UserWideCacheLocator")):
    _impl._locator_classes.insert(0, _stamped(_public_or_private(_name)))
