"""The ``spades-sim`` group: its options (``--help``, ``--version``) and its commands.

Contract
--------
:data:`cli` is the click group with every command added (the commands live in one module
per command group); :func:`main` is the console-script entry point.
"""

from __future__ import annotations

import signal

import click

from spades_sim.cli.deals import advise_command, nil_odds_command, show
from spades_sim.cli.failures import Group
from spades_sim.cli.listings import policies, rules
from spades_sim.cli.serve import serve
from spades_sim.cli.simulate_command import simulate
from spades_sim.cli.solve import solve
from spades_sim.cli.study import analyze, compare, ladder, report
from spades_sim.cli.tune_command import tune

__all__ = ["cli", "main"]


@click.group(
    cls=Group,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(package_name="spades_sim", prog_name="spades-sim")
def cli() -> None:
    """Spades by simulation: millions of hands or whole games to Parquet datasets."""


for _command in (
    simulate, show, nil_odds_command, advise_command, solve, rules, policies, analyze, report,
    compare, ladder, tune, serve,
):  # fmt: skip
    cli.add_command(_command)


def main() -> None:
    """Console-script entry point (``spades-sim``)."""
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `spades-sim rules | head`: no traceback
    cli.main(prog_name="spades-sim")
