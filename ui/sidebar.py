"""The sidebar on every page: what TensorFlow sees on this machine, and where runs are stored."""

from __future__ import annotations

import json
import subprocess
import sys

import streamlit as st

from rlcore.runs import executor
from rlcore.runs.store import default_home
from ui import access, fmt


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


@st.cache_data(ttl=30, show_spinner="Asking the Ray cluster what it has…")
def cluster_card() -> dict:
    """`python -m rlcore cluster --json` in a subprocess (like the device card), refreshed every 30 s."""
    out = subprocess.run([sys.executable, "-m", "rlcore", "cluster", "--json"], capture_output=True, text=True,
                         timeout=120)
    if out.returncode != 0:
        lines = out.stderr.strip().splitlines()
        return {"error": lines[-1].removeprefix("error: ") if lines else "the cluster did not answer"}
    return json.loads(out.stdout)


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
        if executor.current() == "ray":
            cluster = cluster_card()
            st.markdown("**The Ray cluster** (runs execute there)")
            if "error" in cluster:
                st.caption(f"Could not ask the cluster: {fmt.md(cluster['error'], 300)}")
            else:
                kinds = f"  \ndevice kinds: {', '.join(cluster['device_kinds'])}" if cluster["device_kinds"] else ""
                st.caption(f"{cluster['nodes']} nodes, {cluster['cpus']:g} CPUs, {cluster['gpus']:g} GPUs{kinds}")
        if access.is_operator():  # where the files are is the operator's business
            st.caption(f"Runs are stored in `{default_home().resolve()}`")
        access.sign_in_panel()
    return card
