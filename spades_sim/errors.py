"""The package's own exceptions.

User mistakes raise these (or plain ``ValueError`` for a bad option); each message names
the culprit — the card, the seat, the trick, the field — so the command line can print it
as one line and exit non-zero.
"""

from __future__ import annotations


class SpadesError(ValueError):
    """Base class of the package's user-facing errors (a ``ValueError``)."""


class CardError(SpadesError):
    """A card or hand text that cannot be parsed."""


class Misdeal(SpadesError):
    """A deal given from outside with a missing, duplicated, unknown or extra card."""


class IllegalPlay(SpadesError):
    """A play that breaks a rule: card not held, revoke, spade led too early, ..."""


class IllegalBid(SpadesError):
    """Bids that break the table's bid rule (``Rules.bid_rule``): a mirror bid that is not
    the spades held, ..."""
