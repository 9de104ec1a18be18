"""The Share control: the absolute link that reopens what the page shows (a link never launches anything)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

from ui import views


def share_button(params: Mapping[str, Any], what: str) -> None:
    """A popover with the absolute link (st.context.url has no query, so the query is rebuilt from params)."""
    url = views.share_url(st.context.url, params)
    with st.popover("Share", icon=":material/link:"):
        st.caption(f"This link opens {what}. Opening it never launches anything.")
        st.code(url, language=None)
