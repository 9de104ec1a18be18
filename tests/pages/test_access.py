"""Viewers and operators: who operates by default, the passphrase (right, wrong, throttled, never shown), every
page as a viewer with no control that changes anything, a viewer's store refusing every change whatever the
session holds, and the hosts served."""

import json
import socket
import time

import pytest
import streamlit as st
import streamlit.config
from pagetest import go, open_page, shown

from rlcore import passphrase, search
from rlcore.contract import reporting
from rlcore.runs import service
from rlcore.runs.store import StoreError
from ui import access

PASSPHRASE = "correct horse battery staple"
HASH = passphrase.hash_passphrase(PASSPHRASE)
WRITE_KEYS = ("launch", "reproduce", "reproduce_gpu", "read_capture", "read_upload", "delete", "confirm_delete_yes",
              "launch_sweep", "cancel_sweep")


@pytest.mark.parametrize(("address", "configured", "signed_in", "role"), [
    ("127.0.0.1", False, False, "operator"),  # served on loopback, nothing configured: the local user
    ("localhost", False, False, "operator"),
    ("0.0.0.0", False, False, "viewer"),  # shared on the network with no sign-in: everyone looks
    ("192.168.1.5", False, False, "viewer"),
    ("127.0.0.1", True, False, "viewer"),  # a sign-in is configured: it is needed, even locally
    ("0.0.0.0", True, True, "operator"),
])
def test_who_operates(address, configured, signed_in, role):
    assert access.decide(address, configured, signed_in) == role


def test_behind_a_proxy_loopback_says_nothing_about_who_operates():
    """A proxy on the same machine brings every visitor to a loopback bind: with one in front, nobody operates
    without signing in, whether the operator said so (a TCP/TLS proxy adds no header) or a header shows it."""
    assert access.decide("127.0.0.1", False, False, proxied=True) == "viewer"
    assert access.decide("127.0.0.1", True, True, proxied=True) == "operator"  # signed in: still operates
    assert access.proxied({}, "1") and not access.proxied({}, "") and not access.proxied(None, "0")
    assert access.proxied({"X-Forwarded-For": "203.0.113.9"}, "") and access.proxied({"Forwarded": "for=x"}, "")


def test_a_forwarded_request_to_a_loopback_dashboard_is_a_viewer(store, monkeypatch):
    at = open_page("dqn")
    assert [b for b in at.button if b.key == "launch"]  # the local user
    monkeypatch.setenv(access.PROXY_ENV, "1")
    at = open_page("dqn")
    assert not [b for b in at.button if b.key == "launch"]


@pytest.mark.parametrize(("host", "address", "extra", "served"), [
    ("127.0.0.1:8501", "127.0.0.1", "", True), ("localhost:8501", "0.0.0.0", "", True),
    ("[::1]:8501", "0.0.0.0", "", True), ("evil.example:8501", "127.0.0.1", "", False),
    ("evil.example", "0.0.0.0", "", False), ("lab.example.org:8501", "0.0.0.0", "lab.example.org", True),
    ("LAB.example.org", "0.0.0.0", " lab.example.org ,other", True), ("10.0.0.7:8501", "10.0.0.7", "", True),
    ("10.0.0.8:8501", "10.0.0.7", "", False), (None, "127.0.0.1", "", True),
])
def test_only_the_hosts_the_operator_names_are_served(host, address, extra, served):
    assert access.host_allowed(host, address, extra) is served


def test_bound_to_every_interface_the_machine_s_own_addresses_are_served_as_streamlit_prints_them():
    own = access.own_names()
    assert "127.0.0.1" in own and socket.gethostname().lower() in own
    assert access.host_allowed("10.77.0.2:8501", "0.0.0.0", "", frozenset({"10.77.0.2"}))
    assert not access.host_allowed("10.77.0.3:8501", "0.0.0.0", "", frozenset({"10.77.0.2"}))
    assert not access.host_allowed("10.77.0.2:8501", "127.0.0.1", "", frozenset({"10.77.0.2"}))  # not bound there


