"""Running the engine: one pipeline from a run spec to frames, tables or a run directory.

The modules, in the order a run passes through them:

- :mod:`~spades_sim.run.spec`: the :class:`RunSpec`, validated (rules, policies per side,
  seed, mode) and its meta;
- :mod:`~spades_sim.run.plan`: the run cut into deterministic chunks;
- :mod:`~spades_sim.run.select`: the kernel for policies x players x mode (rows, counts
  or nil odds), in one place;
- backends: :mod:`~spades_sim.threads` (the thread pool, compiles watched) and
  :mod:`~spades_sim.run.cluster` (Dask);
- what a chunk becomes: :mod:`~spades_sim.run.chunks` (named columns) or
  :mod:`~spades_sim.run.counting` (count tables; :mod:`~spades_sim.run.aggregate_frames` the
  tables as frames);
- :mod:`~spades_sim.run.sinks`: a frame, count tables or Parquet parts, one interface,
  and the one loop that feeds them;
- :mod:`~spades_sim.run.summary`, :mod:`~spades_sim.run.interrupts`: tallies, progress,
  the summary, Ctrl-C and SIGTERM;
- :mod:`~spades_sim.run.double_dummy`, :mod:`~spades_sim.run.dd_solve`: the deals of a run
  solved double-dummy (:func:`dd_table`, resumable Parquet parts);
- :mod:`~spades_sim.run.dataset`: :func:`run_dataset`, the entry for runs to disk
  (``spades_sim.simulate`` has the entries to frames, ``spades_sim.odds`` nil odds).
"""

from spades_sim.run.aggregate_frames import Aggregate, load_aggregate
from spades_sim.run.chunks import Chunk, PolicyError
from spades_sim.run.dataset import run_aggregate, run_dataset
from spades_sim.run.dd_solve import dd_table
from spades_sim.run.interrupts import RunInterrupted
from spades_sim.run.plan import Piece, plan
from spades_sim.run.sinks import RunCall, compute_part
from spades_sim.run.spec import RunSpec, side_policies, spec_from_meta
from spades_sim.run.summary import Progress, RunSummary, Tally
from spades_sim.threads import kernel_threads

__all__ = [
    "Aggregate",
    "Chunk",
    "Piece",
    "PolicyError",
    "Progress",
    "RunCall",
    "RunInterrupted",
    "RunSpec",
    "RunSummary",
    "Tally",
    "compute_part",
    "dd_table",
    "kernel_threads",
    "load_aggregate",
    "plan",
    "run_aggregate",
    "run_dataset",
    "side_policies",
    "spec_from_meta",
]
