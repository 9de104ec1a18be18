"""The HJB's patterns for the benchmark lab: one training step of the seed's network (``hjb-step``) in eager, graph,
XLA and N steps per call, and the same step across frameworks (``framework-step``: TensorFlow, PyTorch, JAX), why
each is as fast as it is, and how to build one call.

Plain data at import; a builder imports its framework (PyTorch and JAX are the frameworks extra).
"""

from __future__ import annotations

from collections.abc import Callable

from rlcore.contract import frameworks
from rlcore.contract.suites import MissingFramework

STEP, FRAMEWORKS = "hjb-step", "framework-step"
PATTERNS: dict[str, tuple[str, ...]] = {
    STEP: ("eager", "graph", "xla", "graph-kN", "xla-kN"),  # kN: N steps per call, e.g. graph-k100
    # The HJB step across frameworks: TensorFlow, PyTorch (the frameworks extra), JAX (the same).
    FRAMEWORKS: ("tf-eager", "tf-function", "tf-xla", "tf-xla-kN", "torch-eager", "torch-compile", "jax-jit",
                 "jax-jit-kN"),
}
DEFAULTS: dict[str, dict[str, str]] = {
    STEP: {"patterns": "eager,graph,xla,graph-k100,xla-k100", "batch": "100", "width": "8"},
    FRAMEWORKS: {"patterns": "tf-eager,tf-function,tf-xla,tf-xla-k100,torch-eager,torch-compile,jax-jit,"
                             "jax-jit-k100", "batch": "1,100,10000", "width": "8"},
}
DESCRIPTIONS = {STEP: "one HJB training step", FRAMEWORKS: "the HJB step in TensorFlow, PyTorch and JAX"}
# Patterns that run N steps per call (graph-k100): the names they take, as a regular expression.
K_STEPS = {STEP: r"^(graph|xla)-k([1-9][0-9]{0,6})$", FRAMEWORKS: r"^(tf-xla|jax-jit)-k([1-9][0-9]{0,6})$"}
WHY = {
    (STEP, "eager"): (
        "One HJB training step eagerly: the nested tapes for V' and the loss gradient are recorded op by op in "
        "Python, every step."),
    (STEP, "graph"): (
        "One step per `tf.function` call with the loss fetched back to Python each time: the seed's loop. Each "
        "call pays the Python-to-graph round trip, which for a 3x8 network costs more than the maths."),
    (STEP, "xla"): (
        "One XLA-compiled step per call: the maths gets cheaper, the per-call round trip does not."),
    (STEP, "graph-k"): (
        "N steps inside one `tf.function` call (a `tf.range` loop): the Python round trip is paid once per N "
        "steps instead of every step."),
    (STEP, "xla-k"): (
        "N XLA-compiled steps per call: no per-call overhead and fused kernels, the fastest way to train a small "
        "network on a CPU."),
    (FRAMEWORKS, "tf-eager"): (
        "TensorFlow eagerly: every op of the step, its nested tapes and Adam's update dispatched from Python one "
        "by one (hundreds per step)."),
    (FRAMEWORKS, "tf-function"): (
        "TensorFlow's tf.function, one step per call and the loss fetched each time: the seed's loop; the call "
        "itself (argument binding, the executor) costs more than a 3x8 network's arithmetic."),
    (FRAMEWORKS, "tf-xla"): (
        "The same step compiled by XLA: fused kernels, but still one Python round trip per step."),
    (FRAMEWORKS, "tf-xla-k"): (
        "N XLA-compiled steps in one call (a tf.range loop): the round trip paid once per N steps."),
    (FRAMEWORKS, "torch-eager"): (
        "PyTorch eagerly: every op dispatched from Python as in TensorFlow's eager mode, but PyTorch's dispatcher "
        "is built for exactly that and costs a few microseconds per op."),
    (FRAMEWORKS, "torch-compile"): (
        "torch.compile (TorchDynamo + Inductor): the loss's Python captured into a graph and compiled to fused C++ "
        "(V' through torch.func, since compiled autograd cannot run a double backward); the optimizer step and the "
        "loss fetch stay outside it."),
    (FRAMEWORKS, "jax-jit"): (
        "JAX's jit: the whole step (loss, gradients, Adam) compiled by XLA, one dispatch per step."),
    (FRAMEWORKS, "jax-jit-k"): (
        "N jitted steps in one call (lax.fori_loop): XLA's fused step with the dispatch paid once per N steps, as "
        "TensorFlow's xla-kN."),
}
NEEDS = {"tf": None, "torch": "torch", "jax": "jax"}  # a framework-step pattern's prefix: the framework it needs

Call = Callable[[], object]


def build(suite: str, name: str, batch: int, width: int, seed: int, steps_per_call: int = 1) -> Call:
    """One call of a pattern: ``steps_per_call`` training steps of the seed's network."""
    from rlcore.workloads.hjb.config import HJBConfig

    if suite == STEP:
        from rlcore.workloads.hjb.solver import Solver

        solver = Solver(HJBConfig(batch_size=batch, width=width, exec_mode=name.split("-k")[0],
                                  steps_per_call=steps_per_call, seed=seed))
        return lambda: solver.run(steps_per_call)
    prefix = name.split("-")[0]
    needs = NEEDS[prefix]
    if needs and frameworks.version(needs) is None:
        raise MissingFramework(frameworks.missing_sentence(needs, f"The {name} pattern"))
    if prefix == "tf":
        style = {"tf-eager": "eager", "tf-function": "graph"}.get(name, "xla")
        return build(STEP, f"{style}-k{steps_per_call}" if steps_per_call > 1 else style, batch, width, seed,
                     steps_per_call)
    from rlcore.workloads.hjb import frameworks as other_frameworks

    cfg = HJBConfig(batch_size=batch, width=width, seed=seed)
    if prefix == "torch":
        return other_frameworks.torch_step(cfg, compiled=name == "torch-compile")
    return other_frameworks.jax_step(cfg, steps_per_call)
