"""What a workload is, as the rest of the lab reads it: one declaration per kind of run, registered by its own
package.

A workload is a config class (its fields carry help, bounds and the styles they apply to), one ``train(cfg,
reporter) -> Outcome`` entry, the headline numbers its runs are compared by, the yardstick that judges a finished
run, the charts it wants, and its face (title, icon, presets and what they are for). The store, the executors, the
CLI, the pages, comparisons and sweeps read these declarations; none of them names a workload, a style or a metric
of one. A workload also declares its capabilities instead of being recognised by name: the framework a config
trains with (the environment card, threads, Ray), the kind of each chart, how its stored configs upgrade.

A new workload is one package under ``rlcore/workloads/`` that calls ``WORKLOADS.register(...)`` (found there
without a list), or any installed package's module declared as an entry point in the ``rlcore.workloads`` group, or
a module named in ``RLCORE_WORKLOADS``. Importing this module never imports TensorFlow.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol

from rlcore.contract import settings
from rlcore.contract.params import ConfigError, applies, from_dict, label_of, style_field_of, style_of
from rlcore.contract.registry import Registry
from rlcore.contract.reporting import Reporter
from rlcore.contract.text import amount_text, percent_text, seconds_text


@dataclass(frozen=True)
class Headline:
    """A number a finished run is compared by, read from its summary."""

    key: str
    label: str
    unit: str = ""  # "%" (the value is a fraction), "s", "x", or a rate such as "steps/s"
    better: str = "higher"  # or "lower"

    @property
    def timed(self) -> bool:
        """Whether the number is a speed or a duration (what a live view watching the run can distort)."""
        return self.unit in ("s", "x") or self.unit.endswith("/s")

    def text(self, value: float | None) -> str:
        """The number as every surface writes it: 95.8%, 184,608 steps/s, 12.3 s, 51.0x."""
        if value is None or not math.isfinite(value):
            return "–"
        if self.unit == "%":
            return percent_text(value)
        if self.unit == "s":
            return seconds_text(value)
        if self.unit == "x":
            return f"{value:,.1f}x"
        return amount_text(value, self.unit)


CHART_KINDS = ("line", "phases", "auto", "system")


@dataclass(frozen=True)
class Chart:
    """A chart of a run. ``line``: one metric over steps. ``phases``: the cumulative seconds of every metric under
    the prefix ``metric`` (where the time goes). ``auto``: one line chart per metric the run logged under the
    prefix ``metric`` ("" = any), found from the data as TensorBoard's scalars plugin does (a user's own
    ``val_loss``), leaving out what other charts of the run show. ``system``: the machine's cores (the lab adds it to
    every run's charts)."""

    metric: str
    title: str
    log_y: bool = False
    percent: bool = False
    smooth: bool = False  # offer EMA smoothing (noisy series such as the loss)
    kind: str = "line"
    bar: str = ""  # its short name on the CLI's progress bar ("" = not shown there)

    def __post_init__(self) -> None:
        if self.kind not in CHART_KINDS:
            raise ValueError(f"a chart's kind is one of {', '.join(CHART_KINDS)}, not {self.kind!r}.")


@dataclass(frozen=True)
class Verdict:
    """A finished run judged by its workload's yardstick: level ok / rough / fail (or info: not meant to be judged,
    such as a speed test), a word, one sentence."""

    level: str
    word: str
    text: str


@dataclass(frozen=True)
class Outcome:
    """What a training returns: the summary the run stores, files to keep beside it, and whether it stopped early."""

    summary: dict[str, Any]
    artifacts: dict[str, bytes] = field(default_factory=dict)
    stopped: bool = False


@dataclass(frozen=True)
class Artifact:
    """A file a run keeps beside it, as its workload declares it: what it is decides who may download it (a trained
    model or a profile's capture goes to viewers only when the operator allows it), never its file name's ending."""

    name: str  # its path under the run's folder; a folder ends in "/" (a profile's capture)
    kind: str  # "model", "capture", "data" (replays, a log: anyone may read it)
    help: str = ""


ARTIFACT_KINDS = ("model", "capture", "data")


@dataclass(frozen=True)
class Output:
    """An artifact the CLI can write where the user says (``--save-model x.keras``)."""

    flag: str
    artifact: str
    suffix: str
    help: str
    styles: tuple[str, ...] | None = None  # the styles that make the artifact (None: every style)


FRAMEWORKS = ("tensorflow", "torch", "jax", "none")


class CodeSession(Protocol):
    """A run of a person's own code in their own process, as ``rlcore.init`` and the Keras callback drive it."""

    @property
    def stopped(self) -> bool: ...

    def log(self, metrics: dict[str, Any]) -> bool: ...

    def step(self, units: int = 1) -> AbstractContextManager[None]: ...

    def end(self) -> dict[str, Any]: ...

    def finish(self, summary: dict[str, Any]) -> dict[str, Any]: ...


