"""Beside the store: what a run must be before it is stored. A config is validated by its workload (the preset's
values under the given ones), refused when this machine lacks its framework, and a run nobody named gets a name
from what sets it apart. The store then only keeps the row; nothing invalid or half-made is ever written.
"""

from __future__ import annotations

from dataclasses import asdict, fields, is_dataclass
from typing import Any

from rlcore.contract.params import LABEL_MAX, ConfigError, check_text, label_of
from rlcore.contract.workloads import Workload, get
from rlcore.runs.store import Store


def validated(kind: str, config: dict[str, Any] | Any, preset: str | None = None) -> tuple[Workload, Any, str | None]:
    """The workload, its validated config and the preset (the bench names its preset with a field), or one
    ConfigError naming the setting."""
    workload = get(kind)
    values = asdict(config) if is_dataclass(config) else dict(config)
    cfg = workload.make_config(values, preset)  # the preset's values under the given ones
    missing = workload.unavailable(cfg)
    if missing:  # a framework this machine lacks: refused here, at the edge, not when the run starts
        raise ConfigError(missing, workload.style_field or "kind")
    if preset is None and workload.preset_param in values:  # the preset is a field (the bench's workload)
        preset = values[workload.preset_param]
    return workload, cfg, preset


def create_run(store: Store, kind: str, config: dict[str, Any] | Any, label: str = "", *,
               preset: str | None = None, executor: str = "local", running_pid: int | None = None) -> int:
    """Validate the config and label and store a run, queued (or already running in the process ``running_pid``:
    the CLI in the foreground, ``rlcore.init``); an invalid one writes nothing. A run without a label gets a name
    from what sets it apart (its style, preset and changed settings). The one place a run is inserted."""
    workload, cfg, preset = validated(kind, config, preset)
    label = check_text(label, "label", LABEL_MAX) or auto_label(workload, cfg, preset)
    return store.insert_run(kind, asdict(cfg), label, preset=preset, executor=executor, running_pid=running_pid)


def auto_label(workload: Workload, cfg: Any, preset: str | None) -> str:
    """A run's name when nobody gave one: style, preset, then up to three settings that differ from them."""
    values = asdict(cfg)
    base = workload.defaults(preset)
    style = workload.style_text(values)
    parts = [p for p in (style, preset if preset and preset != style else None) if p]
    said = {workload.style_field, getattr(workload.field(workload.preset_param), "name", None)}
    changed = [f for f in fields(cfg) if values[f.name] != base.get(f.name) and f.name not in said]
    parts += [f"{label_of(f)}={values[f.name]}" for f in changed[:3]]
    if len(changed) > 3:
        parts.append(f"+{len(changed) - 3} more")
    return " ".join(parts) or workload.kind
