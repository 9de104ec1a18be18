"""The sidebar on every page: what TensorFlow sees on this machine, and where runs are stored."""

from __future__ import annotations

import json
import subprocess
import sys

import streamlit as st

from rlcore.runs.store import default_home


@st.cache_data(show_spinner="Asking TensorFlow what this machine has…")
def device_card() -> dict:
    """`python -m rlcore devices --json` in a subprocess, once: this process never imports TensorFlow."""
    out = subprocess.run([sys.executable, "-m", "rlcore", "devices", "--json"], capture_output=True, text=True,
                         timeout=120)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "devices failed"}
    return json.loads(out.stdout)


def gpu_reason(card: dict) -> str | None:
    """Why the GPU choice is disabled, or None when TensorFlow sees a GPU."""
    return None if card.get("gpus") else "no GPU visible to TensorFlow"


def render() -> dict:
    card = device_card()
    with st.sidebar:
        st.markdown("**This machine**")
        if "error" in card:
            st.caption(f"Could not ask TensorFlow: {card['error']}")
        else:
            st.caption(f"CPU: {card['cpu']} ({card['cores']} cores)  \n"
                       f"GPU: {', '.join(card['gpus']) or 'no GPU visible to TensorFlow'}  \n"
                       f"TensorFlow {card['tensorflow']}")
        st.caption(f"Runs are stored in `{default_home().resolve()}`")
    return card
