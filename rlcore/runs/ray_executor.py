"""The Ray executor: runs (and sweep members) execute as Ray tasks on a cluster; the store stays on the head.

One named, detached service actor on the head node (``num_cpus=0``, pinned there by the ``rlcore_head`` resource
the head offers) is the only writer of Ray runs into the store on that machine. It submits queued Ray runs as
tasks in creation order, owns their results, and maps faults to the statuses users know:

- each task runs in a fresh worker process (``max_calls=1``), fixes its device before TensorFlow starts, reports
  metric batches every ~0.5 s and a heartbeat every 2 s to the service and hears a cancel in the reply; sends its
  files back as bytes and returns the summary; ``max_retries=0`` (a silent retry would append a half run twice);
- resources from the config: ``device=gpu`` asks one GPU; every run asks one ``rlcore_slot`` (a node offers one
  by default: one run per node at a time, so throughput numbers stay clean; ``RLCORE_RAY_SLOT=0.5`` lets two
  small runs share a node);
- cancel: cooperative at the task's next report, then ``ray.cancel(force=True)`` after a grace → cancelled;
  a killed worker process → failed "worker died"; its node lost → failed "node died: <host> (<node id>)";
  a run no node can ever place waits with a sentence that says why, then fails clearly.

Importing this module does not import Ray: the dashboard and the CLI import it only when the executor is Ray.
"""

from __future__ import annotations

import contextlib
import functools
import os
import socket
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from rlcore.contract import settings, workloads
from rlcore.contract.params import ConfigError
from rlcore.contract.status import FINISHED, RunStatus
from rlcore.runs.executor import Executor, register
from rlcore.runs.lifecycle import Ended, RunLifecycle
from rlcore.runs.store import Store, StoreError

NAMESPACE = "rlcore"
SERVICE = "rlcore-service"
HEAD_RESOURCE = "rlcore_head"
SLOT_RESOURCE = "rlcore_slot"
ADDRESS_ENV = settings.RAY_ADDRESS.name
SLOT_ENV = settings.RAY_SLOT.name
PROJECT_ROOT = Path(__file__).resolve().parents[2]
REPORT_SECONDS = 0.5
HEARTBEAT_SECONDS = 2.0
CANCEL_GRACE_SECONDS = 10.0
UNPLACEABLE_SECONDS = 60.0  # how long a run no node can take waits before it fails
INSTALL_HINT = ("the Ray executor needs the cluster extra: .venv/bin/pip install -r requirements-cluster.txt "
                "(or unset RLCORE_EXECUTOR to run on this machine)")


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ConfigError(f"RLCORE_EXECUTOR is ray, but {INSTALL_HINT}.", "executor") from None
    return ray


def checked_address(address: str) -> str:
    """A cluster's address as Ray takes it ("auto", or HOST:PORT), and one that answers: anything else is one
    sentence at once (Ray itself waits a minute for a port nobody listens on)."""
    if address == "auto":
        return address
    host, _, port = address.removeprefix("ray://").rpartition(":")
    host = host.strip("[]")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(f"A Ray cluster's address is HOST:PORT (like 127.0.0.1:6379), not {address[:80]!r}.",
                          "executor")
    try:
        with socket.create_connection((host, int(port)), timeout=5):
            pass
    except OSError as e:
        raise ConfigError(f"No Ray cluster answers at {address[:80]} ({e.strerror or e}); start one with `ray start "
                          f"--head` or set {ADDRESS_ENV}.", "executor") from None
    return address


def connect(address: str | None = None) -> Any:
    """Join the cluster (``$RLCORE_RAY_ADDRESS``, default the one running on this machine) once per process."""
    ray = _ray()
    if not ray.is_initialized():
        target = checked_address(address or settings.RAY_ADDRESS.text() or "auto")
        try:
            ray.init(address=target, namespace=NAMESPACE, log_to_driver=False, logging_level="WARNING",
                     runtime_env={"env_vars": {"PYTHONPATH": str(PROJECT_ROOT), "RAY_USAGE_STATS_ENABLED": "0"}})
        except ConnectionError as e:
            raise ConfigError(f"No Ray cluster answers at {target} ({e}); start one with `ray start --head` or "
                              f"set {ADDRESS_ENV}.", "executor") from None
    return ray


def service(store: Store, *, unplaceable_seconds: float = UNPLACEABLE_SECONDS) -> Any:
    """The cluster's service actor for this store, started on the head if it is not running."""
    ray = connect()
    home = str(store.home.resolve())
    remote_service, _ = _remote()
    actor = remote_service.options(name=SERVICE, namespace=NAMESPACE, lifetime="detached", get_if_exists=True,
                            num_cpus=0, resources={HEAD_RESOURCE: 0.001}, max_concurrency=32,
                            ).remote(home, unplaceable_seconds)
    served = ray.get(actor.home.remote(), timeout=60)
    if served != home:
        raise ConfigError(f"The cluster's rlcore service writes the store at {served}, not {home}; run the "
                          "dashboard with that RLCORE_HOME (one store per cluster).", "executor")
    return actor


