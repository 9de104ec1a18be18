"""A workload's settings: frozen dataclasses whose fields carry their help, bounds, choices and the styles they apply
to, and the one way every value is checked.

The CLI's flags, the dashboard's forms, links and sweeps are generated from this field metadata, so a value is
checked the same way wherever it comes from. Every invalid value raises ``ConfigError`` with one sentence; numbers
and ids from text are parsed strictly (ASCII digits, in range, never past the length Python can read).
"""

from __future__ import annotations

import dataclasses
import math
import re
import unicodedata
from dataclasses import field
from typing import Any, TypeVar

from rlcore.contract.text import number_text


class ConfigError(ValueError):
    """An invalid configuration value; the message is one sentence meant for the user.

    ``field`` names the setting the sentence is about (the first one, for a rule over several), so a
    form can show it beside that field.
    """

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


def param(
    default: Any,
    help: str,
    *,
    lo: float | None = None,
    hi: float | None = None,
    choices: tuple[str, ...] | None = None,
    flag: str | None = None,
    advanced: bool = False,
    styles: tuple[str, ...] | None = None,
    group: str = "",
    style: bool = False,
) -> Any:
    """A config field with its help text, inclusive bounds or choices, CLI flag name, and the execution styles it
    applies to (None: every style). ``group`` gathers fields in the form and in ``--help``; ``style`` marks the one
    field that says how a run executes (the others' ``styles`` name its values)."""
    meta = {"help": help, "lo": lo, "hi": hi, "choices": choices, "flag": flag, "advanced": advanced,
            "styles": styles, "group": group, "style": style}
    return field(default=default, metadata=meta)


DEVICES = ("cpu", "gpu")
DEVICE_HELP = "Device: cpu or gpu (gpu needs a GPU TensorFlow can see; the form shows why when it sees none)."
THREADS_HELP = "TensorFlow's CPU threads for the run (0 = its default, one per core)."
PROFILE_MAX = 100_000
PROFILE_HELP = ("Training steps to record with TensorFlow's profiler after warm-up (0 = none): the run's view then "
                "says why it is as fast as it is. The recorded steps are left out of its speed.")


def profile_param(what_a_step_is: str, **kwargs: Any) -> Any:
    """The ``profile`` setting every workload has, with what one of its steps is."""
    return param(0, f"{PROFILE_HELP} {what_a_step_is}", lo=0, hi=PROFILE_MAX, **kwargs)


def label_of(f: dataclasses.Field) -> str:
    """The name users see and type: the CLI flag / URL name (``lr``, ``batch``) or the field's own."""
    return f.metadata.get("flag") or f.name


def style_field_of(cls_or_cfg: Any) -> str | None:
    """The name of the field that says how a run executes (marked ``style=True``), or None."""
    if not dataclasses.is_dataclass(cls_or_cfg):
        return None
    return next((f.name for f in dataclasses.fields(cls_or_cfg) if f.metadata.get("style")), None)


def style_of(cfg: Any) -> str | None:
    """How a config executes: the value of its style field, or None."""
    name = style_field_of(cfg)
    return getattr(cfg, name) if name else None


def applies(f: dataclasses.Field, style: str | None) -> bool:
    """Whether a field means anything for a style (fields without ``styles`` apply to all)."""
    styles = f.metadata.get("styles")
    return styles is None or style is None or style in styles


def _check_field(f: dataclasses.Field, value: Any) -> None:
    meta = f.metadata
    label = label_of(f)
    if f.type in ("str", str) and meta.get("choices") is None:
        if not isinstance(value, str):
            raise ConfigError(f"{label} must be text, not {value!r}.", f.name)
        return  # free text (such as a comma-separated list) is checked by its config's __post_init__
    if f.type in ("bool", bool):
        if not isinstance(value, bool):
            raise ConfigError(f"{label} must be true or false, not {value!r}.", f.name)
        return
    if meta.get("choices") is not None:
        if value not in meta["choices"]:
            raise ConfigError(f"{label} must be one of {', '.join(meta['choices'])}, not {value!r}.", f.name)
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{label} must be a number, not {value!r}.", f.name)
    if f.type in ("int", int) and not isinstance(value, int):
        raise ConfigError(f"{label} must be a whole number, not {number_text(value)}.", f.name)
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(f"{label} must be a finite number, not {value!r}.", f.name)
    lo, hi = meta.get("lo"), meta.get("hi")
    if lo is not None and value < lo:
        raise ConfigError(f"{label} must be at least {number_text(lo)}, not {number_text(value)}.", f.name)
    if hi is not None and value > hi:
        raise ConfigError(f"{label} must be at most {number_text(hi)}, not {number_text(value)}.", f.name)


