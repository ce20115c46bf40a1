"""The one error authoring raises: a change that cannot be made, with a one-line reason."""

from __future__ import annotations


class AuthoringError(ValueError):
    """A duplicate or empty name, an unknown entity, a bad type string: the reason is the message."""
