"""Search spaces for sweeps: one workload, a base configuration and a space, times a list of seeds; and results.

A space holds value lists (a grid: their product) and/or ranges drawn N times (uniform, log-uniform for rates
and sizes, whole numbers, a choice list), reproducibly from the sweep's own seed. Every member is validated
before anything is written; a bad value or combination is one sentence naming the member. Aggregation groups
the finished members by setting (the varied fields but the seed) and gives each headline's mean and spread, and
the best setting by the workload's first headline in its direction. Pure: no TensorFlow, no store.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
import re
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rlcore.contract import workloads
from rlcore.contract.params import ConfigError, check_value, label_of, parse_float, parse_int
from rlcore.contract.status import RunStatus

MAX_MEMBERS = 1000
SEED_FIELD = "seed"
SCALES = ("uniform", "log", "int", "logint", "choice")


@dataclass(frozen=True)
class Range:
    """Where a random draw of one field comes from."""

    scale: str  # uniform, log (log-uniform), int, logint (log-uniform whole numbers), choice
    lo: float = 0.0
    hi: float = 0.0
    choices: tuple[str, ...] = ()

    def draw(self, rng: random.Random) -> Any:
        """One value, always inside the range: whole numbers among those the range holds, other numbers rounded
        to six digits and kept within its ends."""
        if self.scale == "choice":
            return rng.choice(self.choices)
        if self.scale == "int":
            return rng.randint(math.ceil(self.lo), math.floor(self.hi))
        if self.scale in ("log", "logint"):
            value = math.exp(rng.uniform(math.log(self.lo), math.log(self.hi)))
        else:
            value = rng.uniform(self.lo, self.hi)
        if self.scale == "logint":
            return min(max(round(value), math.ceil(self.lo)), math.floor(self.hi))
        return min(max(float(f"{value:.6g}"), self.lo), self.hi)

    def text(self) -> str:
        return f"choice:{','.join(self.choices)}" if self.scale == "choice" else f"{self.scale}:{self.lo:g}:{self.hi:g}"


@dataclass(frozen=True)
class Space:
    """What a sweep varies: grid values per field, ranges drawn ``random`` times, and the seeds of every setting."""

    grid: dict[str, list[Any]] = field(default_factory=dict)
    ranges: dict[str, Range] = field(default_factory=dict)
    random: int = 0
    seeds: list[int] = field(default_factory=list)
    sweep_seed: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"grid": self.grid, "ranges": {k: dataclasses.asdict(r) for k, r in self.ranges.items()},
                "random": self.random, "seeds": self.seeds, "sweep_seed": self.sweep_seed}

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> Space:
        ranges = {k: Range(v["scale"], v["lo"], v["hi"], tuple(v["choices"])) for k, v in values["ranges"].items()}
        return cls(dict(values["grid"]), ranges, int(values["random"]), list(values["seeds"]),
                   int(values["sweep_seed"]))

    @property
    def varied(self) -> list[str]:
        """The fields that tell settings apart (the seed is not one: it repeats a setting)."""
        return [*self.grid, *(k for k in self.ranges if k not in self.grid)]

    def count(self) -> int:
        points = math.prod(len(v) for v in self.grid.values()) if self.grid else 1
        return points * (self.random if self.ranges else 1) * max(len(self.seeds), 1)


def field_of(workload: workloads.Workload, name: str) -> dataclasses.Field:
    """A config field by any name a user writes: its flag (lr, train-seconds) or its own (learning_rate); one sentence
    listing the settings when it names none."""
    found = workload.field(name.strip().replace("-", "_"))
    if found is not None:
        return found
    names = ", ".join(label_of(f) for f in dataclasses.fields(workload.config))
    raise ConfigError(f"{workload.kind} has no setting {name.strip()[:40]!r}; its settings are {names}.", name)


THOUSANDS = re.compile(r"(?<![\d.])\d{1,3}(?:,\d{3})+(?![\d.])")  # 1,000 or 10,000,000: a number written with commas


def parse_values(workload: workloads.Workload, name: str, text: str) -> tuple[str, list[Any]]:
    """'lr', '1e-3, 1e-2' -> ('learning_rate', [0.001, 0.01]): each value parsed and bounded like the field's.

    Free-text fields hold commas themselves (the bench's batch sizes, 1,64), so their values are separated by |.
    """
    f = field_of(workload, name)
    free_text = f.type in ("str", str) and not f.metadata.get("choices")
    parts = [p.strip() for p in text.split("|" if free_text else ",")]
    if not parts or any(p == "" for p in parts):
        raise ConfigError(f"{label_of(f)} needs a value or values separated by commas, not {text[:40]!r}.", f.name)
    try:
        return f.name, list(dict.fromkeys(check_value(f, p) for p in parts))
    except ConfigError as e:
        grouped = THOUSANDS.search(text)
        if free_text or grouped is None:
            raise
        raise ConfigError(f"{e} Values are separated by commas, so {grouped.group(0)} reads as "
                          f"{' and '.join(grouped.group(0).split(','))}: write {grouped.group(0).replace(',', '')}.",
                          f.name) from None


def parse_range(workload: workloads.Workload, name: str, text: str) -> tuple[str, Range]:
    """'lr', 'log:1e-4:1e-2' -> a log-uniform range of learning_rate; 'mode', 'choice:static,player' -> a choice."""
    f = field_of(workload, name)
    scale, _, rest = text.strip().partition(":")
    if scale not in SCALES:
        raise ConfigError(f"{label_of(f)}'s range must start with one of {', '.join(SCALES)} (like log:1e-4:1e-2), "
                          f"not {text[:40]!r}.", f.name)
    if scale == "choice":
        choices = tuple(dict.fromkeys(c.strip() for c in rest.split(",") if c.strip()))
        for c in choices:
            check_value(f, c)
        if not choices:
            raise ConfigError(f"{label_of(f)}'s choice needs values, like choice:static,player.", f.name)
        return f.name, Range("choice", choices=choices)
    lo_text, _, hi_text = rest.partition(":")
    try:
        lo, hi = parse_float(lo_text, label_of(f)), parse_float(hi_text, label_of(f))
        if not (math.isfinite(lo) and math.isfinite(hi)):  # 1e400 reads as infinity: no range holds it
            raise ConfigError("not finite")
    except ConfigError:
        raise ConfigError(f"{label_of(f)}'s range must be {scale}:LOW:HIGH with finite numbers, not "
                          f"{text[:40]!r}.", f.name) from None
    if not lo < hi or (scale in ("log", "logint") and lo <= 0):
        log = " and LOW > 0 on a log scale" if "log" in scale else ""
        raise ConfigError(f"{label_of(f)}'s range needs LOW < HIGH{log}, not {text[:40]!r}.", f.name)
    if scale in ("int", "logint") and f.type not in ("int", int):
        raise ConfigError(f"{label_of(f)} is not a whole number; use uniform or log.", f.name)
    if f.type in ("int", int) and math.ceil(lo) > math.floor(hi):
        raise ConfigError(f"{label_of(f)}'s range holds no whole number, not {text[:40]!r}.", f.name)
    whole = f.type in ("int", int)
    for end in ((math.ceil(lo), math.floor(hi)) if whole else (lo, hi)):  # what a draw can be
        check_value(f, end)
    return f.name, Range(scale, lo, hi)


def parse_seeds(text: str) -> list[int]:
    seeds = [parse_int(p, "seeds") for p in text.split(",") if p.strip()]
    if not seeds or any(not 0 <= s <= 2**31 - 1 for s in seeds):
        raise ConfigError(f"seeds must be whole numbers from 0 to 2,147,483,647 separated by commas, not "
                          f"{text[:40]!r}.", "seeds")
    return list(dict.fromkeys(seeds))


@dataclass(frozen=True)
class Member:
    """One run of a sweep: its full config (validated), and what sets it apart."""

    config: dict[str, Any]
    setting: dict[str, Any]  # the varied fields' values
    seed: int | None

    def label(self, workload: workloads.Workload) -> str:
        names = {f.name: label_of(f) for f in dataclasses.fields(workload.config)}
        parts = [f"{names[k]}={v}" for k, v in self.setting.items()]
        return " ".join([*parts, *([f"seed={self.seed}"] if self.seed is not None else [])]) or workload.kind


def collect(workload: workloads.Workload, fixed: list[tuple[str, str]], grids: list[tuple[str, str]],
            ranges: list[tuple[str, str]], seeds: str) -> tuple[dict[str, Any], Space]:
    """A sweep's specification as a user writes it (NAME=VALUE pairs of fixed values, value lists and ranges, and
    seeds) parsed into fixed values and a space; a setting given twice, under any of its names or as two kinds
    (fixed and swept, a list and a range), or the seed setting swept beside a seed list, is one sentence: a sweep
    never picks one of two contradicting answers for the user."""
    seen: dict[str, str] = {}

    def claim(key: str, how: str) -> None:
        label = label_of(field_of(workload, key))
        if key in seen:
            raise ConfigError(f"{label} is given twice ({seen[key]} and {how}); give each setting once.", key)
        seen[key] = how

    base: dict[str, Any] = {}
    for name, text in fixed:
        key, values = parse_values(workload, name, text)
        if len(values) != 1:
            raise ConfigError(f"--set gives one value; use --grid for {name}={text}.", key)
        claim(key, f"--set {name}")
        base[key] = values[0]
    grid: dict[str, list[Any]] = {}
    for name, text in grids:
        key, values = parse_values(workload, name, text)
        claim(key, f"--grid {name}")
        grid[key] = values
    drawn: dict[str, Range] = {}
    for name, text in ranges:
        key, rng = parse_range(workload, name, text)
        claim(key, f"--range {name}")
        drawn[key] = rng
    seed_list = parse_seeds(seeds) if seeds.strip() else []
    if seed_list and SEED_FIELD in seen:
        raise ConfigError(f"seed is given twice ({seen[SEED_FIELD]} and --seeds); sweep seeds with --seeds only.",
                          "seeds")
    return base, Space(grid, drawn, 0, seed_list)


def members(workload: workloads.Workload, base: Mapping[str, Any], space: Space,
            preset: str | None = None) -> list[Member]:
    """Every member of a sweep, each config validated; raises one sentence naming the first bad member, or the
    cap when there are too many (before anything is built)."""
    total = space.count()
    if total > MAX_MEMBERS:
        raise ConfigError(f"This sweep would make {total:,} runs; a sweep makes at most {MAX_MEMBERS:,} (fewer "
                          "values, draws or seeds).", "count")
    if total == 0:
        raise ConfigError("This sweep would make no runs: give values, a range with draws, or seeds.", "count")
    if space.ranges and space.random < 1:
        raise ConfigError("Ranges need a number of random draws (at least 1).", "random")
    if space.random and not space.ranges:
        raise ConfigError(f"{space.random:,} random draws need a range to draw from (--range NAME=SCALE:LOW:HIGH, "
                          "like lr=log:1e-4:1e-2); give one, or leave the draws out.", "random")
    if space.seeds and (SEED_FIELD in space.grid or SEED_FIELD in space.ranges):
        raise ConfigError("seed is both swept as a setting and listed as seeds; sweep seeds with the seeds list only.",
                          "seeds")
    fields = {f.name for f in dataclasses.fields(workload.config)}
    if space.seeds and SEED_FIELD not in fields:
        raise ConfigError(f"{workload.kind} has no seed setting, so it cannot be repeated over seeds; sweep it "
                          "without --seeds.", "seeds")
    for name in (*space.grid, *space.ranges, *base):
        if name not in fields:
            raise ConfigError(f"{workload.kind} has no setting {name!r}.", name)
    rng = random.Random(space.sweep_seed)
    draws = [{k: r.draw(rng) for k, r in space.ranges.items()} for _ in range(space.random)] if space.ranges else [{}]
    points = [dict(zip(space.grid, values, strict=True)) for values in itertools.product(*space.grid.values())]
    out = []
    for point, draw in itertools.product(points, draws):
        setting = point | draw
        for seed in space.seeds or [None]:
            values = dict(base) | setting | ({SEED_FIELD: seed} if seed is not None else {})
            member = Member({}, setting, seed)
            try:
                cfg = workload.make_config(values, preset)
                missing = workload.unavailable(cfg)
                if missing:
                    raise ConfigError(missing, workload.style_field or "kind")
            except ConfigError as e:
                raise ConfigError(f"Member {len(out) + 1} ({member.label(workload)}): {e}", e.field) from None
            out.append(Member(dataclasses.asdict(cfg), setting, seed))
    return out


# ---------------------------------------------------------------- results


@dataclass(frozen=True)
class SettingResult:
    """A setting's finished members summarised: per headline the mean, the spread (sample standard deviation,
    0 for one run) and how many runs had it; the mean training time."""

    setting: dict[str, Any]
    runs: int
    done: int
    means: dict[str, float | None]
    spreads: dict[str, float | None]
    seconds: float | None


def aggregate(workload: workloads.Workload, varied: Sequence[str],
              finished: Sequence[tuple[dict[str, Any], str, dict[str, Any] | None]]) -> list[SettingResult]:
    """Group members (config, status, summary) by the varied fields' values; summarise the done ones."""
    groups: dict[tuple, list[tuple[dict[str, Any], str, dict[str, Any] | None]]] = {}
    for config, status, summary in finished:
        groups.setdefault(tuple(_hashable(config.get(k)) for k in varied), []).append((config, status, summary))
    out = []
    for key, rows in groups.items():
        done = [s for _, status, s in rows if status == RunStatus.DONE and s]
        means, spreads = {}, {}
        for h in workload.headlines:
            values = [v for v in (workloads.headline_value(s, h) for s in done) if v is not None]
            means[h.key] = statistics.fmean(values) if values else None
            spreads[h.key] = statistics.stdev(values) if len(values) > 1 else (0.0 if values else None)
        seconds = [s["train_seconds"] for s in done if isinstance(s.get("train_seconds"), int | float)]
        out.append(SettingResult(dict(zip(varied, key, strict=True)), len(rows), len(done), means, spreads,
                                 statistics.fmean(seconds) if seconds else None))
    return out


def best(workload: workloads.Workload, results: Sequence[SettingResult],
         headline: workloads.Headline | None = None) -> SettingResult | None:
    """The setting whose mean of a headline (the workload's first) is best in that headline's direction."""
    headline = headline or workload.headlines[0]
    scored = [r for r in results if r.means.get(headline.key) is not None]
    if not scored:
        return None
    pick = max if headline.better == "higher" else min
    return pick(scored, key=lambda r: r.means[headline.key])


def _hashable(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value

