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

import contextlib
import dataclasses
import functools
import hashlib
import hmac
import re
import secrets
import socket
import threading
import time
from collections.abc import Callable
from pathlib import PurePath
from typing import Any
from urllib.parse import urlsplit

import streamlit as st

from rlcore.contract import settings
from rlcore.contract.params import DIGITS
from rlcore.contract.summary import RunSummary
from rlcore.passphrase import verify
from rlcore.runs.store import Run, Store, StoreError

VIEWER_HELP = "Only an operator can do this; sign in as operator in the sidebar."
NO_SIGN_IN = ("Only an operator can do this, and this dashboard has no operator sign-in: its owner sets one up "
              "(README, \"Sharing the lab\").")
HASH_ENV = settings.OPERATOR_HASH.name
HOSTS_ENV = settings.ALLOWED_HOSTS.name
OPERATORS_ENV = settings.OPERATORS.name  # with st.login: the e-mail addresses that may operate (empty: any)
MODELS_ENV = settings.VIEWERS_DOWNLOAD_MODELS.name  # 1: viewers may download trained models too
PROXY_ENV = settings.BEHIND_PROXY.name  # 1: a proxy forwards visitors here: nobody operates without signing in
LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]", "localhost.localdomain"}
MAX_FAILURES, LOCK_SECONDS = 5, 60.0
# What a viewer gets only when the operator shares it (RLCORE_VIEWERS_DOWNLOAD_MODELS=1): a trained model, and a
# profile's capture (which holds the model's graph). A run's file is what its workload declares it to be
# (Workload.artifacts), never what its name ends in; a file no workload declares is kept from viewers the same way.
SHARED_ONLY = ("model", "capture")


# ---------------------------------------------------------------- the decisions (pure)


def decide(address: str, sign_in_configured: bool, signed_in: bool, proxied: bool = False) -> str:
    """operator or viewer: a signed-in session operates; with a sign-in configured, nobody else does; without
    one, the local user does when the server listens only on loopback and no proxy stands in front (behind a
    proxy every visitor reaches loopback, so loopback says nothing about who they are)."""
    if signed_in:
        return "operator"
    if sign_in_configured or proxied:
        return "viewer"
    return "operator" if address in LOOPBACK else "viewer"


FORWARDING_HEADERS = ("X-Forwarded-For", "Forwarded", "X-Real-Ip", "X-Forwarded-Host")


def proxied(headers: Any, behind_proxy_setting: str) -> bool:
    """Whether a proxy stands between the visitor and this server: the operator said so (RLCORE_BEHIND_PROXY=1:
    a TCP or TLS proxy adds no header), or the request carries a forwarding header (an HTTP proxy's)."""
    if behind_proxy_setting.strip() == "1":
        return True
    return any(headers.get(h) for h in FORWARDING_HEADERS) if headers else False


WILDCARDS = ("0.0.0.0", "::")


def host_allowed(host_header: str | None, address: str, extra: str = "", own: frozenset[str] = frozenset()) -> bool:
    """Whether a request's Host is one this dashboard serves: loopback names, the address it was bound to (or,
    bound to every interface, ``own``: this machine's addresses and name, which Streamlit prints as the Network
    URL), and the names the operator lists. A name some other site's DNS points here (rebinding) is none of them."""
    if not host_header:
        return True  # no HTTP request (Streamlit's test harness); every browser sends a Host
    host = _hostname(host_header)
    allowed = LOOPBACK | {h.strip().lower() for h in extra.split(",") if h.strip()}
    if address in WILDCARDS:
        allowed |= own
    elif address:
        allowed.add(address.lower())
    return host in allowed


@functools.cache
def own_names() -> frozenset[str]:
    """This machine's addresses (every interface's, IPv6 in brackets as a Host header writes them) and its name."""
    import psutil

    names = {socket.gethostname().lower()}
    for addresses in psutil.net_if_addrs().values():
        for a in addresses:
            if a.family == socket.AF_INET:
                names.add(a.address)
            elif a.family == socket.AF_INET6:
                names.add(f"[{a.address.split('%')[0].lower()}]")
    return frozenset(names)


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


SIGN_IN_COOKIE = "rlcore_operator"
TOKEN_ID = re.compile(r"[0-9a-f]{16}")
SIGN_IN_HOURS = 12  # a signed-in browser stays signed in this long, as in any web app (Sign out ends it at once)