def check_value(f: dataclasses.Field, value: Any) -> Any:
    """One field's value (text from a link or the CLI, or a typed value) parsed and checked on its own."""
    value = _coerce(f, value)
    _check_field(f, value)
    return value


def check_fields(cfg: Any) -> None:
    """Check every field that applies to the config's style against its metadata (bounds, choices, type); a
    field that does not apply must keep its default, so no setting is silently ignored."""
    style = style_of(cfg)
    if style is not None:
        _check_field(next(f for f in dataclasses.fields(cfg) if f.metadata.get("style")), style)
    for f in dataclasses.fields(cfg):
        value = getattr(cfg, f.name)
        if applies(f, style):
            _check_field(f, value)
        elif value != f.default:
            raise ConfigError(f"{label_of(f)} does not apply to the {style} style (it applies to "
                              f"{', '.join(f.metadata['styles'])}); leave it at its default.", f.name)


Config = TypeVar("Config")


def from_dict(cls: type[Config], values: dict[str, Any]) -> Config:
    """Build a config from plain values (JSON, query params), rejecting unknown names clearly."""
    names = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(values) - set(names))
    if unknown:
        raise ConfigError(f"Unknown setting {unknown[0]!r}; known settings are {', '.join(names)}.", unknown[0])
    coerced = {k: _coerce(names[k], v) for k, v in values.items()}
    return cls(**coerced)


# Text a person typed is stored as typed but must be readable by everyone it is shown to: no terminal escapes
# or other control characters, no bidirectional overrides that reorder what follows, no undecodable bytes.
_BIDI = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")

LABEL_MAX, NOTES_MAX = 200, 5000  # characters of a run's label and notes


def check_text(text: Any, what: str, max_length: int, *, multiline: bool = False) -> str:
    """User text (a label, notes) checked as stored: valid UTF-8, printable, at most ``max_length`` characters.
    Returns it without surrounding spaces, or raises one sentence."""
    if not isinstance(text, str):
        raise ConfigError(f"{what} must be text, not {type(text).__name__}.", what)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ConfigError(f"{what} must be valid UTF-8 text (it holds bytes that are not).", what) from None
    text = text.strip()
    if len(text) > max_length:
        raise ConfigError(f"{what} must be at most {max_length:,} characters, not {len(text):,}.", what)
    allowed = "\n\t" if multiline else ""
    for char in text:
        if (unicodedata.category(char) == "Cc" and char not in allowed) or char in _BIDI:
            raise ConfigError(f"{what} must be printable text, without control characters such as "
                              f"U+{ord(char):04X}.", what)
    return text


def readable_name(text: str, max_length: int = LABEL_MAX) -> str:
    """A name the lab makes from something it did not choose (a file's name): undecodable bytes, control characters
    and bidirectional overrides written as escapes, cut to ``max_length`` characters, so it passes ``check_text``.
    (A name a person gives is checked instead, and refused with one sentence.)"""
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    text = "".join(f"\\x{ord(c):02x}" if unicodedata.category(c) == "Cc" or c in _BIDI else c for c in text).strip()
    return text if len(text) <= max_length else text[: max_length - 1] + "…"


DIGITS = re.compile(r"[0-9]+", re.ASCII)
_INT = re.compile(r"[+-]?[0-9]+", re.ASCII)
_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?(?:inf|infinity|nan)",
                    re.ASCII | re.IGNORECASE)
MAX_ID = 2**63 - 1  # SQLite's largest integer
MAX_DIGITS = 4000  # Python refuses to read a number past 4,300 digits, with a traceback; below, bounds say more


