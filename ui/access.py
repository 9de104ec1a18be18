"""Who may change things: operators launch, cancel, rename and delete; viewers look (and share links).

- Served on loopback with no sign-in configured, the local user is the operator (nothing to set up).
- Served beyond loopback with none configured, everyone is a viewer; the sidebar says how to become operator.
- With a sign-in configured (an operator passphrase hash in ``RLCORE_OPERATOR_HASH`` or ``operator_hash`` in
  ``.streamlit/secrets.toml``, or Streamlit's own ``st.login`` with an identity provider under ``[auth]``), a
  session is a viewer until it signs in.

Refused where it matters, not only hidden: a viewer's pages get a store whose every write refuses with one
sentence, so no widget state can reach a change. Only the hosts the operator names are served (loopback by
default, plus ``RLCORE_ALLOWED_HOSTS``), so a page that rebinds its own name to this machine gets nothing.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any

import streamlit as st

from rlcore.passphrase import verify
from rlcore.runs.store import Store, StoreError

VIEWER_HELP = "Only an operator can do this; sign in as operator in the sidebar."
HASH_ENV = "RLCORE_OPERATOR_HASH"
HOSTS_ENV = "RLCORE_ALLOWED_HOSTS"
OPERATORS_ENV = "RLCORE_OPERATORS"  # with st.login: the e-mail addresses that may operate (empty: any)
MODELS_ENV = "RLCORE_VIEWERS_DOWNLOAD_MODELS"  # 1: viewers may download trained models too
LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]", "localhost.localdomain"}
MAX_FAILURES, LOCK_SECONDS = 5, 60.0
MODEL_SUFFIXES = (".keras", ".h5")


# ---------------------------------------------------------------- the decisions (pure)


def decide(address: str, sign_in_configured: bool, signed_in: bool) -> str:
    """operator or viewer: a signed-in session operates; with a sign-in configured, nobody else does; without
    one, the local user does when the server listens only on loopback."""
    if signed_in:
        return "operator"
    if sign_in_configured:
        return "viewer"
    return "operator" if address in LOOPBACK else "viewer"


def host_allowed(host_header: str | None, address: str, extra: str = "") -> bool:
    """Whether a request's Host is one this dashboard serves: loopback names, the address it was bound to (unless
    that is every interface), and the names the operator lists."""
    if not host_header:
        return True  # no HTTP request (Streamlit's test harness); every browser sends a Host
    host = _hostname(host_header)
    allowed = LOOPBACK | {h.strip().lower() for h in extra.split(",") if h.strip()}
    if address not in ("", "0.0.0.0", "::"):
        allowed.add(address.lower())
    return host in allowed


def _hostname(host_header: str) -> str:
    """The name in a Host header, without its port: 'Name:8501' -> 'name', '[::1]:8501' -> '[::1]'."""
    host = host_header.strip().lower()
    if host.startswith("["):
        return host[: host.index("]") + 1] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def email_operates(email: str, operators: str) -> bool:
    """With st.login: whether a signed-in address may operate (``operators`` lists them, comma-separated; an empty
    list lets every address the identity provider signs in operate)."""
    allowed = {e.strip().lower() for e in operators.split(",") if e.strip()}
    return not allowed or email.strip().lower() in allowed


def locked_for(failures: list[float], now: float) -> float:
    """Seconds a client must wait after too many wrong passphrases (0 when it may try)."""
    recent = [t for t in failures if now - t < LOCK_SECONDS]
    return LOCK_SECONDS - (now - recent[-MAX_FAILURES]) if len(recent) >= MAX_FAILURES else 0.0


# ---------------------------------------------------------------- this session


def address() -> str:
    return str(st.get_option("server.address") or "")


def passphrase_hash() -> str | None:
    from_env = os.environ.get(HASH_ENV, "").strip()
    return from_env or _secret("operator_hash")


def oidc_configured() -> bool:
    return _secret("auth") is not None


def _secret(key: str) -> Any:
    try:
        return st.secrets.get(key)
    except Exception:  # no secrets.toml at all (Streamlit raises its own error type)
        return None


def _oidc_operator() -> bool:
    if not oidc_configured() or not getattr(st.user, "is_logged_in", False):
        return False
    return email_operates(str(st.user.get("email", "")), os.environ.get(OPERATORS_ENV, ""))


def is_operator() -> bool:
    configured = bool(passphrase_hash()) or oidc_configured()
    signed_in = bool(st.session_state.get("_operator")) or _oidc_operator()
    return decide(address(), configured, signed_in) == "operator"


def require_operator(action: str) -> bool:
    """Checked by the server right before a change; a viewer gets one sentence and nothing changes."""
    if is_operator():
        return True
    st.error(f"Only an operator can {action}; sign in as operator in the sidebar.")
    return False


def may_download(name: str) -> bool:
    """Whether this user may download a run's file (a trained model is the operator's unless shared)."""
    return is_operator() or not name.endswith(MODEL_SUFFIXES) or os.environ.get(MODELS_ENV) == "1"


class ViewerStore(Store):
    """The store as a viewer's pages get it: everything reads, every change refuses with one sentence."""

    def _writable(self) -> None:  # every change the store offers (create, cancel, rename, delete) asks this first
        raise StoreError(VIEWER_HELP, "forbidden")