def test_a_sign_in_token_proves_the_passphrase_for_hours_and_nothing_else():
    now = 1_000_000.0
    token = access.sign_in_token(HASH, now)
    assert access.token_valid(token, HASH, now + 3600)
    assert not access.token_valid(token, HASH, now + access.SIGN_IN_HOURS * 3600 + 1)  # expired
    assert not access.token_valid(token, passphrase.hash_passphrase(PASSPHRASE), now)  # a new hash voids it
    expiry, tid, mac = token.split(".")
    assert not access.token_valid(f"{int(expiry) + 3600}.{tid}.{mac}", HASH, now)  # a longer life is not forged
    assert not access.token_valid(f"{expiry}.{'0' * 16}.{mac}", HASH, now)  # nor another id
    assert not access.token_valid(f"{expiry}.{tid}.{mac[:-1]}{'1' if mac[-1] == '0' else '0'}", HASH, now)
    for bad in ("", "garbage", "1.2.3", f"{10**30}.{tid}.{mac}", f"{expiry}.{mac}", f"²{expiry}.{tid}.{mac}", None):
        assert not access.token_valid(bad, HASH, now)
    assert access.sign_in_token(HASH, now) != token  # every sign-in is a token of its own


def test_sign_out_revokes_the_token_on_the_server_for_every_session_and_after_a_restart(store):
    """A copied cookie replayed after Sign out is no sign-in: its id is refused from the store."""
    now = time.time()
    token, other = access.sign_in_token(HASH, now), access.sign_in_token(HASH, now)
    assert access.token_valid(token, HASH, now, access.is_revoked)
    access.revoke(token)
    assert not access.token_valid(token, HASH, now, access.is_revoked)
    access._REVOKED.clear()  # the server restarted: the store still knows
    assert not access.token_valid(token, HASH, now, access.is_revoked)
    assert access.token_valid(other, HASH, now, access.is_revoked)  # another browser's sign-in stands


@pytest.mark.parametrize(("origin", "host", "foreign"), [
    (None, "127.0.0.1:8501", False),  # no page: a client of its own (and no cookie of a browser)
    ("http://127.0.0.1:8501", "127.0.0.1:8501", False),
    ("https://lab.example.org", "lab.example.org", True),  # served as http, no proxy in front: not its origin
    ("https://127.0.0.1:8501", "127.0.0.1:8501", True),  # the scheme counts (main let this operate)
    ("http://127.0.0.1:8622", "127.0.0.1:8501", True),  # another local web app's page
    ("http://localhost:9", "localhost:8501", True),
    ("http://localhost:8501", "127.0.0.1:8501", True),  # another name is another origin
    ("null", "127.0.0.1:8501", True),  # a sandboxed frame or a file
    ("file://", "127.0.0.1:8501", True),
])
def test_only_the_lab_s_own_origin_may_operate(origin, host, foreign):
    headers = {"Host": host} | ({"Origin": origin} if origin is not None else {})
    assert access.foreign_origin(headers) is foreign
    # Behind a proxy that rewrites Host to its upstream, the browser's name is the forwarded one.
    behind = {"Host": "127.0.0.1:8501", "X-Forwarded-Host": "lab.example.org", "Origin": "https://lab.example.org"}
    assert not access.foreign_origin(behind) and access.foreign_origin(behind | {"Origin": "https://evil.example"})
    # A TLS proxy that keeps Host and adds only X-Forwarded-For: https is its scheme; one that says its scheme is held
    tls = {"Host": "lab.example.org", "X-Forwarded-For": "10.0.0.9", "Origin": "https://lab.example.org"}
    assert not access.foreign_origin(tls)
    assert access.foreign_origin(tls | {"X-Forwarded-Proto": "http"})


@pytest.mark.parametrize(("email", "operators", "operates"), [
    ("ana@lab.org", "", True), ("ana@lab.org", "ana@lab.org, bo@lab.org", True),
    ("ANA@lab.org ", "ana@LAB.org", True), ("eve@else.org", "ana@lab.org,bo@lab.org", False),
])
def test_with_an_identity_provider_the_listed_addresses_operate(email, operators, operates):
    assert access.email_operates(email, operators) is operates


