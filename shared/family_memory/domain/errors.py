"""The core's exceptions. Adapters translate vendor errors into these.

The API layer maps each class to one HTTP status in one place; nothing
matches on message text.
"""

from __future__ import annotations

from typing import ClassVar

#: The public text of the errors whose message names internals.
BUSY = "another change to this family is in progress; retry in a few seconds"
SEARCH_UNAVAILABLE = "search is unavailable right now; try again shortly"
MISCONFIGURED = "the service is not configured correctly; its operator can see why in the log"


class FamilyMemoryError(Exception):
    """Base of every error the core raises on purpose."""

    #: What a caller outside the process (an HTTP client, the model calling a tool) is told
    #: instead of the message, for errors whose message carries internals: a host name, the
    #: lease holder, a vendor's error text. None: the message is written for the caller.
    public: ClassVar[str | None] = None


def public_message(exc: BaseException) -> str:
    """What to tell a caller outside the process about ``exc`` (log ``str(exc)`` for the operator)."""
    public = getattr(exc, "public", None)
    return public if isinstance(public, str) else str(exc)


class DeliveryFailedError(FamilyMemoryError):
    """On one machine, delivering what a committed change caused (indexing, formation,
    a compile) failed with an error from outside the core; the change itself stands."""


class ConfigurationError(FamilyMemoryError):
    """The deployment's settings are missing or invalid (a variable not set, a value out of
    range): the operator's problem, never the caller's. The message names the variable; a
    caller outside the process is told only ``MISCONFIGURED`` (the API answers 500)."""

    public = MISCONFIGURED


class InvalidInputError(FamilyMemoryError, ValueError):
    """Input from outside (an id, a reference, a file, a request) is malformed.

    The message names the field and says what is wrong with it.
    """


class NotFoundError(FamilyMemoryError, LookupError):
    """The thing asked for does not exist (in this family)."""


class ConflictError(FamilyMemoryError):
    """The request conflicts with the current state."""


class StaleRevisionError(ConflictError):
    """A conditional write lost: the document changed since it was read."""


class AlreadyExistsError(StaleRevisionError):
    """A create-only write found the document already there."""


class LeaseHeldError(ConflictError):
    """Another writer holds the family's lease."""

    public = BUSY


class LeaseLostError(ConflictError):
    """This writer's lease was taken over; its writes are refused (fencing)."""

    public = BUSY


class PayloadTooLargeError(InvalidInputError):
    """A body or document is larger than the limit for it."""
