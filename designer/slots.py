"""Zero-argument slots bound to their arguments: what `lambda x=x: f(x)` did in a menu-building loop, typed."""

from __future__ import annotations

from collections.abc import Callable
from typing import ParamSpec

P = ParamSpec("P")


def bound(fn: Callable[P, object], /, *args: P.args, **kwargs: P.kwargs) -> Callable[[], None]:
    """A slot calling `fn(*args, **kwargs)` with the arguments of the moment it was made (a loop's variable,
    not its last value) and nothing from the signal: a menu action's `checked` is not passed on. mypy checks
    the arguments against `fn`, which it cannot do for a lambda's default arguments among Qt's overloads."""

    def slot() -> None:
        fn(*args, **kwargs)

    return slot