def test_the_passphrase_is_kept_as_a_salted_scrypt_hash():
    assert HASH.startswith("scrypt$16384$8$1$") and PASSPHRASE not in HASH
    assert passphrase.verify(PASSPHRASE, HASH) and not passphrase.verify(PASSPHRASE + "!", HASH)
    assert passphrase.hash_passphrase(PASSPHRASE) != HASH  # a new salt each time
    assert not passphrase.verify(PASSPHRASE, "scrypt$garbage") and not passphrase.verify(PASSPHRASE, "")
    with pytest.raises(ValueError, match="at least 8 characters"):
        passphrase.hash_passphrase("short")


def test_five_wrong_passphrases_lock_a_client_for_a_minute():
    assert access.locked_for([1.0, 2.0, 3.0, 4.0], now=5.0) == 0
    assert access.locked_for([1.0, 2.0, 3.0, 4.0, 5.0], now=6.0) == pytest.approx(55.0)
    assert access.locked_for([1.0, 2.0, 3.0, 4.0, 5.0], now=61.5) == 0


def test_a_viewers_store_refuses_every_change_and_changes_nothing(store):
    run_id = service.create_run(store, "dqn", {}, label="theirs")
    sweep_id, _ = store.create_sweep("dqn", {}, {}, [({}, "m")])
    viewer = access.ViewerStore(store.home)
    for change in (lambda: service.create_run(viewer, "dqn", {}), lambda: viewer.request_cancel(run_id),
                   lambda: viewer.delete_run(run_id), lambda: viewer.set_label(run_id, "mine"),
                   lambda: viewer.set_notes(run_id, "x"), lambda: viewer.create_sweep("dqn", {}, {}, [({}, "m")]),
                   lambda: viewer.cancel_sweep(sweep_id), lambda: viewer.delete_sweep(sweep_id)):
        with pytest.raises(StoreError, match=r"^Only an operator can do this"):
            change()
    run = store.get_run(run_id)
    assert (run.status, run.label, run.cancel_requested, len(store.list_runs()), len(store.list_sweeps())) == (
        "queued", "theirs", False, 2, 1)


@pytest.fixture
def viewer(store, monkeypatch):
    """Pages served with an operator passphrase configured: a session is a viewer until it signs in."""
    monkeypatch.setenv(access.HASH_ENV, HASH)
    return store


def _seed(store):
    done = service.create_run(store, "dqn", {"epochs": 10}, label="finished")
    store.append_metrics(done, [(s, s / 10, reporting.LOSS, 1.0 / s) for s in range(1, 20)])
    store.save_artifacts(done, {"model.keras": b"weights", "replays.json": b"[]"})
    store.finish(done, "done", summary={"win_rate": 0.9, "steps_per_second": 250.0, "train_seconds": 4.0})
    live = service.create_run(store, "dqn", {}, label="live")
    space = search.Space(grid={"batch_size": [16, 32]})
    sweep_id, _ = store.create_sweep("dqn", {}, space.to_dict(), [({"batch_size": 16}, "a"), ({"batch_size": 32}, "b")])
    return done, live, sweep_id


def _write_controls(at):
    keys = {b.key for b in at.button} | {w.key for w in at.text_input} | {w.key for w in at.text_area}
    return sorted(k for k in keys if k and (k in WRITE_KEYS or k.startswith(("cancel_", "again_", "save_",
                                                                                "edit_", "profile_"))))


@pytest.mark.parametrize(("page", "query"), [
    ("home", {}), ("dqn", {}), ("hjb", {}), ("bench", {}), ("sweeps", {}), ("runs", {}),
    ("dqn", {"run": "RUN"}), ("dqn", {"run": "LIVE"}), ("runs", {"runs": "RUN,LIVE"}), ("sweeps", {"sweep": "SWEEP"}),
])
def test_every_page_as_a_viewer_has_no_control_that_changes_anything(viewer, page, query):
    done, live, sweep_id = _seed(viewer)
    values = {"RUN": str(done), "LIVE": str(live), "RUN,LIVE": f"{done},{live}", "SWEEP": str(sweep_id)}
    at = open_page(page, {k: values.get(v, v) for k, v in query.items()})
    assert not at.exception
    assert _write_controls(at) == []
    downloads = [b.proto.label for b in at.get("download_button")]
    assert not any("keras" in label for label in downloads)  # a trained model is the operator's
    text = json.dumps([str(e) for e in at.sidebar]) + json.dumps([c.value for c in at.caption])
    assert HASH not in text and str(viewer.path) not in text  # never the hash; not the store's path either


