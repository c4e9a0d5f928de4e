"""``spades-sim rules`` and ``spades-sim policies``: what there is to choose from.

Contract
--------
Each prints a listing (:func:`spades_sim.text.rules_listing`,
:func:`spades_sim.text.policies_listing`) and takes no option.
"""

from __future__ import annotations

import click

__all__ = ["policies", "rules"]


@click.command()
def rules() -> None:
    """List the rule presets and every rule field with its default."""
    # imported when the command runs: `spades-sim --help` loads no kernels
    from spades_sim.text import rules_listing

    click.echo(rules_listing())


@click.command()
def policies() -> None:
    """List the built-in policies, their parameters (default, range) and sources."""
    # imported when the command runs: `spades-sim --help` loads no kernels
    from spades_sim.text import policies_listing

    click.echo(policies_listing())
