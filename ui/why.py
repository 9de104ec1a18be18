"""A run's "why", as the run view and the comparison show it: the profile's verdict in a sentence with its numbers
(ops per step, launched one by one, function calls, XLA ops, retracings, the step's time split), the top ops, and
how to open the raw capture; and what the machine did while the run trained (cores busy, memory, GPU)."""

from __future__ import annotations

import io
import zipfile

import pandas as pd
import streamlit as st

from rlcore.contract import profile_text
from rlcore.contract.params import ConfigError
from rlcore.contract.profile import Profile, of_summary
from rlcore.runs import executor, history, service
from rlcore.runs.store import Run, Store, StoreError
from rlcore.tracking import system_metrics
from ui import access, charts, fmt, queueing, views

PROFILE_STEPS = 50  # what "Profile this run" asks for when the run had no profile setting of its own


def panel(store: Store, run: Run) -> None:
    """The profile of a finished run: verdict, numbers, one step's time, top ops, the capture."""
    profile = of_summary(run.summary)
    if profile is None:
        return
    st.subheader("Why it is this fast, measured inside TensorFlow", anchor="why")
    if not profile.ok:
        st.info(fmt.md(profile.error, 400), icon=":material/info:")
        return
    if profile.findings:
        st.markdown("**In the code's words**, costliest first (time per step, its share of the step, the change "
                    "to make):")
        # A table that wraps its text: the change to make is read whole (a data grid cut it mid-sentence).
        st.table(views.findings_table(profile.findings).set_index("cause"))
        where = views.where_lines(profile.findings)
        if where:
            st.code(where, language=None)
        st.caption(fmt.md(f"What TensorFlow recorded: {profile_text.reading(profile)}", 600))
    else:
        st.info(fmt.md(profile_text.sentence(profile), 600), icon=":material/troubleshoot:")
    for note in profile.notes:  # a plug-in rule left out: said where the causes are, the rest stands
        st.warning(fmt.md(note, 600), icon=":material/extension_off:")  # the lab's own run to ~400
    numbers = views.profile_numbers(profile)
    for box, (label, text) in zip(st.columns(len(numbers)), numbers, strict=True):
        box.metric(label, text)
    unit = f" (a step: one call of {profile.steps_per_marker:,} steps, divided by them)" \
        if profile.steps_per_marker > 1 else ""
    steps = f"{profile.steps:,} training step{'s' if profile.steps != 1 else ''}"
    st.caption(f"From {steps} recorded by TensorFlow's profiler" + (
        f" after warm-up{unit}; they are left out of the run's speed." if profile.train_seconds
        else f"{unit} (a capture, read as it was made)."))
    if profile.top_ops:
        left, right = st.columns([3, 2])
        left.plotly_chart(charts.step_time_chart({f"run {run.id}": profile}), key=f"step_time_{run.id}")
        right.dataframe(views.top_ops_table(profile), hide_index=True, width="stretch")
    else:
        st.plotly_chart(charts.step_time_chart({f"run {run.id}": profile}), key=f"step_time_{run.id}")
    gpu = profile.gpu_estimate
    if gpu is not None:
        with st.expander("On a GPU" + ("" if gpu.measured else " (an estimate: not measured here)")):
            st.markdown(fmt.md(profile_text.gpu_sentence(gpu), 600))
            st.caption("Where its numbers come from: " + "; ".join(gpu.sources))
    _tries(store, run, profile)
    _capture(store, run)


def _tries(store: Store, run: Run, profile: Profile) -> None:
    """The fixes the lab can apply without an edit, tried on the run's code: a button that queues one run each
    (the same code and steps, one change), then what each measured beside the run."""
    fixes = list(dict.fromkeys(f.try_fix for f in profile.findings if f.try_fix))
    tries = history.tries_of(store, run)
    if (not fixes and not tries) or history.TRY_OF not in run.config:
        return
    if tries:
        st.markdown("**Tried**, the same code and steps with one change each:")
        st.dataframe(views.tries_table(tries), hide_index=True, width="content", column_config={
            "run": st.column_config.LinkColumn("run", display_text=r"runs\?run=(\d+)")})
    untried = [name for name in fixes if name not in {t["fix"] for t in tries}]
    if not untried or not access.is_operator():
        return
    if st.button("Try the fixes", key=f"try_fixes_{run.id}", icon=":material/science:",
                 help="Queues the run's code again once per fix named above that the lab can apply without an edit ("
                      + ", ".join(untried) + "), each a run of its own linked to this one; their speed then stands "
                      "here beside this run's.") and access.require_operator("launch runs"):
        try:
            ids = [service.create_run(store, run.kind, dict(run.config) | {"fix": name, history.TRY_OF: run.id,
                                                                           "profile": 0},
                                      f"{run.label} + {name}"[:200], executor=executor.current())
                   for name in untried]
        except (ConfigError, StoreError) as e:
            st.error(fmt.md(str(e), 400))
            return
        executor.submit(store, ids)
        st.rerun()


def _capture(store: Store, run: Run) -> None:
    folder = store.run_dir(run.id) / "profile"
    files = sorted(p for p in folder.rglob("*") if p.is_file()) if folder.is_dir() else []
    if not files:
        return
    shown = folder if access.is_operator() else "<the run's folder>/profile"  # where files live is the operator's
    st.caption("The raw capture, in the layout TensorBoard's profile plugin and xprof open (trace viewer, op "
               "statistics, memory):")
    st.code(f"xprof --logdir {shown}", language="bash")
    if access.may_download("capture"):
        data = io.BytesIO()
        try:
            with zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as z:
                for path in files:
                    z.write(path, path.relative_to(folder.parent))
        except OSError as e:  # an unreadable capture is one sentence; the panel stands
            st.caption(fmt.md(f"The capture cannot be read ({e.strerror or e}).", 200))
            return
        st.download_button("The capture (zip)", data.getvalue(), f"run{run.id}_profile.zip", "application/zip",
                           key=f"capture_{run.id}")


def machine(run: Run, metrics: pd.DataFrame) -> None:
    """What the machine did while the run trained: the sentence, and cores busy over time."""
    rows = metrics[metrics["name"].str.startswith(system_metrics.PREFIX)] if len(metrics) else metrics
    typed = views.summary(run)
    sentence = views.machine_sentence(typed.system or None)
    if sentence is None and not len(rows):
        return
    cores = typed.machine_cores or int((run.environment or {}).get("cores") or 1)
    with st.expander("What the machine did", expanded=False):
        if sentence:
            st.markdown(fmt.md(sentence, 400))
        if len(rows):
            st.plotly_chart(charts.system_chart(rows.assign(run_id=run.id), cores), key=f"system_{run.id}")


def profile_again(store: Store, run: Run) -> None:
    """Queue the run's settings again with a profile (a run that had one is not profiled twice)."""

    if "profile" not in run.config or of_summary(run.summary) is not None or not access.is_operator():
        return
    if st.button("Profile this run", key=f"profile_{run.id}", icon=":material/troubleshoot:",
                 help=f"Queues the same settings with {PROFILE_STEPS} steps recorded by TensorFlow's profiler after "
                      "warm-up (left out of the speed); its view then says why it is as fast as it is.") \
            and access.require_operator("launch a run"):
        config = dict(run.config) | {"profile": PROFILE_STEPS}
        queueing.queue_and_open(store, run.kind, config, f"{run.label} (profiled)"[:200], preset=run.preset)
