"""The package version, from one place: the installed package's metadata.

Contract
--------
:data:`__version__` is ``importlib.metadata.version("spades_sim")``, i.e. the
``version`` of ``pyproject.toml`` as installed; the package ``__init__``, the run meta
(``RunSpec.meta``), the reports and the Dask version check all take it from here, so
no module imports it back from the package ``__init__``.

>>> import importlib.metadata
>>> __version__ == importlib.metadata.version("spades_sim")
True
"""

from importlib.metadata import version

__all__ = ["__version__"]

__version__: str = version("spades_sim")