def test_a_forged_confirmation_in_a_viewers_session_deletes_nothing(viewer):
    done, live, _ = _seed(viewer)
    at = open_page("runs", {"runs": str(done)})
    at.session_state["confirm_delete"] = [done]  # as if the confirmation had been asked and shown
    at.run()
    assert not at.exception and not _write_controls(at)
    assert viewer.get_run(done) is not None and viewer.get_run(live).status == "queued"


@pytest.fixture(autouse=True)
def _no_earlier_failures():
    """Each test starts with no wrong passphrase counted (the counts live for the server's process)."""
    access._FAILURES_BY_CLIENT.clear()
    access._FAILURES_ALL.clear()


def test_the_passphrase_signs_a_session_in_and_out_and_wrong_ones_are_throttled(viewer, monkeypatch):
    monkeypatch.setattr(access, "_client", lambda: "10.0.0.9")  # AppTest gives every run a new mock address
    at = open_page("dqn")
    assert not [b for b in at.button if b.key == "launch"]
    for _ in range(access.MAX_FAILURES):
        at.sidebar.text_input(key="passphrase").input("wrong wrong wrong")
        at.sidebar.button[0].click().run()  # a form sends its values with its submit button
    assert shown(at.sidebar.error[0]) == "That is not the operator's passphrase."
    at.sidebar.text_input(key="passphrase").input(PASSPHRASE)
    at.sidebar.button[0].click().run()
    assert shown(at.sidebar.error[0]).startswith("Too many wrong passphrases; try again in")  # even the right one
    assert not [b for b in at.button if b.key == "launch"]
    st.cache_data.clear()  # what any session's "clear cache" message does on the server
    st.cache_resource.clear()
    fresh = open_page("dqn")  # another session from the same client
    fresh.sidebar.text_input(key="passphrase").input(PASSPHRASE)
    fresh.sidebar.button[0].click().run()
    assert shown(fresh.sidebar.error[0]).startswith("Too many wrong passphrases; try again in")  # still locked


def test_the_right_passphrase_turns_the_controls_on_and_sign_out_off(viewer):
    at = open_page("dqn")
    at.sidebar.text_input(key="passphrase").input(PASSPHRASE)
    at.sidebar.button[0].click().run()
    assert not at.exception and not at.sidebar.error, [e.value for e in at.sidebar.error]
    assert [b for b in at.button if b.key == "launch"]
    assert any(c.value == "Signed in as operator." for c in at.sidebar.caption)
    at.button(key="sign_out").click().run()
    assert not [b for b in at.button if b.key == "launch"]


def test_served_beyond_loopback_without_a_sign_in_everyone_is_a_viewer_told_how_to_operate(store, monkeypatch):
    monkeypatch.delenv(access.HASH_ENV, raising=False)
    streamlit.config.set_option("server.address", "0.0.0.0")
    try:
        at = open_page("dqn")
        assert not at.exception and not [b for b in at.button if b.key == "launch"]
        assert any("python -m rlcore operator-hash" in c.value for c in at.sidebar.caption)
    finally:
        streamlit.config.set_option("server.address", "127.0.0.1")
    local = open_page("dqn")
    assert [b for b in local.button if b.key == "launch"]  # on loopback, nothing configured: the local user operates