@dataclass(frozen=True)
class OwnCode:
    """How a workload runs a person's code in the person's own process (``rlcore.init``, ``rlcore.keras``):
    ``config_of_this_process(name, profile, warmup)``: the config values of this process's code (its script,
    argv, folder); ``start(reporter, cfg, profile_dir)``: a session of that code reporting to ``reporter``;
    ``joined()``: the session this process already runs (a script under ``rlcore profile``), or None;
    ``label(cfg)``: the run's name; ``keras_callback()``: the Keras callback class (imports Keras)."""

    config_of_this_process: Callable[[str, int, int], dict[str, Any]]
    start: Callable[[Reporter, Any, str], CodeSession]
    joined: Callable[[], CodeSession | None]
    label: Callable[[Any], str]
    keras_callback: Callable[[], type]


@dataclass(frozen=True)
class Workload:
    kind: str
    title: str
    description: str
    config: type
    train: Callable[[Any, Reporter], Outcome]
    judge: Callable[[Any, dict[str, Any]], Verdict]
    headlines: tuple[Headline, ...]
    charts: tuple[Chart, ...] = ()
    # Named starting points; the form's choice is bound to the URL under ``preset_param``. When that name is also
    # a config field (the bench's workload), the preset sets it like any other field.
    presets: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    preset_param: str = "preset"
    preset_help: Mapping[str, str] = field(default_factory=dict)  # one sentence per preset: what it is for
    icon: str = ":material/science:"  # its page's icon in the menu (a Material icon: emoji need a font)
    yardstick: str = ""  # how a result is judged, in a sentence or two (the form says it above the settings)
    describe: Callable[[Any, dict[str, Any]], str] | None = None  # the CLI's closing line(s)
    # Why this machine cannot run a valid config (a framework of an optional extra not installed), or None. Read
    # from package metadata: the dashboard asks it without importing anything.
    unavailable: Callable[[Any], str | None] = lambda cfg: None
    outputs: tuple[Output, ...] = ()
    artifacts: tuple[Artifact, ...] = ()  # the files its runs keep (a profile's capture is every workload's)
    unit: str = "steps"  # what the summary's steps count
    # The framework a config trains with, one of FRAMEWORKS: which environment card, which threads to set.
    framework: Callable[[Any], str] = lambda cfg: "tensorflow"
    metric_titles: Mapping[str, str] = field(default_factory=dict)  # titles of metrics no chart names
    # Upgrades of stored configs: the store's schema version that introduced each -> a function taking a stored
    # config (a dict) to today's form. The store runs them when it migrates, so no stored run loses its meaning.
    upgrades: Mapping[int, Callable[[dict[str, Any]], dict[str, Any]]] = field(default_factory=dict)
    # Runs of this kind are started by the user's own code (a script, rlcore.init), not from a form: ``rlcore
    # profile SCRIPT ARGS`` makes one from the values path, args (a JSON list), cwd, profile, warmup and name.
    from_code: bool = False
    own_code: OwnCode | None = None  # how it runs code in the person's own process (rlcore.init, the callback)
    # Its runs are a profile made elsewhere, read (``rlcore why PATH`` makes one from the values source, run, name).
    reads_captures: bool = False
    # Checks and completes plain values before a run is stored (that a script exists and parses, its hash), with
    # one ConfigError; None: the config's own checks are all.
    prepare: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    # Which code a run ran (path, sha256, git commit...), for its environment card; None: the lab's own code.
    code: Callable[[Any], dict[str, Any]] | None = None
    order: int = 100  # its place in menus and lists (lower first); the same order: by kind
    # Values of this workload's (a stored config, a link's, a sweep's base, by field or flag name) that belong to
    # another workload now, as that workload's values; None when they are still this workload's. ``moved_at``: the
    # store schema version that moves stored runs.
    moved: Callable[[Mapping[str, Any]], Moved | None] = lambda values: None
    moved_at: int = 0

    def make_config(self, values: Mapping[str, Any], preset: str | None = None) -> Any:
        """A validated config from a preset plus plain values (JSON, URL text, CLI), or one ConfigError."""
        base = dict(self.presets.get(preset, {})) if preset else {}
        if preset and preset not in self.presets:
            raise ConfigError(f"{self.preset_param} must be one of {', '.join(self.presets)}, not {preset!r}.",
                              self.preset_param)
        return from_dict(self.config, base | dict(values))

    def defaults(self, preset: str | None = None) -> dict[str, Any]:
        """Every field's value before the user changes anything: the class defaults under the preset's."""
        values = {f.name: f.default for f in dataclasses.fields(self.config)}
        return values | dict(self.presets.get(preset, {}) if preset else {})

    @property
    def default_preset(self) -> str | None:
        return next(iter(self.presets), None)

    @property
    def style_field(self) -> str | None:
        """The config field that says how a run executes (its styles), if the workload has styles."""
        return style_field_of(self.config)

    def field(self, name: str | None) -> dataclasses.Field | None:
        """A setting by its name or by the name users type (a flag such as ``batch`` for ``batch_size``)."""
        return next((f for f in dataclasses.fields(self.config) if name in (f.name, label_of(f))), None)

    def style_text(self, config: Mapping[str, Any]) -> str:
        """How a run executes, as tables show it: its style, or the preset when the preset is a field."""
        name = self.style_field or (self.preset_param if self.field(self.preset_param) else None)
        return str(config.get(name) or "") if name else ""

    def artifact_kind(self, name: str) -> str:
        """What a run's file is, by this workload's declaration (a profile's capture is every run's); a file it
        does not declare is treated as a model: shown to viewers only when the operator allows models."""
        for artifact in (*self.artifacts, *COMMON_ARTIFACTS):
            if name == artifact.name or (artifact.name.endswith("/") and name.startswith(artifact.name)):
                return artifact.kind
        return "model"


