"""How the command line fails: one ``error:`` line per user mistake, and the exit status.

Contract
--------
:class:`Group` is the ``spades-sim`` group's class: a click error (a bad option value, a
clash of options, a :class:`UserError`) prints exactly one line ``error: ...`` on stderr
and exits with its status, and a warning is one line ``warning: ...``; Ctrl-C outside a
run prints ``interrupted`` and exits 130.
:func:`user_errors` maps the package's user-facing exceptions (``ValueError``,
``SpadesError`` included, and ``OSError``: permissions, disk full, a missing file) to
those one-line errors, naming the option when there is one. Anything else is a bug and
keeps its traceback.

Exit status, the same rule in every command:

- **2**, the command itself cannot be taken (click's usage errors): an unknown command
  or option, an option value that is malformed or out of range, options that clash,
  arguments that say something impossible (a hand of 12 cards, a required range no deal
  can meet, two identical policies to compare); whether on the command line or in a
  ``--config`` file (:class:`CommandError`, ``user_errors(as_usage=True)``). Nothing
  has been read or written.
- **1**, a well-formed command the files or the machine refuse (:class:`UserError`): a
  run directory that is missing, corrupt, unfinished or already there, an output that
  would replace a file that is not ours, a permission or a full disk.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import warnings
from collections.abc import Iterator, Sequence
from typing import Any, NoReturn

import click

__all__ = ["CommandError", "Group", "UserError", "one_line", "usage", "user_errors"]


def one_line(text: str) -> str:
    """``text`` on one line, runs of white space made one space."""
    return " ".join(str(text).split())


class Group(click.Group):
    """A group whose errors are one ``error: ...`` line, in the shell and under CliRunner."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        # the package's warnings (a damaged part computed again) as one line each
        warnings.showwarning = _show_warning
        try:
            code = super().main(
                args, prog_name or "spades-sim", complete_var, standalone_mode=False, **extra
            )
        except click.ClickException as exc:
            click.echo(f"error: {one_line(exc.format_message())}", err=True)
            sys.exit(exc.exit_code)
        except click.Abort as exc:
            if isinstance(exc.__cause__, KeyboardInterrupt):  # Ctrl-C outside a run
                click.echo("interrupted", err=True)
                sys.exit(128 + signal.SIGINT)
            click.echo("error: aborted", err=True)
            sys.exit(1)
        if standalone_mode:
            sys.exit(code if isinstance(code, int) else 0)
        return code


def _show_warning(message: Warning | str, *args: Any, **kwargs: Any) -> None:
    click.echo(f"warning: {one_line(str(message))}", err=True)


class UserError(click.ClickException):
    """A well-formed command that the files or the machine refuse (exit status 1)."""

    exit_code = 1


class CommandError(click.UsageError):
    """A command that cannot be taken as given, not about one option (exit status 2)."""


@contextlib.contextmanager
def user_errors(option: str | None = None, as_usage: bool = False) -> Iterator[None]:
    """Turn the package's user-facing exceptions into one-line click errors: about
    ``option`` (a bad value, exit 2) when it is given, else about the command
    (``as_usage``: exit 2) or its files (exit 1)."""
    try:
        yield
    except click.ClickException:
        raise
    except (ValueError, OSError) as exc:
        # OSError covers the output's permission, disk-full and read-only errors: they
        # are the user's environment, not a bug, so one line, naming the file
        message = one_line(str(exc)) or type(exc).__name__
        if isinstance(exc, OSError) and exc.strerror and exc.filename:
            message = f"{exc.filename}: {exc.strerror}"
        if option is not None:
            raise click.BadParameter(message, param_hint=f"'{option}'") from None
        if as_usage and not isinstance(exc, OSError):
            raise CommandError(message) from None
        raise UserError(message) from None


def usage(message: str) -> NoReturn:
    """Stop with a usage error (exit status 2)."""
    raise click.UsageError(message)