def test_with_an_identity_provider_configured_a_session_signs_in_through_it(store, monkeypatch):
    from pagetest import APP
    from streamlit.testing.v1 import AppTest

    monkeypatch.delenv(access.HASH_ENV, raising=False)
    at = AppTest.from_file(APP, default_timeout=60)
    at.secrets["auth"] = {"redirect_uri": "http://localhost:8501/oauth2callback", "cookie_secret": "s" * 32,
                          "client_id": "lab", "client_secret": "x",
                          "server_metadata_url": "http://127.0.0.1:9/.well-known/openid-configuration"}
    at.run()
    go(at, "dqn").run()
    assert not at.exception and not [b for b in at.button if b.key == "launch"]  # even on loopback
    assert [b.proto.label for b in at.sidebar.button] == ["Sign in as operator"]
    assert "s" * 32 not in json.dumps([str(e) for e in at.sidebar])


def _declared():
    """Every file a registered workload declares it writes, with its kind, and one it does not declare."""
    from rlcore.contract import workloads

    cases = [(w.kind, a.name, a.kind) for w in workloads.all_workloads() for a in w.artifacts]
    return [*cases, ("dqn", "weights.bin", "model"), ("hjb", "policy.onnx", "model")]


@pytest.mark.parametrize(("kind", "name", "artifact_kind"), _declared())
@pytest.mark.parametrize("shared", [False, True])
def test_a_viewer_gets_a_run_s_file_by_what_its_workload_says_it_is_never_by_its_name(viewer, monkeypatch, kind,
                                                                                        name, artifact_kind, shared):
    """The PyTorch style's model.pt went to any viewer (only .keras, .h5, .pb were models): a file is what the
    workload that wrote it declares; an undeclared one is kept like a model."""
    from rlcore.contract import workloads

    if shared:
        monkeypatch.setenv(access.MODELS_ENV, "1")
    run_id = service.create_run(viewer, kind, {})
    viewer.save_artifacts(run_id, {name: b"the run's own bytes"})
    viewer.finish(run_id, "done", summary={})
    at = open_page("runs", {"run": str(run_id)})
    assert not at.exception
    offered = [b.proto.label for b in at.get("download_button")]
    assert workloads.get(kind).artifact_kind(name) == artifact_kind
    assert (name in offered) is (shared or artifact_kind not in access.SHARED_ONLY), offered


def test_a_viewer_sees_a_script_run_s_why_but_not_where_it_lives_on_the_server(viewer):
    """Main: viewers saw the operator's absolute script path, working folder, arguments and source lines while the
    capture's folder was hidden from them. Now: the why and its lines (by file name), never the server's paths or
    the arguments (which may carry a token)."""
    run_id = service.create_run(viewer, "script", {"path": __file__, "args": '["--token", "s3cret"]',
                                                   "cwd": "/srv/private/work"}, label="theirs")
    where = {"file": "/srv/private/work/lib/model.py", "line": 7, "code": "y = model.predict(x)"}
    viewer.finish(run_id, "done", summary={"steps": 10, "steps_per_second": 5.0, "profile": {
        "version": 2, "verdict": "predict-bound", "step_seconds": 0.2, "capture": "/srv/private/cap.xplane.pb",
        "logdir": "/srv/private", "findings": [{"cause": "predict-bound", "title": "model.predict in a loop",
                                                "seconds_per_step": 0.1, "share": 0.5, "fix": "call the model",
                                                "guide": "", "where": [where]}]}})
    seen = access.ViewerStore(viewer.home).get_run(run_id)
    shown = repr((seen.config, seen.environment, seen.summary))
    assert "/srv/private" not in shown and "s3cret" not in shown and "/tests/" not in shown
    assert seen.config["path"] == "test_access.py" and "model.py" in shown and "y = model.predict(x)" in shown
    assert [r.config["path"] for r in access.ViewerStore(viewer.home).list_runs()] == ["test_access.py"]
    at = open_page("runs", {"run": str(run_id)})
    assert not at.exception
    page = repr([e.value for e in (*at.markdown, *at.caption, *at.code, *at.info)]) + repr(
        [d.value.to_dict() for d in [*at.dataframe, *at.table]])
    assert "/srv/private" not in page and "s3cret" not in page and "model.py:7" in page, page[:2000]
    assert viewer.get_run(run_id).config["cwd"] == "/srv/private/work"  # the operator's store still has it all
