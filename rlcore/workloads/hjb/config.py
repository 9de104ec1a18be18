"""The HJB solver's settings (defaults are the seed's values) and its presets."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rlcore.contract import params
from rlcore.contract.params import DEVICE_HELP, DEVICES, ConfigError, check_fields, param, profile_param
from rlcore.contract.text import number_text
from rlcore.tracking.machine import TF_RUNS

# The seed's network is small: TensorFlow's thread pools cost more than they share out (as for the book's DQN).
THREADS_HELP = (f"{params.THREADS_HELP} This small network runs fastest and steadiest on one, which leaves the other "
                "cores to the rest of the machine (a dashboard watching it included).")

HJB_EXEC_MODES = TF_RUNS  # eager, graph, xla: the style is how TensorFlow runs the step
COMPILED_STYLES = ("graph", "xla")
DERIVATIVES = ("tape", "tangent")
LR_SCHEDULES = ("constant", "exponential", "cosine")
DTYPES = ("float32", "float64")
SAMPLINGS = ("uniform", "mixed")
INITS = ("flat", "guess")


@dataclass(frozen=True)
class HJBConfig:
    """The seed's network solver of the growth model's HJB; defaults are the seed's values."""

    # Model
    gamma: float = param(2.0, "Curvature of utility (gamma).", lo=0.05, hi=20.0)
    rho: float = param(0.04, "Discount rate.", lo=1e-4, hi=1.0)
    A: float = param(0.5, "Total factor productivity.", lo=1e-3, hi=100.0)
    alpha: float = param(0.36, "Capital share (returns to scale).", lo=0.01, hi=0.99)
    delta: float = param(0.05, "Depreciation rate.", lo=0.0, hi=1.0)
    k_min: float = param(0.1, "Lower end of the capital interval.")
    k_max: float = param(10.0, "Upper end of the capital interval.")
    # Network and training
    batch_size: int = param(100, "Points of k sampled per step.", lo=1, hi=10_000_000, flag="batch")
    depth: int = param(3, "Hidden layers.", lo=1, hi=32)
    width: int = param(8, "Units per hidden layer (tanh).", lo=1, hi=4096)
    output_bias: float = param(-60.0, "Initial bias of the output (the initial guess of V).", advanced=True)
    init: str = param("flat", "How the network starts: flat (the seed's: V = the output bias everywhere, which first "
                      "drifts toward the residual's spurious V ≈ 0) or guess (first fitted to Moll's guess "
                      "u(A k^alpha)/rho, increasing and concave, so V' > 0 from the start).", choices=INITS)
    learning_rate: float = param(1e-3, "Adam learning rate (the start value when it decays).", lo=1e-9, hi=1.0,
                                 flag="lr")
    lr_schedule: str = param("constant", "Learning-rate schedule over the steps: constant, exponential or cosine.",
                             choices=LR_SCHEDULES)
    lr_final: float = param(1e-5, "Learning rate at the last step when it decays.", lo=1e-12, hi=1.0)
    sampling: str = param("uniform", "How k is drawn: uniform on the interval, or mixed (half uniform, half "
                          "log-uniform, denser near k_min where V' is steepest).", choices=SAMPLINGS)
    vprime_floor: float = param(1e-7, "V' is clamped at this floor before c = V'^(-1/gamma).", lo=1e-30, hi=1.0,
                                advanced=True)
    dtype: str = param("float32", "Floating-point type of the network and the batch.", choices=DTYPES)
    steps: int = param(100_000, "Gradient steps.", lo=1, hi=1_000_000_000)
    polish_iters: int = param(0, "L-BFGS iterations after Adam, on a fixed grid of k with the full gradient "
                              "(0 = none).", lo=0, hi=1_000_000)
    polish_points: int = param(2000, "Grid points of k for the L-BFGS polish.", lo=2, hi=1_000_000, advanced=True)
    # Execution
    exec_mode: str = param("graph", "Execution style: eager, graph or xla.", choices=HJB_EXEC_MODES, flag="exec",
                           style=True)
    steps_per_call: int = param(1, "Steps run inside one compiled call (a tf.range loop); the loss is fetched "
                                "once per call. 1 = the seed's pattern.", lo=1, hi=1_000_000)
    derivative: str = param("tape", "How V' is computed: tape (a nested GradientTape, the seed's tf.gradients) "
                            "or tangent (carried forward through the layers, half the work).", choices=DERIVATIVES)
    device: str = param("cpu", DEVICE_HELP, choices=DEVICES)
    threads: int = param(1, THREADS_HELP, lo=0, hi=1024, advanced=True)
    seed: int = param(1234, "Seed of the weights and the sampled k.", lo=0, hi=2**31 - 1)
    profile: int = profile_param("HJB: gradient steps (whole calls).")
    # Accuracy reports
    eval_every: int = param(5000, "Measure the error against the exact solution every this many steps "
                            "(0 = only at the end).", lo=0, hi=1_000_000_000, advanced=True)
    eval_points: int = param(200, "Grid points of k for the error.", lo=2, hi=1_000_000, advanced=True)

    def __post_init__(self) -> None:
        check_fields(self)
        if self.gamma == 1.0:
            raise ConfigError("gamma must not be 1: that is log utility, which u(c) = c^(1-gamma)/(1-gamma) "
                              "does not cover.", "gamma")
        if self.k_min <= 0:
            raise ConfigError(f"k_min must be positive, not {number_text(self.k_min)}.", "k_min")
        if self.k_min >= self.k_max:
            raise ConfigError(f"k_min must be below k_max ({number_text(self.k_min)} >= {number_text(self.k_max)}).",
                              "k_min")
        if self.exec_mode not in COMPILED_STYLES and self.steps_per_call > 1:
            raise ConfigError("steps_per_call above 1 needs a compiled style (graph or xla): eager runs one "
                              "Python step at a time.", "steps_per_call")
        if self.lr_schedule != "constant" and self.lr_final > self.learning_rate:
            raise ConfigError(f"lr_final must not exceed lr when the rate decays ({number_text(self.lr_final)} > "
                              f"{number_text(self.learning_rate)}).", "lr_final")
        after_first = self.steps - min(self.steps_per_call, self.steps)
        if self.profile > after_first:
            raise ConfigError(f"profile must not exceed the steps after the first call, which traces and "
                              f"compiles ({self.profile:,} > {after_first:,}).", "profile")


