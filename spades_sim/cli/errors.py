"""How the command line fails: one ``error:`` line per user mistake, and the exit status.

Contract
--------
:class:`Group` is the ``spades-sim`` group's class: a click error (a bad option value, a
clash of options, a :class:`UserError`) prints exactly one line ``error: ...`` on stderr
and exits with its status (2 for a bad command line, 1 otherwise); Ctrl-C outside a run
prints ``interrupted`` and exits 130. :func:`user_errors` maps the package's user-facing
exceptions (``ValueError``, ``SpadesError`` included, and ``OSError``: permissions,
disk full, a missing file) to those one-line errors, naming the option when there is
one. Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import contextlib
import signal
import sys
from collections.abc import Iterator, Sequence
from typing import Any, NoReturn

import click

__all__ = ["Group", "UserError", "one_line", "usage", "user_errors"]


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


class UserError(click.ClickException):
    """A mistake in the input that is not about one option (exit status 1)."""

    exit_code = 1


@contextlib.contextmanager
def user_errors(option: str | None = None) -> Iterator[None]:
    """Turn the package's user-facing exceptions into one-line click errors."""
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
        raise UserError(message) from None


def usage(message: str) -> NoReturn:
    """Stop with a usage error (exit status 2)."""
    raise click.UsageError(message)
