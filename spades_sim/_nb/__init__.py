"""Numba kernels only: pure functions of arrays and scalars, no I/O, names ending in ``_nb``.

Nothing here validates its input; the Python layer (``rules``, ``hand``, ``simulate``)
does that once, at the boundary, and lowers everything to plain integers and arrays.
"""