def sign_in_token(passphrase_hash_line: str, now: float, hours: float = SIGN_IN_HOURS) -> str:
    """A browser's proof of a sign-in: its expiry, its own id, and an HMAC of both under a key derived from the
    stored passphrase hash (a new passphrase voids every token; the hash itself never leaves the server). Sign out
    revokes the id on the server (``revoke``), so a copy of the cookie is void too."""
    expiry = int(now + hours * 3600)
    token_id = secrets.token_hex(8)
    return f"{expiry}.{token_id}.{_token_mac(passphrase_hash_line, expiry, token_id)}"


def token_id(token: str | None) -> str | None:
    """The id in a token's middle, when it has the token's shape."""
    parts = (token or "").split(".")
    return parts[1] if len(parts) == 3 and TOKEN_ID.fullmatch(parts[1]) else None


def token_valid(token: str | None, passphrase_hash_line: str | None, now: float,
                revoked: Callable[[str], bool] = lambda _: False) -> bool:
    """Whether a cookie's token is a live sign-in: its shape, its expiry, its HMAC, and its id not revoked."""
    if not token or not passphrase_hash_line or token.count(".") != 2:
        return False
    expiry, tid, mac = token.split(".")
    # ASCII digits of a time (isdigit() also takes "²", which int() refuses; a thousand digits int() cannot read):
    # any other spelling is no token, never an error.
    if not DIGITS.fullmatch(expiry) or len(expiry) > 12 or not now <= int(expiry) <= now + SIGN_IN_HOURS * 3600 + 60:
        return False
    if not TOKEN_ID.fullmatch(tid) or not hmac.compare_digest(mac, _token_mac(passphrase_hash_line, int(expiry), tid)):
        return False
    return not revoked(tid)


def _token_mac(passphrase_hash_line: str, expiry: int, tid: str) -> str:
    key = hashlib.sha256(b"rlcore sign-in\0" + passphrase_hash_line.encode()).digest()
    return hmac.new(key, f"operator {expiry} {tid}".encode(), hashlib.sha256).hexdigest()


# Revoked sign-ins: kept in the store (so a restart of the server keeps them) and in this process (so a store that
# cannot be written still refuses them while the server lives), each until its token would have expired.
REVOKED_PREFIX = "revoked_sign_in:"
_REVOKED: dict[str, float] = {}


def revoke(token: str | None, now: float | None = None) -> None:
    """Sign out on the server: this token's id is refused from now on, in every session and after a restart."""
    tid = token_id(token)
    if tid is None:
        return
    expiry = float(token.split(".")[0]) if DIGITS.fullmatch(token.split(".")[0]) else (now or time.time())
    _REVOKED[tid] = expiry
    with contextlib.suppress(Exception):  # a read-only or full store: the process keeps it meanwhile
        home = Store()
        home.set_meta(REVOKED_PREFIX + tid, str(int(expiry)))


def is_revoked(tid: str) -> bool:
    if tid in _REVOKED:
        return True
    try:
        return bool(Store().meta(REVOKED_PREFIX + tid))
    except Exception:  # a store that cannot be read: no session operates on its word
        return True


def locked_for(failures: list[float], now: float, most: int = MAX_FAILURES) -> float:
    """Seconds a client must wait after too many wrong passphrases (0 when it may try)."""
    recent = [t for t in failures if now - t < LOCK_SECONDS]
    return LOCK_SECONDS - (now - recent[-most]) if len(recent) >= most else 0.0


# ---------------------------------------------------------------- this session


def address() -> str:
    return str(st.get_option("server.address") or "")


def passphrase_hash() -> str | None:
    from_env = settings.OPERATOR_HASH.text()
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
    return email_operates(str(st.user.get("email", "")), settings.OPERATORS.text())


def _signed_in_by_cookie() -> bool:
    """A browser that signed in within the last hours sends its token with every new session (a reload)."""
    if st.session_state.get("_signed_out"):
        return False
    cookies = getattr(st.context, "cookies", None) or {}
    token = cookies.get(SIGN_IN_COOKIE)
    if token_valid(token, passphrase_hash(), time.time(), is_revoked):
        st.session_state["_operator"] = True
        st.session_state["_token"] = token  # Sign out revokes it
        return True
    return False


