"""User-written policies: what they are, where their code comes from, their kernels.

A user-written policy is a function of one context (``spades_sim.nb.bidder`` and
``spades_sim.nb.player`` make one; ``spades_sim.nb`` documents the contexts). This package
holds what the engine needs to run one like a built-in:

- ``function.py``: :class:`~spades_sim.custom.function.UserFunction` (the compiled
  function, its declared parameters and decisions, where its code lives and a digest of
  that code), references such as ``path/to/file.py:my_bid`` or ``package.module:my_bid``,
  and pickling by reference, so Dask workers load the same code and refuse changed code;
- ``kernels.py``: the kernels for a run's combination of policies, generated as a small
  module on disk (keyed on the digests of the policies and of the package's kernels) and
  cached by Numba like the built-ins', so a second process loads them in about a second
  and an edited policy compiles afresh.

A user policy decides what it claims and nothing else: no built-in rule ever reads its
parameters. A bidder that supplies no blind nil decision never bids blind nil, unless it
names the built-in rule for it (``blind_nil="builtin"``, which then runs with the
built-in ``count`` defaults, not with the user's values).
"""
