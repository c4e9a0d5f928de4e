"""``spades-sim serve``: the hand analyser page in a browser (the ``web`` extra).

Contract
--------
Checks its options (a ``--runs`` that is no directory, a missing ``web`` extra: one
``error:`` line, exit 2 or 1), then hands over to :func:`spades_sim.web.serve`, which
listens on the port first (then, when ``--host`` makes the page reachable from other
machines, a warning line says so) (a port in use or a host that is not this machine's: one
``error:`` line, exit 2, before any kernel is loaded), loads the kernels with a progress
line, prints the URL and opens the browser (not with ``--no-browser``). Ctrl-C or SIGTERM,
while loading or serving, stops it and its worker process: ``stopped``, exit 130 or 143.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

import click

from spades_sim.cli.failures import UserError, usage

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

    def warn() -> None:  # once bound: a host that cannot be bound is the one line said
        click.echo(
            f"warning: serving on {params['host']}: anyone who can reach this machine can use "
            "the page (and the runs under --runs)",
            err=True,
        )

    from spades_sim.run.interrupts import interrupt_signal  # with the server, as above
    from spades_sim.web.server import BindError  # with the server, as above

    # Python's default again (the command line ends quietly on a closed pipe): a pipe to a
    # worker process just stopped must raise in the thread writing it, not end the server
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    try:
        run_server(
            host=params["host"],
            port=params["port"],
            runs=runs,
            browser=not params["no_browser"],
            listening=None if params["host"] in LOOPBACK else warn,
        )
    except BindError as error:  # said before the kernels are loaded: nothing ran yet
        usage(f"--{error.option}: {error}")
    except KeyboardInterrupt as stop:  # the worker is stopped: nothing is left running
        click.echo("stopped")
        sys.exit(128 + int(interrupt_signal(stop)))
