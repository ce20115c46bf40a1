"""Spark's DOUBLE and FLOAT as the reference evaluator holds them: the 32-bit FLOAT, and both as text.

Spark renders a DOUBLE or FLOAT as the JVM's `Double.toString` / `Float.toString` do: plain notation with
at least one digit after the point when 10^-3 <= |x| < 10^7 (`100.0`, `0.001`), else computerized scientific
notation (`1.0E-4`, `1.2345678E7`, `1.0E20`); `NaN`, `Infinity`, `-Infinity`, `-0.0`.

The digits are not always the shortest that read back (Python's `repr`): the JDK that runs Spark here
(17; the shortest-digits algorithm came in 19) chooses them with the older algorithm of its
`FloatingDecimal`, which prints more for some values (`1.0E23` is `9.999999999999999E22`, a FLOAT of
85001538371584 is `8.5001538E13`) and fewer for others (`4.9E-324`). `_java_digits` follows that
algorithm's arithmetic step by step (an independent Python rendering of its published behaviour, checked
against Spark on thousands of values in tests/sql), including the 32- and 64-bit integer paths whose
overflow decides some last digits.

A FLOAT is a Python float holding a 32-bit value (`Float32`), so that its text has the digits a 32-bit
float needs (`cast(0.1 AS FLOAT)` is `0.1`, not `0.10000000149011612`).
"""

from __future__ import annotations

import math
import struct
from decimal import Decimal


class Float32(float):
    """A value of Spark's FLOAT type: a double that holds a 32-bit float exactly."""


class IntegralFloat32(Float32):
    """A FLOAT cast from an integer, which keeps the integer: where it meets a DOUBLE (or is cast to one),
    Spark's optimizer drops the cast to FLOAT (SimplifyCasts takes INT -> FLOAT -> DOUBLE for a widening), so
    the integer itself is widened, unrounded (`cast(I AS FLOAT) * 3` is `I * 3.0`)."""

    whole: int


def integral_float32(whole: int) -> IntegralFloat32:
    value = IntegralFloat32(to_float32(whole))
    value.whole = whole
    return value


def as_double(value: float | int | Decimal) -> float:
    """A DOUBLE or FLOAT as the DOUBLE Spark widens it to (a FLOAT cast from an integer: the integer)."""
    return float(value.whole) if isinstance(value, IntegralFloat32) else float(value)


def to_float32(value: float | int | Decimal) -> Float32:
    """`value` rounded to the nearest 32-bit float (ties to even), as the JVM's `(float)` conversion rounds;
    past the largest one it is an infinity."""
    if isinstance(value, Decimal):
        return _decimal_to_float32(value)
    number = float(value)
    try:
        return Float32(struct.unpack("f", struct.pack("f", number))[0])
    except OverflowError:  # beyond the largest 32-bit float by half a unit in the last place or more
        return Float32(math.copysign(math.inf, number))


def _decimal_to_float32(value: Decimal) -> Float32:
    """A decimal to the nearest 32-bit float in one rounding (through a double it could round twice)."""
    guess = to_float32(float(value))
    if not value.is_finite() or not math.isfinite(guess):
        return guess
    candidates = [c for c in (guess, _next_float32(guess, -1), _next_float32(guess, 1)) if math.isfinite(c)]
    return Float32(min(candidates, key=lambda c: (abs(Decimal(c) - value), _float32_bits(c) & 1)))


def _next_float32(value: float, direction: int) -> float:
    """The adjacent 32-bit float above (direction 1) or below (-1) a finite one."""
    if value == 0:
        return float(direction * struct.unpack("f", struct.pack("I", 1))[0])
    bits = _float32_bits(value) + (direction if value > 0 else -direction)
    return float(struct.unpack("f", struct.pack("I", bits & 0xFFFFFFFF))[0])


def _float32_bits(value: float) -> int:
    return int(struct.unpack("I", struct.pack("f", value))[0])


def spark_float_text(value: float) -> str:
    """A DOUBLE (or a `Float32`, as a FLOAT) as Spark's cast to STRING renders it."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    sign = "-" if math.copysign(1.0, value) < 0 else ""
    if value == 0:
        return sign + "0.0"
    digits, point = _java_digits(abs(value), isinstance(value, Float32))
    return sign + _java_layout(digits, point)


def _java_layout(digits: str, point: int) -> str:
    """Digits meaning 0.d1d2... x 10^point, laid out as the JVM lays them out."""
    if 0 < point < 8:
        whole, fraction = digits[:point], digits[point:]
        return whole.ljust(point, "0") + "." + (fraction or "0")
    if -3 < point <= 0:
        return "0." + "0" * -point + digits
    return f"{digits[0]}.{digits[1:] or '0'}E{point - 1}"


# --- the JDK 17 digit generation ---------------------------------------------------------------------------

_SIGNIFICAND_BITS = 52  # below the hidden bit of a double
_N_5_BITS = tuple((5 ** i).bit_length() if i else 0 for i in range(27))
"""About log2(5^i), as the JDK's table has it, for the bit-size test that picks the arithmetic."""


def _java_digits(value: float, single: bool) -> tuple[str, int]:
    """The digits the JVM prints for a finite positive value and its decimal point (0.d1d2... x 10^point)."""
    fraction, binary_exponent, significant = _unpack(value, single)
    trailing = (fraction & -fraction).bit_length() - 1
    fraction_bits = _SIGNIFICAND_BITS + 1 - trailing
    tiny_bits = max(0, fraction_bits - binary_exponent - 1)
    if -21 <= binary_exponent <= 62 and tiny_bits == 0:  # a whole number below 2^63
        return _whole_digits(fraction, binary_exponent, significant)
    return _fraction_digits(fraction, binary_exponent, significant, fraction_bits, tiny_bits)