def submit(store: Store) -> None:
    """Wake the service: it takes every queued Ray run of the store, oldest first."""
    _ray().get(service(store).wake_up.remote(), timeout=60)


def cluster_card(address: str | None = None) -> dict[str, Any]:
    """The cluster as the sidebar shows it: its nodes, CPUs, GPUs and the kinds of device they offer."""
    ray = connect(address)
    nodes = [n for n in ray.nodes() if n.get("Alive")]
    kinds = sorted({k for n in nodes for k in n.get("Resources", {}) if _is_device_kind(k)})
    return {"nodes": len(nodes), "cpus": sum(n["Resources"].get("CPU", 0) for n in nodes),
            "gpus": sum(n["Resources"].get("GPU", 0) for n in nodes), "device_kinds": kinds,
            "hosts": sorted({n.get("NodeManagerHostname", "") for n in nodes})}


def card_lines(card: dict[str, Any]) -> list[str]:
    """The cluster in words, as the sidebar and ``rlcore cluster`` show it."""
    kinds = f"; device kinds: {', '.join(card['device_kinds'])}" if card["device_kinds"] else ""
    return [f"{card['nodes']} nodes ({', '.join(card['hosts'])}): {card['cpus']:g} CPUs, {card['gpus']:g} GPUs{kinds}"]


def describe() -> list[str]:
    """What the sidebar shows of this executor, asked in a subprocess (like the device card): the dashboard's own
    process keeps its imports small."""
    import json
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "rlcore", "cluster", "--json"], capture_output=True, text=True,
                         timeout=120, cwd=PROJECT_ROOT)
    if out.returncode != 0:
        lines = out.stderr.strip().splitlines()
        raise ConfigError(lines[-1].removeprefix("error: ") if lines else "the cluster did not answer")
    return card_lines(json.loads(out.stdout))


def _is_device_kind(resource: str) -> bool:
    return resource.startswith("accelerator_type:") or resource.endswith("_kind")


# ---------------------------------------------------------------- the service actor


def _requirements(config: dict[str, Any]) -> dict[str, float]:
    """What a run asks of a node: a slot, and a GPU when its config wants one."""
    needs = {SLOT_RESOURCE: float(settings.RAY_SLOT.text() or "1")}
    if "gpu" in str(config.get("device", "")).split(","):
        needs["GPU"] = 1.0
    return needs


