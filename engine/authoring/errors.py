"""The one error authoring raises: a change that cannot be made, with a one-line reason."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from engine.edits import evolve

M = TypeVar("M", bound=BaseModel)


class AuthoringError(ValueError):
    """A duplicate or empty name, an unknown entity, a bad type string: the reason is the message."""


def evolve_checked(obj: M, **changes: Any) -> M:
    """`evolve`, with what the model refuses (a `where` nested beyond the limits, a bad type...) raised as an
    `AuthoringError` naming the field, so every front end shows it as a refusal, never a traceback."""
    try:
        return evolve(obj, **changes)
    except ValidationError as exc:
        raise refusal(exc) from None


def refusal(exc: ValidationError) -> AuthoringError:
    """What the model refused, as one line naming the field (pydantic's own first line only counts the
    errors: "1 validation error for Mapping")."""
    err = exc.errors(include_url=False)[0]
    field = ".".join(str(x) for x in err["loc"] if not str(x).startswith("function"))
    message = str(err["msg"]).removeprefix("Value error, ")
    return AuthoringError(f"{field}: {message}" if field else message)
