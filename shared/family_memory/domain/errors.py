"""The core's exceptions. Adapters translate vendor errors into these.

The API layer maps each class to one HTTP status in one place; nothing
matches on message text.
"""

from __future__ import annotations


class FamilyMemoryError(Exception):
    """Base of every error the core raises on purpose."""


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


class LeaseLostError(ConflictError):
    """This writer's lease was taken over; its writes are refused (fencing)."""


class PayloadTooLargeError(InvalidInputError):
    """A body or document is larger than the limit for it."""