class Service:
    """The cluster's one writer of Ray runs: submits, hears, judges faults, records ends."""

    def __init__(self, home: str, unplaceable_seconds: float = UNPLACEABLE_SECONDS) -> None:
        self.store = Store(home)
        self.unplaceable_seconds = unplaceable_seconds
        self.tasks: dict[int, Any] = {}  # run id -> ObjectRef
        self.submitted: dict[int, float] = {}
        self.nodes: dict[int, dict[str, Any]] = {}  # run id -> the node it started on
        self.cancel_seen: dict[int, float] = {}
        self.phases: dict[int, str] = {}  # what each waiting run was last told, so it is written once
        self.lock = threading.Lock()
        self.wake = threading.Event()
        self._lose_orphans()
        threading.Thread(target=self._loop, name="rlcore-service", daemon=True).start()

    # -- what tasks and drivers call

    def home(self) -> str:
        return str(self.store.home)

    def wake_up(self) -> None:
        self.wake.set()

    def started(self, run_id: int, environment: dict[str, Any]) -> bool:
        """A task's first word: the run is running there (False: it was cancelled meanwhile, do nothing)."""
        node = environment.get("node", {})
        with self.lock:
            self.nodes[run_id] = node
        return self.store.mark_running(run_id, int(node.get("pid", 0)), environment, host=node.get("host", "?"))

    def report(self, run_id: int, rows: list[tuple[int, float, str, float]], progress: float | None,
               phase: str | None) -> bool:
        return self.store.report(run_id, rows, progress=progress, phase=phase)

    def heartbeat(self, run_id: int) -> bool:
        return self.store.heartbeat(run_id)

    # -- the loop

    def _lose_orphans(self) -> None:
        """Ray runs that were running under an earlier service (the head restarted) can never report again."""
        for run in self.store.list_runs():
            if run.executor == "ray" and run.status == RunStatus.RUNNING:
                RunLifecycle.ended_elsewhere(self.store, run.id, RunStatus.FAILED,
                                             "lost: the cluster's rlcore service restarted while it ran")

    def _loop(self) -> None:
        while True:
            with contextlib.suppress(StoreError):
                self._submit_queued()
                self._watch_waiting_and_cancelled()
                self._collect(wait=REPORT_SECONDS)  # returns as soon as a task ends: its result is stored at once

    def _submit_queued(self) -> None:
        import ray

        _, execute = _remote()
        me = ray.get_runtime_context().current_actor
        for run in self.store.queued_runs("ray"):  # oldest first; only this service submits Ray runs
            if run.id in self.tasks:
                continue
            needs = _requirements(run.config)
            gpus = needs.pop("GPU", 0.0)
            ref = execute.options(num_cpus=1, num_gpus=gpus, resources=needs).remote(run.id, run.kind, run.config, me)
            with self.lock:
                self.tasks[run.id] = ref
                self.submitted[run.id] = time.monotonic()

    def _collect(self, wait: float) -> None:
        import ray

        if not self.tasks:
            self.wake.wait(wait)  # a wake_up (a new run) ends the wait early
            self.wake.clear()
            return
        refs = {ref: run_id for run_id, ref in self.tasks.items()}
        ready, _ = ray.wait(list(refs), num_returns=1, timeout=wait)
        if ready:
            ready, _ = ray.wait(list(refs), num_returns=len(refs), timeout=0)
        for ref in ready:
            run_id = refs[ref]
            self._record(run_id, ref)
            with self.lock:
                self.tasks.pop(run_id, None)
                self.submitted.pop(run_id, None)
                self.cancel_seen.pop(run_id, None)

    def _record(self, run_id: int, ref: Any) -> None:
        import ray

        run = self.store.get_run(run_id)
        try:
            result = ray.get(ref)
        except ray.exceptions.TaskCancelledError:
            late = run is not None and run.status == RunStatus.RUNNING
            RunLifecycle.ended_elsewhere(self.store, run_id, RunStatus.CANCELLED,
                                         "stopped: it did not reach a point where it can stop within "
                                         f"{CANCEL_GRACE_SECONDS:g} s of the cancel" if late else None)
            return
        except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError, ray.exceptions.LocalRayletDiedError,
                ray.exceptions.ObjectLostError, ray.exceptions.OwnerDiedError) as e:
            if run is not None and run.cancel_requested:
                RunLifecycle.ended_elsewhere(self.store, run_id, RunStatus.CANCELLED,
                                             "stopped by force after the cancel's grace period")
                return
            RunLifecycle.ended_elsewhere(self.store, run_id, RunStatus.FAILED, self._crash_reason(run_id, e))
            return
        except ray.exceptions.RayError as e:
            RunLifecycle.ended_elsewhere(self.store, run_id, RunStatus.FAILED, str(e).strip().splitlines()[-1][:300])
            return
        if result is None:
            return  # cancelled before it started: recorded by the store already
        self.store.save_artifacts(run_id, result.get("artifacts", {}))
        self.store.finish(run_id, result["status"], summary=result.get("summary"), error=result.get("error"))

    def _crash_reason(self, run_id: int, error: Exception) -> str:
        import ray

        node = self.nodes.get(run_id, {})
        alive = {n["NodeID"]: n.get("Alive", False) for n in ray.nodes()}
        lost = isinstance(error, ray.exceptions.NodeDiedError | ray.exceptions.LocalRayletDiedError)
        if node and (lost or not alive.get(node.get("node_id"), False)):
            return f"node died: {node.get('host', '?')} ({node.get('node_id', '?')[:12]})"
        if lost:
            return "node died: " + str(error).strip().splitlines()[0][:200]
        return "worker died"

    def _watch_waiting_and_cancelled(self) -> None:
        import ray

        now = time.monotonic()
        nodes = [n for n in ray.nodes() if n.get("Alive") and n["Resources"].get(SLOT_RESOURCE)]
        for run_id, ref in list(self.tasks.items()):
            run = self.store.get_run(run_id)
            if run is None:
                continue
            if run.cancel_requested:
                first = self.cancel_seen.setdefault(run_id, now)
                if run.status == RunStatus.CANCELLED:  # still waiting for a node: drop it at once
                    ray.cancel(ref, force=False)
                elif now - first > CANCEL_GRACE_SECONDS:
                    ray.cancel(ref, force=True)
                continue
            if run.status != RunStatus.QUEUED:
                continue
            needs = _requirements(run.config)
            if any(all(n["Resources"].get(k, 0.0) >= v for k, v in needs.items()) for n in nodes):
                self._show_phase(run_id, f"waiting for a free node (the cluster has {len(nodes)} that run rlcore)")
                continue
            missing = ", ".join(f"{v:g} {k}" for k, v in needs.items()
                                if not any(n["Resources"].get(k, 0.0) >= v for n in nodes))
            waited = now - self.submitted.get(run_id, now)
            if waited > self.unplaceable_seconds:
                ray.cancel(ref, force=False)
                RunLifecycle.ended_elsewhere(self.store, run_id, RunStatus.FAILED,
                                             f"no node of the cluster can run it: it needs {missing} "
                                  f"and none of the {len(nodes)} nodes offers that")
            else:
                self._show_phase(run_id, f"waiting: no node offers {missing}; it fails after "
                           f"{self.unplaceable_seconds:.0f} s unless such a node joins")

    def _show_phase(self, run_id: int, phase: str) -> None:
        if self.phases.get(run_id) != phase:
            self.store.report(run_id, [], phase=phase)
            self.phases[run_id] = phase


