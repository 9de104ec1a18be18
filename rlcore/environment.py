"""The environment card: what a throughput number was measured on."""

from __future__ import annotations

import os
import platform
import socket
import sys
from typing import Any


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def environment_card() -> dict[str, Any]:
    """Versions, CPU, GPUs and thread settings of this process (imports TensorFlow)."""
    import keras
    import tensorflow as tf

    gpus = tf.config.list_physical_devices("GPU")
    gpu_names = []
    for gpu in gpus:
        details = tf.config.experimental.get_device_details(gpu)
        gpu_names.append(details.get("device_name", gpu.name))
    return {
        "python": platform.python_version(),
        "tensorflow": tf.__version__,
        "keras": keras.__version__,
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "gpus": gpu_names,
        "gpu": gpu_names[0] if gpu_names else None,
        "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
        # Set through the API, or read by TensorFlow from the environment when it started (0 = one per core).
        "intra_op_threads": tf.config.threading.get_intra_op_parallelism_threads()
        or int(os.environ.get("TF_NUM_INTRAOP_THREADS", 0)),
        "inter_op_threads": tf.config.threading.get_inter_op_parallelism_threads()
        or int(os.environ.get("TF_NUM_INTEROP_THREADS", 0)),
        "hostname": socket.gethostname(),
        "platform": platform.platform(),
        "executable": sys.executable,
    }


def torch_card() -> dict[str, Any]:
    """The same card for a run in PyTorch (the book's original): its version and threads; TensorFlow untouched."""
    import torch

    return {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "gpus": [],
        "torch_threads": torch.get_num_threads(),
        "torch_interop_threads": torch.get_num_interop_threads(),
        "hostname": socket.gethostname(),
        "platform": platform.platform(),
        "executable": sys.executable,
    }


def card_for(config: Any) -> dict[str, Any]:
    """The environment card of the framework a run's config trains with."""
    return torch_card() if getattr(config, "exec_mode", None) == "pytorch" else environment_card()
