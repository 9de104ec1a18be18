"""A run of a person's own code: which script, with which arguments, in which folder, and its profile window."""

from __future__ import annotations

import json
from dataclasses import dataclass

from rlcore.contract.params import ConfigError, check_fields, param, profile_param, shown

WARMUP = 10  # steps before a profile window: the first ones trace, compile and warm caches (the TF guide's advice)


@dataclass(frozen=True)
class ScriptConfig:
    """Your script, run as ``python <path> <args>`` would run it, in ``cwd``."""

    path: str = param("", "The script (its path), as python would run it.")
    args: str = param("[]", "Its arguments, as a JSON list of strings.", advanced=True)
    cwd: str = param("", "The folder it runs in (its working directory); empty: where the lab runs.", advanced=True)
    profile: int = profile_param("Your code: its training steps as the lab finds them (optimizer updates, calls of "
                                 "a training tf.function, model.fit's batches, run.step()).")
    warmup: int = param(WARMUP, "Training steps before the profiled ones: the first ones trace and compile.", lo=0,
                        hi=10_000_000)
    sha256: str = param("", "The script's content hash when the run was made: a run again says when it changed.",
                        advanced=True)
    name: str = param("", "What the run is called when nobody labels it (the script's file name).", advanced=True)
    fix: str = param("", "A fix the lab applies without editing the script, to measure it (one a cause's rule "
                     "declares: steps_per_execution, jit_compile, predict, ...); empty: none.", advanced=True)
    fix_of: int = param(0, "The run whose script this run tries a fix on (0: none).", lo=0, hi=2**63 - 1,
                        advanced=True)
    causes: str = param("", "The cause plug-ins (RLCORE_CAUSES) asked for when the run was made: the run is read "
                        "with these, whichever process carries it out.", advanced=True)

    def __post_init__(self) -> None:
        check_fields(self)
        _ = self.argv
        if self.fix:
            from rlcore.tracking.causes import fixes  # declared beside their rules (a plug-in's bring their own)

            known = fixes()
            if self.fix not in known:
                raise ConfigError(f"fix must be one of {', '.join(known)}, not {shown(self.fix)}.", "fix")

    @property
    def argv(self) -> list[str]:
        try:
            values = json.loads(self.args or "[]")
        except ValueError:
            values = None
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise ConfigError(f"args must be a JSON list of strings, like [\"--epochs\", \"3\"], not "
                              f"{shown(self.args)}.", "args")
        return values
