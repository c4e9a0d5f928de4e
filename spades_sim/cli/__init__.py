"""The ``spades-sim`` command line: a thin click layer over the package's API.

Commands
--------
``simulate``  play hands or whole games into a Parquet run directory
              (:func:`spades_sim.run.run_dataset`), with a progress bar on a terminal and
              a summary at the end (one line of JSON when stdout is not a terminal);
              ``--scheduler`` runs it on a Dask cluster (:mod:`spades_sim.run.cluster`);
``show``      regenerate one deal (or one hand of a game) and print the four hands, the
              bids, the play trick by trick and the score;
``nil-odds``  how often a given hand makes nil (``spades_sim.odds.nil_odds``), and
              whether nil beats a number bid;
``rules``     the presets and rule fields, with defaults;
``policies``  the built-in bidding, play and draw policies with their parameters.
``analyze``   tables with n and 95% intervals from run directories;
``report``    a strategy report of a run, or of a duplicate pair of runs, as one
              self-contained HTML file (:mod:`spades_sim.report`; the report extra);
``compare``   play the same deals (games) twice with two policies swapped between the
              sides, into two runs that ``report`` pairs deal by deal;
``ladder``    every pair of several play policies in duplicate, ranked;
``tune``      a policy's parameters searched for the best duplicate margin against a
              baseline (:func:`spades_sim.analysis.tune.tune`; the tune extra), the study
              in an SQLite file, the best re-measured on fresh deals.

Modules: ``errors`` (one line per mistake, exit statuses), ``options`` (the TOML
configuration, the rules and policy options shared by several commands), and one module
per command group: ``simulate``, ``deals`` (``show``, ``nil-odds``), ``listings``
(``rules``, ``policies``), ``study`` (``analyze``, ``report``, ``compare``, ``ladder``),
``tune``; ``app``
makes the group and adds the commands. The console script ``spades-sim`` is
:func:`main`; ``python -m spades_sim.cli`` runs it too.

Contract: the commands parse options, call the API and print. Every user mistake (a bad
option value, an unknown preset, field, policy or parameter, a clash of options, an
existing run without ``--resume``/``--overwrite``, a resume with other settings, a bad
TOML file) ends with exactly one line ``error: ...`` on stderr and a non-zero exit
(2 for a bad command line, 1 otherwise); the package signals those mistakes with
``ValueError`` (``SpadesError`` included), ``FileExistsError`` and ``FileNotFoundError``,
which are mapped here. Anything else is a bug and keeps its traceback. Ctrl-C or SIGTERM
during ``simulate`` keeps every finished part (during ``tune``, every finished trial),
says so in one line and exits 130 / 143.

>>> from click.testing import CliRunner
>>> result = CliRunner().invoke(cli, ["simulate", "--hands", "10", "--games", "2"])
>>> result.exit_code, result.output.strip()
(2, 'error: give --hands or --games, not both')
"""

from spades_sim.cli.app import cli, main

__all__ = ["cli", "main"]