# Named starting points; explicit values override them.
HJB_PRESETS: dict[str, dict[str, Any]] = {
    "seed": {},
    # Measured on 2 cores: max rel err V 0.001%, c 0.013% in about 64 s (another machine's rounding gives 0.002% and
    # 0.028% in 29 s: docs/performance.md), under the seed's 100k steps
    # (about 80 s). Larger batch and a decaying rate stop Adam's wandering; float64 and the L-BFGS polish
    # take it the last order of magnitude; the compiled K-step tangent style pays for it all. Starting from a
    # fitted guess keeps fewer steps (a faster decay) out of the residual's spurious V ≈ 0 branch.
    "accurate": {
        "batch_size": 1000, "lr_schedule": "cosine", "learning_rate": 1e-3, "lr_final": 1e-5, "steps": 120_000,
        "dtype": "float64", "exec_mode": "xla", "derivative": "tangent", "steps_per_call": 1000,
        "polish_iters": 1000, "eval_every": 20_000, "init": "guess",
    },
}


# The GPU question as seed 2 asked it: its own tqdm lines over the seed's 100,000 steps ("没有 GPU ... 1101.79it/s",
# "使用 GPU ... 461.47it/s"): the same script, 2.4x slower on the GPU.
SEED_CPU_STEPS_PER_SECOND = 1101.79
SEED_GPU_STEPS_PER_SECOND = 461.47
# Home's one click: the seed's set-up (its preset) for long enough to profile it after warm-up, a few seconds.
GPU_QUESTION = {"steps": 3000, "profile": 20, "eval_every": 3000}