@dataclass(frozen=True)
class Moved:
    """Values that belong to another workload now (a style that became a workload of its own): its kind and the
    values in its own names. The store moves stored runs with it; a link or a command names the new place."""

    kind: str
    values: dict[str, Any]


COMMON_ARTIFACTS = (Artifact("profile/", "capture", "TensorFlow's profiler capture of the profiled steps"),)


PLUGIN_ENV = settings.WORKLOADS.name  # more workload modules, comma-separated; worker processes inherit it
WORKLOADS: Registry[Workload] = Registry("kind", group="rlcore.workloads", env=settings.WORKLOADS.name,
                                         builtin_package="rlcore.workloads", order=lambda w: (w.order, w.kind))


def register(workload: Workload) -> Workload:
    return WORKLOADS.register(workload.kind, workload)


def get(kind: str) -> Workload:
    """The workload of a kind, or one sentence listing the kinds there are."""
    return WORKLOADS.get(kind)


@dataclass(frozen=True)
class _NoSettings:
    """The settings of a run whose workload this lab does not have: none it can read."""


def _cannot_train(cfg: Any, reporter: Reporter) -> Outcome:
    raise ConfigError("This run's workload is not installed here, so it cannot train; install the package that "
                      "registers it (or name its module in RLCORE_WORKLOADS) to run it.")


def code_workload() -> Workload:
    """The workload that runs a person's own code in their process (it declares ``own_code``), or one sentence."""
    found = next((w for w in all_workloads() if w.own_code is not None), None)
    if found is None:
        raise ConfigError("This lab has no workload that runs your own code.")
    return found


def of_run(kind: str) -> Workload:
    """The workload a stored run shows by: its own, or, for a kind no registered workload has (a removed plug-in,
    an older store), a stand-in that shows what was stored (the charts found from its metrics, its summary) and
    says in one sentence why nothing more, so a run view, a table or a comparison never fails on it."""
    found = WORKLOADS.find(kind)
    if found is not None:
        return found
    sentence = unknown_kind_sentence(kind)
    return Workload(kind=kind, title=f"{kind[:40]} (not installed)", description=sentence, config=_NoSettings,
                    train=_cannot_train, judge=lambda cfg, summary: Verdict("info", "not installed", sentence),
                    headlines=(), charts=(Chart("", "what it logged", kind="auto"),), from_code=True, order=10**6)


def all_workloads() -> list[Workload]:
    return WORKLOADS.parts()


def kinds() -> list[str]:
    return WORKLOADS.names()


def unknown_kind_sentence(kind: str) -> str:
    """What to say of a stored run whose kind no registered workload has (a removed plug-in, an older store)."""
    shown = kind if len(kind) <= 40 else kind[:40] + "…"
    return (f"This run's kind {shown!r} is not a workload of this lab (one of {', '.join(kinds())}): a plug-in that "
            "made it may have been removed; its stored numbers are kept, and the rest of the lab is unaffected.")


def devices_of(config: Any) -> tuple[str, ...]:
    """The devices a run needs (a bench can ask for several)."""
    return tuple(d for d in str(getattr(config, "device", "cpu") or "cpu").split(",") if d)


def threads_of(config: Any) -> int:
    """The CPU threads a run asks for; 0 = its framework's default (a config without the setting, or a style it
    does not apply to)."""
    setting = next((f for f in dataclasses.fields(config) if f.name == "threads"), None)
    return int(config.threads) if setting is not None and applies(setting, style_of(config)) else 0


def headline_value(run_summary: Mapping[str, Any] | None, headline: Headline) -> float | None:
    value = (run_summary or {}).get(headline.key) if isinstance(run_summary, Mapping) else None
    if not isinstance(value, int | float) or isinstance(value, bool):
        return None
    try:
        return float(value)
    except OverflowError:  # a hand-edited 10**400: no value, as text would be
        return None
