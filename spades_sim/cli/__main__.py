"""``python -m spades_sim.cli``: the ``spades-sim`` command."""

from spades_sim.cli.app import main

main()