# ---------------------------------------------------------------- the task


class ServiceSink:
    """A task's life written through the service (the store's only writer on the head): its start, rows and
    heartbeats as calls whose reply says whether to stop; its end kept here, for the task to return (the service
    records it from the task's result, which it owns)."""

    def __init__(self, ray: Any, service: Any, run_id: int) -> None:
        self.ray, self.service, self.run_id = ray, service, run_id
        self.result: Ended | None = None

    def started(self, environment: dict[str, Any], *, already_running: bool) -> bool:
        return self.ray.get(self.service.started.remote(self.run_id, environment), timeout=60)

    def report(self, rows: list[tuple[int, float, str, float]], progress: float | None, phase: str | None) -> bool:
        return self.ray.get(self.service.report.remote(self.run_id, rows, progress, phase), timeout=60)

    def heartbeat(self) -> bool:
        return self.ray.get(self.service.heartbeat.remote(self.run_id), timeout=30)

    def notes(self) -> dict[str, Any]:
        return {}

    def ended(self, ended: Ended) -> None:
        self.result = ended


def _node(ray: Any) -> dict[str, Any]:
    context = ray.get_runtime_context()
    node_id = context.get_node_id()
    resources = next((n.get("Resources", {}) for n in ray.nodes() if n["NodeID"] == node_id), {})
    return {"host": socket.gethostname(), "node_id": node_id, "pid": os.getpid(),
            "cpus": resources.get("CPU", 0), "gpus": resources.get("GPU", 0),
            "device_kinds": sorted(k for k in resources if _is_device_kind(k))}


def _execute(run_id: int, kind: str, config: dict[str, Any], service: Any) -> dict[str, Any] | None:
    """One run on a cluster node, in a fresh worker process."""
    import ray

    from rlcore.runs import worker
    from rlcore.tracking.machine import set_threads

    workload = workloads.get(kind)
    cfg = workload.make_config(config)
    # Before TensorFlow starts in this process (it starts here: max_calls=1 gives every run a fresh worker).
    # Ray already fixes CUDA_VISIBLE_DEVICES for a task that asked for GPUs; a CPU run hides them.
    capture = Path(tempfile.mkdtemp(prefix="rlcore-profile-"))  # a profile's files travel back as bytes
    worker.prepare(cfg, home=Path(tempfile.gettempdir()) / "rlcore", profile_dir=capture, threads=0)
    # TensorFlow would use every core of the node for each run; a task uses the threads its run asks for, or the
    # CPUs it was given, so two runs sharing a machine do not fight over the same cores.
    cpus = workloads.threads_of(cfg) or max(1, round(ray.get_runtime_context().get_assigned_resources().get("CPU", 1)))
    set_threads(workload.framework(cfg), cpus)
    began = time.time()
    # No grace of its own: after a cancel's grace the service cancels the task by force.
    ended = worker.run(ServiceSink(ray, service, run_id), workload, cfg, environment={"node": _node(ray)}, grace=None)
    if ended is None:  # cancelled before it started
        return None
    if ended.status not in FINISHED or ended.summary is None:
        return {"status": ended.status, "error": ended.error}
    # When the task ended, so the cost of getting its result into the store can be measured.
    timing = {"task_seconds": time.time() - began, "task_ended": time.time()}
    from rlcore.tracking.capture import capture_files

    return {"status": ended.status, "summary": ended.summary | {"ray": timing},
            "artifacts": (ended.artifacts or {}) | capture_files(capture)}


@functools.cache
def _remote() -> tuple[Any, Any]:
    """The service actor class and the task, made remote on first use (importing Ray only then)."""
    ray = _ray()
    return ray.remote(Service), ray.remote(max_retries=0, max_calls=1)(_execute)


register(Executor("ray", "a Ray cluster: each run a task on a node, the store on the head (the cluster extra)",
                  submit=lambda store, runs: submit(store), describe=describe,
                  title="The Ray cluster (runs execute there)"))