def shown(text: str) -> str:
    """User text quoted in a sentence, or its length when it is long."""
    return repr(text) if len(text) <= 40 else f"a {len(text):,}-character text"


def parse_int(text: str, label: str) -> int:
    """A whole number written in ASCII digits (``²`` or ``٣`` are not), or one sentence."""
    text = text.strip()
    if not _INT.fullmatch(text):
        raise ConfigError(f"{label} must be a whole number, not {shown(text)}.", label)
    if len(text.lstrip("+-")) > MAX_DIGITS:
        raise ConfigError(f"{label} must be a whole number of at most {MAX_DIGITS:,} digits, not a "
                          f"{len(text.lstrip('+-')):,}-digit number.", label)
    return int(text)


def parse_float(text: str, label: str) -> float:
    """A number written in ASCII (``1e-3``, ``0.5``), or one sentence."""
    text = text.strip()
    if not _FLOAT.fullmatch(text):
        raise ConfigError(f"{label} must be a number, not {shown(text)}.", label)
    if len(text) > MAX_DIGITS:
        raise ConfigError(f"{label} must be a number of at most {MAX_DIGITS:,} characters, not a "
                          f"{len(text):,}-character one.", label)
    value = float(text)
    if not math.isfinite(value):  # 1e400, or 400 nines: more than a float holds
        raise ConfigError(f"{label} must be a number a float can hold (up to about 1.8e308), not {shown(text)}.",
                          label)
    return value


def parse_id(text: str, what: str = "run") -> int:
    """A stored row's id from a link or the command line: ASCII digits, 1 to SQLite's largest integer."""
    text = text.strip()
    if not DIGITS.fullmatch(text) or len(text) > MAX_DIGITS or not 1 <= int(text) <= MAX_ID:
        cut = text if len(text) <= 40 else text[:40] + "…"
        raise ConfigError(f"{what} must be a {what} id like 3, not {cut!r}.", what)
    return int(text)


def int_list(label: str, text: str, hi: int, example: str = "1,100,10000") -> tuple[int, ...]:
    """Whole numbers from 1 to ``hi`` separated by commas (``1,100,10000``), each once, or one sentence; a number
    of any length is judged by its bounds, never read past what Python can read."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    width = len(str(hi))
    # Leading zeros count for nothing, and thousands of them are still thousands of digits to int().
    parts = [p.lstrip("0") or "0" if DIGITS.fullmatch(p) else p for p in parts]
    if not parts or not all(DIGITS.fullmatch(p) and len(p) <= width and 1 <= int(p) <= hi for p in parts):
        raise ConfigError(f"{label} must be whole numbers from 1 to {hi:,} separated by commas, like {example}, "
                          f"not {shown(text)}.", label)
    return tuple(dict.fromkeys(int(p) for p in parts))


TRUE, FALSE = ("true", "on", "yes", "1"), ("false", "off", "no", "0")  # on/off: links made before switches


def parse_bool(text: str, label: str) -> bool:
    """A switch written as text: true or false (on/off, yes/no, 1/0 too, any case), or one sentence."""
    word = text.strip().lower()
    if word in TRUE:
        return True
    if word in FALSE:
        return False
    raise ConfigError(f"{label} must be true or false, not {shown(text.strip())}.", label)


def field_error(f: dataclasses.Field, value: Any) -> ConfigError | None:
    """What is wrong with one field's value on its own (its type, bounds, choices), or None: a form flags every
    bad field at once, where a config stops at its first."""
    try:
        _check_field(f, _coerce(f, value))
    except ConfigError as e:
        return e
    return None


def _coerce(f: dataclasses.Field, value: Any) -> Any:
    """Turn strings (CLI, URL) into the field's type; leave other values to validation."""
    if not isinstance(value, str) or f.type in ("str", str):
        return value
    try:
        if f.type in ("bool", bool):
            return parse_bool(value, label_of(f))
        if f.type in ("int", int):
            return parse_int(value, label_of(f))
        if f.type in ("float", float):
            return parse_float(value, label_of(f))
    except ConfigError as e:
        raise ConfigError(str(e), f.name) from None
    return value
