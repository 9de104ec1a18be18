"""The machine a run trains on: its device, threads and XLA cache, fixed before the framework starts, how a step
function becomes eager, tf.function or XLA, and the environment card that says what a number was measured on.

The device must be chosen before TensorFlow is imported (it is process-wide), so ``pin_device`` only touches the
environment, and ``check_device`` runs after the import. The card imports the run's framework (TensorFlow, or
PyTorch for a run that trains with it), so the dashboard never asks for one.
"""

from __future__ import annotations

import contextlib
import io
import os
import platform
import re
import socket
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

from rlcore.contract import settings

# How TensorFlow runs a step function (a workload's styles map onto these): op by op from Python, traced into a graph
# once (tf.function), or traced and compiled by XLA (jit_compile=True).
TF_RUNS = ("eager", "graph", "xla")


class DeviceError(RuntimeError):
    """The requested device cannot be used; the message is one sentence for the user."""


def pin_device(device: str, environ: dict[str, str] | None = None) -> None:
    """Fix the device for this process before TensorFlow is imported (CPU hides every GPU)."""
    env = os.environ if environ is None else environ
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    if "gpu" not in device.split(","):
        env["CUDA_VISIBLE_DEVICES"] = "-1"


def check_device(device: str, visible_gpus: Sequence[Any] | None = None) -> str:
    """Return the TF device string, or raise DeviceError when a GPU is asked for and none is seen.

    ``visible_gpus`` defaults to what TensorFlow lists; tests pass a list to check the decision.
    """
    if device == "cpu":
        return "/CPU:0"
    if visible_gpus is None:
        import tensorflow as tf

        visible_gpus = tf.config.list_physical_devices("GPU")
    if not visible_gpus:
        cuda = os.environ.get("CUDA_VISIBLE_DEVICES")
        why = (
            f"CUDA_VISIBLE_DEVICES is {cuda!r}" if cuda is not None
            else "no CUDA device or driver was found by this TensorFlow build"
        )
        raise DeviceError(f"GPU requested but TensorFlow sees none: {why}; use --device cpu.")
    return "/GPU:0"


def compile_fn(fn: Callable, how: str, **tf_function_kwargs: Any) -> Callable:
    """Wrap ``fn`` as TensorFlow should run it (one of TF_RUNS): eager calls it as is, graph traces it, xla also
    compiles it."""
    if how not in TF_RUNS:
        raise ValueError(f"a step function runs {', '.join(TF_RUNS)}, not {how!r}.")
    if how == "eager":
        return fn
    import tensorflow as tf

    return tf.function(fn, jit_compile=(how == "xla"), **tf_function_kwargs)


_XLA_CACHE_FLAG = "--tf_xla_persistent_cache_directory="


def enable_xla_cache(directory: str | os.PathLike, environ: dict[str, str] | None = None) -> None:
    """Keep XLA's compiled programs on disk, so the next process loads instead of compiling (TF reads the
    flag at its first XLA compile). An explicit TF_XLA_FLAGS cache setting wins."""
    env = os.environ if environ is None else environ
    flags = env.get("TF_XLA_FLAGS", "")
    if _XLA_CACHE_FLAG not in flags:
        os.makedirs(directory, exist_ok=True)
        env["TF_XLA_FLAGS"] = f"{flags} {_XLA_CACHE_FLAG}{directory}".strip()


def xla_cache_snapshot(directory: str | None) -> dict[str, int]:
    """Each cached program's file and its modification time (empty without a cache)."""
    if not directory or not os.path.isdir(directory):
        return {}
    return {e.name: e.stat().st_mtime_ns for e in os.scandir(directory) if e.is_file()}


def xla_cache_status(directory: str | None, before: dict[str, int]) -> str:
    """What XLA's persistent cache did during a first call, read from the files it writes.

    TensorFlow either loads a program it finds in the cache or compiles it and writes its file (``TryToLoad`` /
    ``TryToPersistExecutable``), so: a file written during the call is a "miss" (compiled, kept for the next
    process); none written while the cache holds programs is a "hit" (loaded); an empty cache means the setting
    never took effect ("off"): TensorFlow reads it once, when it starts.
    """
    after = xla_cache_snapshot(directory)
    if not directory or not after:
        return "off"
    if any(before.get(name) != mtime for name, mtime in after.items()):
        return "miss"
    return "hit"