def store() -> Store:
    """The store for this session: a viewer's refuses every change (creating, cancelling, renaming, deleting)."""
    return Store() if is_operator() else ViewerStore()


# ---------------------------------------------------------------- hosts and signing in


def check_host() -> None:
    """Serve only the hosts the operator names; anything else gets one sentence and nothing of the app."""
    host = st.context.headers.get("Host") if st.context.headers else None
    if not host_allowed(host, address(), os.environ.get(HOSTS_ENV, "")):
        st.error(f"This dashboard does not answer to the name {host[:80]!r}. Open it at an address its operator "
                 f"serves, or, as its operator, add the name to {HOSTS_ENV}.")
        st.stop()


@st.cache_resource
def _client_failures() -> tuple[threading.Lock, dict[str, list[float]]]:
    """Wrong passphrases per client address, shared by every session of this server."""
    return threading.Lock(), {}


def _client() -> str:
    return str(getattr(st.context, "ip_address", None) or "unknown")


def try_passphrase(text: str) -> str | None:
    """Sign this session in if ``text`` is the operator's passphrase; returns the sentence to show on failure."""
    now = time.monotonic()
    lock, by_client = _client_failures()
    session = st.session_state.setdefault("_failures", [])
    with lock:
        client = by_client.setdefault(_client(), [])
        wait = max(locked_for(session, now), locked_for(client, now))
        if wait > 0:
            return f"Too many wrong passphrases; try again in {wait:.0f} s."
        stored = passphrase_hash()
        if stored and verify(text, stored):
            st.session_state["_operator"] = True
            session.clear()
            return None
        session.append(now)
        client.append(now)
    return "That is not the operator's passphrase."


def sign_in_panel() -> None:
    """The sidebar's part: who you are here, and how to sign in or out."""
    operator = is_operator()
    if st.session_state.get("_operator"):
        st.caption("Signed in as operator.")
        if st.button("Sign out", key="sign_out"):
            st.session_state.pop("_operator", None)
            st.rerun()
        return
    if _oidc_operator():
        st.caption(f"Signed in as operator ({st.user.get('email', '')}).")
        if st.button("Sign out", key="sign_out"):
            st.logout()
        return
    if operator:
        return  # the local user of a dashboard served on loopback
    st.caption("You are a viewer: every page and link opens, nothing can be launched, cancelled or deleted.")
    if passphrase_hash():
        with st.form("sign_in", border=False):
            text = st.text_input("operator passphrase", type="password", key="passphrase")
            if st.form_submit_button("Sign in as operator"):
                problem = try_passphrase(text)
                if problem:
                    st.error(problem)
                else:
                    st.rerun()
    elif oidc_configured():
        if st.button("Sign in as operator", key="sign_in_oidc"):
            st.login()
    else:
        st.caption(f"To operate it, its owner sets a passphrase: run `python -m rlcore operator-hash` and serve it "
                   f"with {HASH_ENV} set to the line it prints (see the README's \"Sharing the lab\").")