def foreign_origin(headers: Any) -> bool:
    """Whether the page that opened this session was served by another origin than the lab (scheme, host *and*
    port: Streamlit's own check lets any localhost port in, so a page of another local web app could drive the
    lab). A browser always sends the Origin of a websocket; a client without one is no page of anyone's."""
    origin = headers.get("Origin") if headers else None
    if origin is None:
        return False
    parts = urlsplit(origin.strip())
    # Behind a proxy that rewrites Host (nginx's default), the name the browser used is in X-Forwarded-Host, and
    # the scheme it used in X-Forwarded-Proto; else the lab serves http itself (https with a certificate set).
    host = (headers.get("X-Forwarded-Host") or headers.get("Host") or "").split(",")[0].strip().lower()
    forwarded = (headers.get("X-Forwarded-Proto") or "").split(",")[0].strip().lower()
    # A proxy in front may speak TLS to the browser and say nothing of it (nginx's default): http or https then.
    schemes = {forwarded} if forwarded else {"http", "https"} if proxied(headers, settings.BEHIND_PROXY.text()) \
        else {served_scheme()}
    return parts.scheme not in schemes or not host or parts.netloc.lower() != host


def served_scheme() -> str:
    """The scheme this server answers on: https where Streamlit was given a certificate, else http."""
    try:
        return "https" if st.get_option("server.sslCertFile") else "http"
    except Exception:  # outside a Streamlit server (a unit test of the rule)
        return "http"


def is_operator() -> bool:
    if foreign_origin(st.context.headers):
        return False  # whoever signed in: a page of another origin never operates the lab
    signed_in = bool(st.session_state.get("_operator")) or _signed_in_by_cookie() or _oidc_operator()
    behind = proxied(st.context.headers, settings.BEHIND_PROXY.text())
    return decide(address(), sign_in_configured(), signed_in, behind) == "operator"


def sign_in_configured() -> bool:
    return bool(passphrase_hash()) or oidc_configured()


def viewer_help() -> str:
    """What a viewer is told about a control only an operator has: how to sign in, where that is possible."""
    return VIEWER_HELP if sign_in_configured() else NO_SIGN_IN


def require_operator(action: str) -> bool:
    """Checked by the server right before a change; a viewer gets one sentence and nothing changes."""
    if is_operator():
        return True
    how = "sign in as operator in the sidebar" if sign_in_configured() else \
        "this dashboard has no operator sign-in (README, \"Sharing the lab\")"
    st.error(f"Only an operator can {action}; {how}.")
    return False


def may_download(artifact_kind: str) -> bool:
    """Whether this user may download a run's file of this kind (``Workload.artifact_kind``): a trained model or a
    profile's capture is the operator's unless shared."""
    return is_operator() or artifact_kind not in SHARED_ONLY or settings.VIEWERS_DOWNLOAD_MODELS.text() == "1"


class ViewerStore(Store):
    """The store as a viewer's pages get it: everything reads, every change refuses with one sentence, and where
    things live on the server is withheld (``as_viewer_sees``)."""

    def _writable(self) -> None:  # every change the store offers (create, cancel, rename, delete) asks this first
        raise StoreError(viewer_help(), "forbidden")

    def get_run(self, run_id: int) -> Run | None:
        run = super().get_run(run_id)
        return as_viewer_sees(run) if run is not None else None

    def list_runs(self) -> list[Run]:
        return [as_viewer_sees(r) for r in super().list_runs()]


WITHHELD = "(the operator's)"


def as_viewer_sees(run: Run) -> Run:
    """A run as a viewer sees it: what it found and why, never where things live on the server or how it was
    started there. A script is named by its file name; its folder, its arguments (they may carry a path or a
    token) and the capture's folder are withheld; the lines of code behind a cause stay (they are the why), each
    file by its name where it lay outside the folder the script ran in."""
    config, environment = dict(run.config or {}), run.environment
    for key in ("path", "source"):  # a script's, a capture's: named by the file's name
        if isinstance(config.get(key), str) and config[key]:
            config[key] = PurePath(config[key]).name
    for key in ("cwd", "args"):
        if config.get(key):
            config[key] = WITHHELD
    if isinstance(environment, dict) and isinstance(environment.get("code"), dict):
        code = dict(environment["code"])
        if isinstance(code.get("path"), str):
            code["path"] = PurePath(code["path"]).name
        for key in ("argv", "cwd"):
            if key in code:
                code[key] = WITHHELD
        environment = environment | {"code": code}
    summary = run.summary
    if isinstance(summary, dict):  # a capture read from elsewhere: its file and source by name
        summary = RunSummary(summary | {key: PurePath(summary[key]).name for key in ("file", "source")
                                        if isinstance(summary.get(key), str) and summary[key]})
    if isinstance(summary, dict) and isinstance(summary.get("profile"), dict):
        profile = dict(summary["profile"])
        for key in ("capture", "logdir"):
            if profile.get(key):
                profile[key] = WITHHELD
        findings = profile.get("findings")
        if isinstance(findings, list):
            profile["findings"] = [_lines_by_name(f) for f in findings]
        summary = RunSummary(summary | {"profile": profile})
    return dataclasses.replace(run, config=config, environment=environment, summary=summary)


