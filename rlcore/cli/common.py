"""What every command shares: the parser that fails in one sentence, flags generated from a config, output paths
checked before any work, the one-sentence error."""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rlcore.contract import workloads
from rlcore.contract.params import ConfigError, label_of

EXIT_BAD_INPUT = 2
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


SUBCOMMAND_DESTS = ("command", "runs_command", "sweeps_command")  # the parser's dest of each level of commands


class Parser(argparse.ArgumentParser):
    """argparse, but a bad argument is one sentence and exit 2, without the usage block, and a flag is never
    guessed from its first letters (``--epoch`` is not ``--epochs``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_BAD_INPUT, f"error: {printable(message)} (see {self.prog} --help)\n")

    def parse_args(self, args: Any = None, namespace: Any = None) -> argparse.Namespace:  # type: ignore[override]
        """An unknown flag points to the help of the command it was given to (``rlcore runs show --help``), where
        argparse's own points to the top level."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            chosen = [getattr(parsed, name, None) for name in SUBCOMMAND_DESTS]
            where = " ".join([self.prog, *(c for c in chosen if isinstance(c, str))])
            self.exit(EXIT_BAD_INPUT, f"error: unrecognized arguments: {printable(' '.join(extras))[:200]} (see "
                                      f"{where} --help)\n")
        return parsed


def printable(text: Any) -> str:
    """Text for a terminal: control characters (escape sequences among them) shown as �."""
    return _CONTROL.sub("\ufffd", str(text))


def _style_note(styles: tuple[str, ...] | None) -> str:
    return f" ({' / '.join(styles)} only)" if styles else ""


def add_config_flags(parser: argparse.ArgumentParser, workload: workloads.Workload) -> None:
    """One flag per config field, grouped as the form groups them, with help, default, choices and the styles a
    field applies to. A flag not given stays None, so presets and defaults fill it in and only what the user
    typed is checked against the style."""
    cls = workload.config
    groups: dict[str, list[dataclasses.Field]] = {}
    for f in dataclasses.fields(cls):
        groups.setdefault(f.metadata.get("group") or "Settings", []).append(f)
    for title, members in groups.items():
        shared = {f.metadata.get("styles") for f in members}
        group_styles = shared.pop() if len(shared) == 1 else None
        group = parser.add_argument_group(title + _style_note(group_styles))
        for f in members:
            meta = f.metadata
            note = "" if group_styles else _style_note(meta.get("styles"))
            default = f.default if f.default != "" else "empty"
            if isinstance(f.default, bool):  # a switch: --xla false (on/off read too, as links made before)
                default = "true" if f.default else "false"
            metavar = None if meta.get("choices") else "true|false" if isinstance(f.default, bool) \
                else label_of(f).upper()
            group.add_argument("--" + label_of(f).replace("_", "-"), dest=f.name, default=None,
                               choices=meta.get("choices"), metavar=metavar,
                               help=f"{meta['help']}{note} (default: {default})")


def moved_command(argv: Sequence[str]) -> str | None:
    """The command that now runs what ``argv`` asked of a workload whose values moved to another (``rlcore dqn
    --exec turbo --turbo-games 16``, written while turbo was the DQN's style: ``rlcore turbo --games 16``), as one
    sentence; None when ``argv`` is no such command. Flags that are no setting (``--json``) go along as written."""
    if not argv or not workloads.WORKLOADS.has(argv[0]):
        return None
    workload = workloads.get(argv[0])
    values: dict[str, str] = {}
    others: list[str] = []
    tokens = list(argv[1:])
    while tokens:
        token = tokens.pop(0)
        name, _, value = token[2:].partition("=")
        f = workload.field(name.replace("-", "_")) if token.startswith("--") else None
        if f is None and not (token.startswith("--") and name.replace("-", "_").startswith("turbo_")):
            others.append(token)
            continue
        if not value and tokens and not tokens[0].startswith("--"):
            value = tokens.pop(0)
        values[f.name if f is not None else name.replace("-", "_")] = value
    moved = workload.moved(values)
    if moved is None or not workloads.WORKLOADS.has(moved.kind):
        return None
    target = workloads.get(moved.kind)
    flags = [part for name, value in moved.values.items() if (g := target.field(name)) is not None
             for part in ("--" + label_of(g).replace("_", "-"), value)]
    style = {workload.style_field: values.get(workload.style_field)} if workload.style_field else {}
    left = [label_of(f) if (f := workload.field(name)) is not None else name for name, value in values.items()
            if name not in style and not getattr(workload.moved(style | {name: value}), "values", None)]
    command = printable(" ".join(["rlcore", moved.kind, *flags, *others]))[:300]
    return (f"{moved.kind} is a workload of its own now; the same run: {command}"
            + (f" (left out, as {moved.kind} never read them: {', '.join(left)})" if left else "") + ".")


def given_values(cls: type, args: argparse.Namespace) -> dict[str, Any]:
    return {f.name: getattr(args, f.name) for f in dataclasses.fields(cls) if getattr(args, f.name) is not None}


def writable_dir(text: str, flag: str) -> Path:
    """An output folder checked before any work: named, not a file, made if missing, writable."""
    if not text.strip():
        raise ConfigError(f"{flag} needs a folder name, not an empty one.")
    path = Path(text)
    shown = printable(text if len(text) <= 80 else text[:80] + "…")
    try:  # a name too long raises from exists() already
        if path.exists() and not path.is_dir():
            raise ConfigError(f"{flag} names a file, not a folder: {shown}.")
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ConfigError(f"{flag} cannot be made: {e.strerror or e} ({shown}); name a folder you may write.") from None
    if not os.access(path, os.W_OK):
        raise ConfigError(f"{flag} cannot be written: {shown} is not writable; name a folder you may write.")
    return path


def writable_path(text: str, flag: str, suffix: str | None = None) -> Path:
    """An output file checked before any work is done: named, in an existing directory, writable."""
    if not text.strip():
        raise ConfigError(f"{flag} needs a file name, not an empty one.")
    path = Path(text)
    shown = printable(text if len(text) <= 80 else text[:80] + "…")
    if suffix and path.suffix != suffix:
        raise ConfigError(f"{flag} must name a {suffix} file, not {shown!r}.")
    try:
        if path.is_dir():
            raise ConfigError(f"{flag} names a directory ({shown}); give a file name in it.")
        if not path.parent.is_dir():
            raise ConfigError(f"{flag} cannot be written: the directory {path.parent} does not exist.")
        existed = path.exists()
        if existed and not path.is_file():  # a pipe or a device: opening it could block, or write anywhere
            raise ConfigError(f"{flag} names something that is not a regular file ({shown}); give a file name.")
        with open(path, "a"):
            pass
    except OSError as e:  # a name too long, no permission, a read-only disk
        raise ConfigError(f"{flag} cannot be written: {e.strerror or e} ({shown}); name a file you may "
                          "write.") from None
    if not existed:
        path.unlink(missing_ok=True)
    return path




def fail(message: str) -> int:
    print(f"error: {printable(message)}", file=sys.stderr)
    return EXIT_BAD_INPUT