def xla_cache_dir(environ: dict[str, str] | None = None) -> str | None:
    """The persistent XLA cache directory this process uses, if any."""
    flags = (os.environ if environ is None else environ).get("TF_XLA_FLAGS", "")
    for flag in flags.split():
        if flag.startswith(_XLA_CACHE_FLAG):
            return flag[len(_XLA_CACHE_FLAG):]
    return None


def cpu_key() -> str:
    """A short name for this CPU's model and instruction-set features (Linux: /proc/cpuinfo; elsewhere the
    platform's description). XLA's CPU programs are compiled for the features of the machine that compiled them:
    keyed by it, a cache shared between machines (a copied store, a network home) never hands one CPU another's
    program, which could stop on an instruction it lacks (SIGILL)."""
    import hashlib
    import platform

    described = platform.machine() + platform.processor()
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as cpuinfo:
            lines = [line for line in cpuinfo if line.startswith(("model name", "flags", "Features"))]
        described += "".join(dict.fromkeys(lines))
    except OSError:
        pass
    return hashlib.sha1(described.encode()).hexdigest()[:12]


# What TensorFlow's C++ side writes at start-up and along the way (absl, oneDNN, CUDA probes, XLA's notices): lines
# of glog's format ("I0000 00:00:...  12345 file.cc:31] ..."), TensorFlow's dated ones, and a few fixed sentences.
NATIVE_LINE = re.compile(rb"^(?:[IWEF]\d{4} [\d:.]+ +\d+ \S+:\d+\]"
                         rb"|\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+: [IWEF] "
                         rb"|WARNING: All log messages before absl::InitializeLog|To enable the following instructions"
                         rb"|.*rebuild TensorFlow with the appropriate compiler flags)")


def quiet_native_logs(*, python_stderr: bool = True) -> None:
    """Keep what TensorFlow's C++ side writes to the process's stderr (absl/oneDNN/CUDA start-up lines, XLA's
    cache notices) off the terminal, and everything else written to file descriptor 2 on it: Python's own stderr
    (errors, progress bars, tracebacks), and a person's script's ``os.write(2, ...)``, ``sys.__stderr__`` and its
    subprocesses' stderr, which are theirs.

    TensorFlow logs from C++ straight to file descriptor 2, whatever TF_CPP_MIN_LOG_LEVEL says for some lines
    ("failed call to cuInit", the absl pre-init warning). Python writes through ``sys.stderr``, which is moved to a
    copy of the original descriptor first; descriptor 2 becomes a pipe that a thread reads, dropping TensorFlow's
    lines and passing the rest on (a partial line after a short pause). Must run before TensorFlow is imported;
    child processes inherit the filtered descriptor 2. ``python_stderr=False`` (a Jupyter kernel, whose
    ``sys.stderr`` is its own stream to the cell, not the descriptor): only descriptor 2 is filtered, on to the
    kernel's own capture of it; TensorFlow's lines written before are not taken back.
    """
    import logging
    import sys

    # TensorFlow's Python warnings (the retracing WARNING, deprecations) follow the same rule: the lab's own reading
    # says them better (which function, which call site, what to change); --verbose keeps them.
    global _FILTERED
    logging.getLogger("tensorflow").setLevel(logging.ERROR)
    if getattr(sys.stderr, "_rlcore_quiet", False) or _FILTERED:
        return
    sys.stderr.flush()
    terminal = os.dup(2)
    read, write = os.pipe()
    os.dup2(write, 2)
    os.close(write)
    _FILTERED = True
    threading.Thread(target=_pass_on, args=(read, terminal), name="rlcore-stderr", daemon=True).start()
    if not python_stderr:
        return
    sys.stderr = _Stderr(open(terminal, "wb", buffering=0, closefd=False),  # noqa: SIM115
                         encoding=sys.stderr.encoding or "utf-8", errors="backslashreplace", line_buffering=True)
    sys.__stderr__ = sys.stderr  # the script's sys.__stderr__ is the terminal too


_FILTERED = False  # descriptor 2 goes through the filter in this process


def _pass_on(read: int, terminal: int, pause: float = 0.2) -> None:
    """What descriptor 2 receives, on to the terminal, but TensorFlow's own log lines."""
    import select

    pending = b""
    while True:
        ready, _, _ = select.select([read], [], [], pause if pending else None)
        if not ready:  # a partial line ("50%\r") waited long enough: it is shown as it is
            _write(terminal, pending)
            pending = b""
            continue
        chunk = os.read(read, 1 << 16)
        if not chunk:
            _write(terminal, pending)
            return
        *lines, pending = (pending + chunk).split(b"\n")
        kept = b"".join(line + b"\n" for line in lines if not NATIVE_LINE.match(line))
        _write(terminal, kept)