def _unpack(value: float, single: bool) -> tuple[int, int, int]:
    """The significand with its leading bit at bit 52, the unbiased binary exponent, and how many bits of
    the significand the type holds (fewer for a subnormal)."""
    if single:
        bits, width, bias = _float32_bits(value), 23, 127
    else:
        bits, width, bias = struct.unpack("Q", struct.pack("d", value))[0], 52, 1023
    fraction, exponent = bits & ((1 << width) - 1), bits >> width
    if exponent == 0:  # subnormal: normalized, and fewer significant bits
        significant = fraction.bit_length()
        shift = width + 1 - significant
        fraction, exponent = fraction << shift, 1 - shift
    else:
        fraction, significant = fraction | (1 << width), width + 1
    return fraction << (_SIGNIFICAND_BITS - width), exponent - bias, significant


def _whole_digits(fraction: int, binary_exponent: int, significant: int) -> tuple[str, int]:
    """A whole number's digits, its last ones past what the type holds rounded off (half up)."""
    whole = fraction << (binary_exponent - 52) if binary_exponent >= 52 else fraction >> (52 - binary_exponent)
    excess = binary_exponent - significant - 1
    dropped = len(str(1 << excess)) - 1 if 1 < excess < 64 else 0
    if dropped:
        power = 10 ** dropped
        whole, rest = divmod(whole, power)
        whole += rest >= power // 2
    text = str(whole)
    return text.rstrip("0"), len(text) + dropped


def _estimate_exponent(fraction: int, binary_exponent: int) -> int:
    """The JDK's estimate of floor(log10(value)), in its own double arithmetic (never too low, at
    times one too high)."""
    mantissa = struct.unpack("d", struct.pack("Q", (1023 << 52) | (fraction & ((1 << 52) - 1))))[0]
    estimate = (mantissa - 1.5) * 0.289529654 + 0.176091259 + binary_exponent * 0.301029995663981
    return int(math.floor(estimate))


def _fraction_digits(fraction: int, binary_exponent: int, significant: int, fraction_bits: int,
                     tiny_bits: int) -> tuple[str, int]:
    """Digits of value = B / S x 10^exponent, generated until the remainder is within M (half a unit in the
    last place, symmetric), then the last one rounded; at least two digits in scientific notation."""
    exponent = _estimate_exponent(fraction, binary_exponent)
    b5, s5 = max(0, -exponent), max(0, exponent)
    b2, s2 = b5 + tiny_bits + binary_exponent, s5 + tiny_bits
    m2 = b2 - significant
    fraction >>= (_SIGNIFICAND_BITS + 1 - fraction_bits)
    b2 -= fraction_bits - 1
    common = min(b2, s2)
    b2, s2, m2 = b2 - common, s2 - common, m2 - common
    if fraction_bits == 1:  # a power of two: the value below is half as far
        m2 -= 1
    if m2 < 0:
        b2, s2, m2 = b2 - m2, s2 - m2, 0
    b_bits = fraction_bits + b2 + (_N_5_BITS[b5] if b5 < len(_N_5_BITS) else b5 * 3)
    ten_s_bits = s2 + 1 + (_N_5_BITS[s5 + 1] if s5 + 1 < len(_N_5_BITS) else (s5 + 1) * 3)
    width = 32 if b_bits < 32 and ten_s_bits < 32 else 64 if b_bits < 64 and ten_s_bits < 64 else 0
    b, s, m = (fraction * 5 ** b5) << b2, 5 ** s5 << s2, 5 ** b5 << m2
    digits, exponent, high, low, over_half = _generate(b, s, m, exponent, width)
    if high and (not low or over_half > 0 or (over_half == 0 and digits[-1] % 2)):
        digits, exponent = _round_up(digits, exponent)
    return "".join(map(str, digits)), exponent + 1


def _generate(b: int, s: int, m: int, exponent: int, width: int) -> tuple[list[int], int, bool, bool, int]:
    """The digit loop. `width` 32 or 64 is the JDK's int or long arithmetic (M's growth may wrap there, as
    it does in Java), 0 its big integers (whose `high` test is `>=`, where the others' is `>`)."""

    def wrap(x: int) -> int:
        return ((x + (1 << (width - 1))) % (1 << width)) - (1 << (width - 1)) if width else x

    ten_s = wrap(s * 10)
    digits: list[int] = []

    def step(first: bool = False) -> tuple[int, bool, bool]:
        nonlocal b, m
        q, rest = divmod(b, s)
        b, m = wrap(10 * rest), wrap(m * 10)
        if width and m <= 0 and not first:  # Java tests for the wrap after the first digit only
            return q, True, True
        return q, b < m, (b + m >= ten_s) if not width else wrap(b + m) > ten_s

    b, s, m = wrap(b), wrap(s), wrap(m)
    q, low, high = step(first=True)
    if q == 0 and not high:
        exponent -= 1
    else:
        digits.append(q)
    if exponent < -3 or exponent >= 8:
        high = low = False
    while not low and not high:
        q, low, high = step()
        digits.append(q)
    over_half = (b << 1) - ten_s
    return digits, exponent, high, low, (over_half > 0) - (over_half < 0)


def _round_up(digits: list[int], exponent: int) -> tuple[list[int], int]:
    """One added to the last digit; a carry out of the first makes it 1, the rest 0, one place higher."""
    out = list(digits)
    i = len(out) - 1
    while i >= 0 and out[i] == 9:
        out[i] = 0
        i -= 1
    if i < 0:
        out[0] = 1
        return out, exponent + 1
    out[i] += 1
    return out, exponent
