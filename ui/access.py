"""Who may change things: operators launch, cancel, rename and delete; viewers look.

Today every user of a dashboard served on this machine is its operator (the local user); roles for a shared
dashboard build on these checks.
"""

from __future__ import annotations

import streamlit as st

VIEWER_HELP = "Only an operator can do this; sign in as operator in the sidebar."


def is_operator() -> bool:
    return True


def require_operator(action: str) -> bool:
    """Checked by the server right before a change; a viewer gets one sentence and nothing changes."""
    if is_operator():
        return True
    st.error(f"Only an operator can {action}; sign in as operator in the sidebar.")
    return False


def may_download(name: str) -> bool:
    """Whether this user may download a run's file (a model is the operator's unless shared)."""
    return True
