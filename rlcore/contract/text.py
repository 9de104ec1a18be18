"""How every surface writes a number: counts with thousands separators, three significant digits below 100,
percentages with three significant digits, durations with their unit."""

from __future__ import annotations

import math
import re
from typing import Any


def number_text(value: Any) -> str:
    """A number as a sentence shows it: integers exactly with thousands separators (a 400-digit one by its
    length), other numbers in their shortest exact form."""
    if isinstance(value, int) and not isinstance(value, bool):
        digits = _digits(value)
        return f"{value:,}" if digits <= 30 else f"a {digits}-digit number"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    return re.sub(r"e([+-])0*(\d)", r"e\1\2", repr(value)).replace("e+", "e") if isinstance(value, float) \
        else str(value)


def _digits(value: int) -> int:
    """How many decimal digits a whole number has; Python refuses to write one past 4,300 digits as text, so a
    longer one is counted from its bits."""
    value = abs(value)
    return len(str(value)) if value.bit_length() < 14_000 else int(value.bit_length() * math.log10(2)) + 1


def percent_text(fraction: float) -> str:
    """A fraction as a percentage with three significant digits (95.8%, 5.41%, 0.0130%, 2,447,089%)."""
    if not math.isfinite(fraction):
        return str(fraction)
    value = 100.0 * fraction
    if value == 0:
        return "0%"
    digits = 0 if abs(value) >= 100 else max(1, 2 - math.floor(math.log10(abs(value))))
    return f"{value:,.{min(digits, 6)}f}%"


def seconds_text(value: float) -> str:
    """A duration with its unit: 2 ms, 12.3 s, 3 min 05 s, 1.5 h."""
    if value < 1:
        return f"{value * 1000:,.0f} ms" if value >= 0.001 else f"{value * 1e6:,.0f} µs"
    if value < 120:
        return f"{value:,.1f} s"
    minutes, rest = divmod(value, 60)
    return f"{minutes:,.0f} min {rest:02.0f} s" if minutes < 60 else f"{minutes / 60:,.1f} h"


def amount_text(value: float, unit: str = "") -> str:
    """A count or rate with thousands separators, three significant digits below 100: 184,608 steps/s, 4.87."""
    if abs(value) >= 100 or float(value).is_integer():
        text = f"{value:,.0f}"
    else:
        digits = max(0, 2 - math.floor(math.log10(abs(value)))) if value else 0
        text = f"{value:,.{min(digits, 6)}f}"
    return f"{text} {unit}".strip()


def count_text(per_step: float, noun: str, plural: str = "") -> str:
    """How many of a thing a step holds, as a person counts it: a count within 5% of a whole number is that whole
    number ("214 copies", not "214.0"; "1 call", not the "0.95" a window's edge makes of it); else two significant
    digits ("2.5 calls")."""
    many = plural or noun + "s"
    whole = round(per_step)
    if whole >= 1 and abs(per_step - whole) <= 0.051 * whole:
        return f"{whole:,} {noun if whole == 1 else many}"
    return f"{per_step:,.2g} {many}" if per_step < 100 else f"{per_step:,.0f} {many}"
