"""The sidebar on every page: what TensorFlow sees on this machine, and where runs are stored."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import streamlit as st

from rlcore.contract.params import ConfigError
from rlcore.runs import executor
from rlcore.runs.store import default_home
from ui import access, fmt

# What the machine and the executor have, asked once per server process (the executor's every 30 s) and kept in
# this module, not in Streamlit's caches: any session can empty those, which made every viewer's rerun start a
# subprocess that imports TensorFlow.
_ASKED: dict[str, tuple[float, Any]] = {}
_ASK_LOCK = threading.Lock()


def _asked(key: str, ttl: float | None, ask: Callable[[], Any]) -> Any:
    """``ask()`` once per ``ttl`` seconds (once per process when None), for every session; one at a time."""
    with _ASK_LOCK:
        kept = _ASKED.get(key)
        if kept is None or (ttl is not None and time.monotonic() - kept[0] > ttl):
            kept = (time.monotonic(), ask())
            _ASKED[key] = kept
        return kept[1]


# The device card: asked in a thread of its own from the first page on (it takes seconds: the subprocess imports
# TensorFlow), so that a page that does not need it never waits for it.
_CARD: dict[str, Any] = {}
_CARD_ASKING: list[threading.Thread] = []
_CARD_LOCK = threading.Lock()
CARD_WAIT_SECONDS = 130.0


def device_card(wait: bool = True) -> dict | None:
    """`python -m rlcore devices --json` in a subprocess, once per server: this process never imports TensorFlow.
    With ``wait=False``, None while it is still being asked."""
    with _CARD_LOCK:  # its own lock, held only to start the thread: never while TensorFlow is asked
        if not _CARD_ASKING:
            thread = threading.Thread(target=lambda: _CARD.update(_ask_devices()), name="device-card", daemon=True)
            _CARD_ASKING.append(thread)
            thread.start()
    if wait:
        _CARD_ASKING[0].join(timeout=CARD_WAIT_SECONDS)
        if not _CARD:
            return {"error": f"TensorFlow did not answer within {CARD_WAIT_SECONDS:.0f} s"}
    return dict(_CARD) or None


def _ask_devices() -> dict:
    try:
        out = subprocess.run([sys.executable, "-m", "rlcore", "devices", "--json"], capture_output=True, text=True,
                             timeout=120)
    except (OSError, subprocess.SubprocessError) as e:  # the card says it could not ask; the pages go on
        return {"error": str(e)}
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "devices failed"}
    return json.loads(out.stdout)


def gpu_reason(card: dict) -> str | None:
    """Why the GPU choice is disabled, or None when TensorFlow sees a GPU."""
    return None if card.get("gpus") else "no GPU visible to TensorFlow"


def executor_card(name: str) -> list[str]:
    """What the current executor has (a cluster's nodes), refreshed every 30 s; one line of error if it cannot say."""
    def ask() -> list[str]:
        try:
            return executor.get(name).describe()
        except Exception as e:  # an executor that cannot answer is one sentence in the sidebar
            return [f"Could not ask it: {e}"]

    return _asked(f"executor:{name}", 30.0, ask)


def _card_lines(card: dict) -> None:
    if "error" in card:
        st.caption(f"Could not ask TensorFlow: {card['error']}")
    else:
        st.caption(f"CPU: {card['cpu']} ({card['cores']} cores)  \n"
                   f"GPU: {', '.join(card['gpus']) or 'no GPU visible to TensorFlow'}  \n"
                   f"TensorFlow {card['tensorflow']}")


@st.fragment(run_every=1.0)
def _card_when_asked() -> None:
    """While TensorFlow is still being asked (the first seconds of a server), the card's place, filled in once it
    answers. Only drawn in a page run that found the card not ready: the next full run draws the card itself."""
    card = device_card(wait=False)
    if card is None:
        st.caption("Asking TensorFlow what this machine has…")
    else:
        _card_lines(card)


def render() -> dict | None:
    """The sidebar; returns the device card, or None while it is being asked."""
    card = device_card(wait=False)
    with st.sidebar:
        st.markdown("**This machine**")
        if card is None:
            _card_when_asked()
        else:
            _card_lines(card)
        try:
            engine = executor.get(executor.current())
        except ConfigError as e:  # RLCORE_EXECUTOR names no engine: one sentence, and the pages still read
            st.warning(fmt.md(f"{e} Runs cannot be launched until it names one.", 300))
            engine = None
        if engine is not None and engine.describe is not None:  # an engine beyond this machine says what it has
            st.markdown(f"**{fmt.md(engine.title or engine.name)}**")
            st.caption("  \n".join(fmt.md(line, 300) for line in executor_card(engine.name)))
        if access.is_operator():  # where the files are is the operator's business
            st.caption(f"Runs are stored in `{default_home().resolve()}`")
        access.sign_in_panel()
    return card