def _lines_by_name(finding: Any) -> Any:
    if not isinstance(finding, dict) or not isinstance(finding.get("where"), list):
        return finding
    return finding | {"where": [w | {"file": PurePath(w["file"]).name}
                                if isinstance(w, dict) and isinstance(w.get("file"), str) and w["file"].startswith("/")
                                else w for w in finding["where"]]}


def store() -> Store:
    """The store for this session: a viewer's refuses every change (creating, cancelling, renaming, deleting)."""
    return Store() if is_operator() else ViewerStore()


# ---------------------------------------------------------------- hosts and signing in


def refused_host() -> str | None:
    """The sentence for a request whose Host this dashboard does not serve, or None."""
    host = st.context.headers.get("Host") if st.context.headers else None
    own = own_names() if address() in WILDCARDS else frozenset()
    if host_allowed(host, address(), settings.ALLOWED_HOSTS.text(), own):
        return None
    return (f"This dashboard does not answer to the name {host[:80]!r}. Open it at an address its operator serves, "
            f"or, as its operator, add the name to {HOSTS_ENV}.")


# Wrong passphrases, per client address and for the whole server, kept in this module: Streamlit's caches can be
# emptied by any session (its "clear cache" message), so a lockout kept there could be lifted by a viewer.
_FAILURES_LOCK = threading.Lock()
_FAILURES_BY_CLIENT: dict[str, list[float]] = {}
_FAILURES_ALL: list[float] = []
# Every client together: a per-address count alone can be dodged by whoever chooses the address a proxy reports.
MAX_FAILURES_ALL = 20


def _client() -> str:
    return str(getattr(st.context, "ip_address", None) or "unknown")


def try_passphrase(text: str) -> str | None:
    """Sign this session in if ``text`` is the operator's passphrase; returns the sentence to show on failure."""
    now = time.monotonic()
    session = st.session_state.setdefault("_failures", [])
    with _FAILURES_LOCK:
        client = _FAILURES_BY_CLIENT.setdefault(_client(), [])
        wait = max(locked_for(session, now), locked_for(client, now),
                   locked_for(_FAILURES_ALL, now, MAX_FAILURES_ALL))
        if wait > 0:
            return f"Too many wrong passphrases; try again in {wait:.0f} s."
        stored = passphrase_hash()
        if stored and verify(text, stored):
            st.session_state["_operator"] = True
            token = sign_in_token(stored, time.time())
            st.session_state["_cookie"] = st.session_state["_token"] = token  # set in the browser on the next run
            st.session_state.pop("_signed_out", None)
            session.clear()
            return None
        for failures in (session, client, _FAILURES_ALL):
            failures.append(now)
            del failures[:-MAX_FAILURES_ALL]  # only the recent ones count: memory stays bounded
    return "That is not the operator's passphrase."


def _set_cookie(token: str) -> None:
    """Store (or, with an empty token, remove) the sign-in in this browser: only script can set a cookie from a
    Streamlit page. The token is digits, a dot and hex digits, never user text."""
    if token and not all(c.isdigit() or c in ".abcdef" for c in token):
        return
    age = SIGN_IN_HOURS * 3600 if token else 0
    st.html(f"<script>document.cookie = '{SIGN_IN_COOKIE}={token}; Max-Age={age}; Path=/; SameSite=Strict'"
            "+ (location.protocol === 'https:' ? '; Secure' : '');</script>", unsafe_allow_javascript=True)


def sign_in_panel() -> None:
    """The sidebar's part: who you are here, and how to sign in or out."""
    operator = is_operator()
    if "_cookie" in st.session_state:  # the browser keeps the sign-in (or forgets it) across reloads
        _set_cookie(st.session_state.pop("_cookie"))
    if st.session_state.get("_operator"):
        st.caption("Signed in as operator.")
        if st.button("Sign out", key="sign_out"):
            st.session_state.pop("_operator", None)
            revoke(st.session_state.pop("_token", None))
            st.session_state["_signed_out"] = True
            st.session_state["_cookie"] = ""
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
        st.caption("To operate it, its owner sets a passphrase: run `.venv/bin/python -m rlcore operator-hash` and "
                   f"serve it with {HASH_ENV} set to the line it prints (see the README's \"Sharing the lab\").")
