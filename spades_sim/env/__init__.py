"""Spades for learning agents (the ``rl`` extra: PettingZoo and Gymnasium).

Contract. The package's tables, advanced one decision at a time by the kernels of
``spades_sim._nb.env`` with the engine's own rules, behind the usual interfaces:
:func:`aec_env` (PettingZoo AEC, every seat an agent), ``SpadesEnv`` (Gymnasium, one
learner seat, registered as ``spades_sim/Spades-v0``) and ``VectorSpades`` (many tables
per kernel call, a Gymnasium vector environment). The action space, the observation's
fields and the errors are those of :mod:`spades_sim.env.table`; docs/env.md describes it
all. Importing this package registers the Gymnasium id (once), with ``VectorSpades`` as
its vector entry point (``gymnasium.make_vec(ENV_ID, num_envs, vectorization_mode=
"vector_entry_point")``).
"""

import gymnasium

from spades_sim.env.aec import SpadesAEC, aec_env
from spades_sim.env.single import SpadesEnv
from spades_sim.env.table import (
    BID_ACTION,
    BLIND_NIL_ACTION,
    LOOK_ACTION,
    N_ACTIONS,
    N_OBS,
    OBSERVATION_FIELDS,
    IllegalAction,
    Table,
    TableConfig,
    action_name,
)
from spades_sim.env.vector import VectorSpades

ENV_ID = "spades_sim/Spades-v0"
if ENV_ID not in gymnasium.registry:
    gymnasium.register(
        id=ENV_ID,
        entry_point="spades_sim.env.single:SpadesEnv",
        vector_entry_point="spades_sim.env.vector:VectorSpades",
    )

__all__ = [
    "BID_ACTION",
    "BLIND_NIL_ACTION",
    "ENV_ID",
    "LOOK_ACTION",
    "N_ACTIONS",
    "N_OBS",
    "OBSERVATION_FIELDS",
    "IllegalAction",
    "SpadesAEC",
    "SpadesEnv",
    "Table",
    "TableConfig",
    "VectorSpades",
    "action_name",
    "aec_env",
]
