"""``spades-sim serve``: the hand analyser page in a browser (the ``web`` extra).

Contract
--------
Checks its options (a ``--runs`` that is no directory, a missing ``web`` extra: one
``error:`` line, exit 2 or 1), says so in a warning line when ``--host`` makes the page
reachable from other machines, then hands over to :func:`spades_sim.web.serve`, which
loads the kernels with a progress line, prints the URL and opens the browser (not with
``--no-browser``). Ctrl-C stops it.
"""

from __future__ import annotations

import os
from typing import Any

import click

from spades_sim.cli.errors import UserError, usage

__all__ = ["serve"]

LOOPBACK = ("127.0.0.1", "localhost", "::1")


@click.command()
@click.option("--port", type=click.IntRange(0, 65535), default=0, metavar="P",
              help="Port [default: a free one].")  # fmt: skip
@click.option("--host", default="127.0.0.1", show_default=True, metavar="H",
              help="Address to bind; anything but loopback lets other machines in.")  # fmt: skip
@click.option("--runs", metavar="DIR", help="Runs the deal viewer may open (nothing else is read).")
@click.option("--no-browser", is_flag=True, help="Do not open a browser.")
def serve(**params: Any) -> None:
    """Serve the hand analyser: the bid table, nil odds and the double-dummy deal viewer.

    \b
    Examples:
      spades-sim serve
      spades-sim serve --port 8765 --no-browser --runs runs/
    """
    runs = params["runs"]
    if runs is not None and not os.path.isdir(runs):
        usage(f"--runs: {runs!r} is not a directory")
    try:
        # the web extra is optional: without it every other command still works
        from spades_sim.web import serve as run_server
    except ImportError as error:
        raise UserError(
            f"the page needs the web extra (pip install 'spades_sim[web]'): {error}"
        ) from None
    if params["host"] not in LOOPBACK:
        click.echo(
            f"warning: serving on {params['host']}: anyone who can reach this machine can use "
            "the page (and the runs under --runs)",
            err=True,
        )
    run_server(
        host=params["host"], port=params["port"], runs=runs, browser=not params["no_browser"]
    )