def _write(fd: int, data: bytes) -> None:
    with contextlib.suppress(OSError):  # a closed terminal, a full disk under a worker's log: the text, never the run
        while data:
            data = data[os.write(fd, data):]


class _Stderr(io.TextIOWrapper):
    """Python's stderr on its own copy of descriptor 2. Like the stderr Python starts with, a failed write (a full
    disk under a worker's log, a closed terminal) loses the text, never the run."""

    _rlcore_quiet = True

    def write(self, text: str) -> int:
        try:
            return super().write(text)
        except OSError:
            return len(text)

    def flush(self) -> None:
        with contextlib.suppress(OSError):
            super().flush()


PROFILE_DIR_ENV = settings.PROFILE_DIR.name  # where a profiled run keeps TensorFlow's capture


def prepare_process(device: str, home: str | os.PathLike, environ: dict[str, str] | None = None,
                    threads: int = 0, profile_dir: str | os.PathLike | None = None) -> None:
    """What every process that trains does before it imports its framework: fix the device and its CPU threads
    (``threads`` > 0; TensorFlow and PyTorch read them only when they start), keep XLA's compiled programs under the
    store's home so the next process loads them instead of compiling, and say where a profile's capture goes."""
    pin_device(device, environ)
    env = os.environ if environ is None else environ
    if threads > 0:  # TensorFlow's pools, and PyTorch's (it reads OMP_NUM_THREADS when it starts)
        env["TF_NUM_INTRAOP_THREADS"] = env["TF_NUM_INTEROP_THREADS"] = env["OMP_NUM_THREADS"] = str(threads)
    if profile_dir is not None:
        env[PROFILE_DIR_ENV] = os.fspath(profile_dir)
    enable_xla_cache(os.path.join(os.fspath(home), "xla_cache", cpu_key()), environ)


def set_threads(framework: str, threads: int) -> None:
    """Give a framework that has already started ``threads`` CPU threads (a Ray task's share of its node)."""
    if framework == "torch":
        import torch

        torch.set_num_threads(threads)
    elif framework == "tensorflow":
        import tensorflow as tf

        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(threads)


# ---------------------------------------------------------------- the environment card


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _machine_card() -> dict[str, Any]:
    return {"python": platform.python_version(), "cpu": cpu_model(), "cores": os.cpu_count(),
            "hostname": socket.gethostname(), "platform": platform.platform(), "executable": sys.executable}


def environment_card() -> dict[str, Any]:
    """Versions, CPU, GPUs and thread settings of this process (imports TensorFlow)."""
    import keras
    import tensorflow as tf

    gpus = tf.config.list_physical_devices("GPU")
    gpu_names = []
    for gpu in gpus:
        details = tf.config.experimental.get_device_details(gpu)
        gpu_names.append(details.get("device_name", gpu.name))
    card = _machine_card()
    return {
        "python": card["python"],
        "tensorflow": tf.__version__,
        "keras": keras.__version__,
        "cpu": card["cpu"],
        "cores": card["cores"],
        "gpus": gpu_names,
        "gpu": gpu_names[0] if gpu_names else None,
        "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
        # Set through the API, or read by TensorFlow from the environment when it started (0 = one per core).
        "intra_op_threads": tf.config.threading.get_intra_op_parallelism_threads()
        or int(os.environ.get("TF_NUM_INTRAOP_THREADS", 0)),
        "inter_op_threads": tf.config.threading.get_inter_op_parallelism_threads()
        or int(os.environ.get("TF_NUM_INTEROP_THREADS", 0)),
        "hostname": card["hostname"],
        "platform": card["platform"],
        "executable": card["executable"],
    }


def torch_card() -> dict[str, Any]:
    """The same card for a run in PyTorch: its version and threads; TensorFlow untouched."""
    import torch

    card = _machine_card()
    return {"python": card["python"], "torch": torch.__version__, "cpu": card["cpu"], "cores": card["cores"],
            "gpus": [], "torch_threads": torch.get_num_threads(),
            "torch_interop_threads": torch.get_num_interop_threads(), "hostname": card["hostname"],
            "platform": card["platform"], "executable": card["executable"]}


def card_for(framework: str) -> dict[str, Any]:
    """The environment card of a run that trains with ``framework`` (a workload declares it per config)."""
    if framework == "torch":
        return torch_card()
    if framework == "tensorflow":
        return environment_card()
    return _machine_card()
