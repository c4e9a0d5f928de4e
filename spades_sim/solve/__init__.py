"""Double-dummy solving for Spades: the tricks and the nils of any position under
perfect play, every card seen.

>>> from spades_sim.solve import Position, dd_tricks, nil_safe
>>> pos = Position(["AS", "KS", "QS", "JS"], "N", spades_broken=True)
>>> dd_tricks(pos), nil_safe(pos, "E")
(1, True)

:mod:`spades_sim.solve.position` holds :class:`Position` (validated at the boundary),
:mod:`spades_sim.solve.solver` the answers for one position, :mod:`spades_sim.solve.batch`
the verdicts of many deals on the thread pool (``nil_table``; the resumable Parquet table
of many deals, ``dd_table``, is the run layer's: :mod:`spades_sim.run.dd_solve`). The
algorithm is described beside the kernels, ``spades_sim/_nb/dd.py``.
"""

from spades_sim.solve.position import HandRecord, Position
from spades_sim.solve.solver import dd_cards, dd_tricks, nil_cards, nil_safe

__all__ = ["HandRecord", "Position", "dd_cards", "dd_tricks", "nil_cards", "nil_safe"]
