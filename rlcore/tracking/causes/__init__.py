"""The causes of a slow step, one rule per module: what a rule measures (its spans, op names, counts), how it decides
(its threshold, with the number it came from), what it saw, the change to make and the guide that explains it,
where in the person's code it happened, and whether its fix is already in effect.

A rule is found as a workload is (``contract.registry``): every module of this package registers one (or more),
and so does any installed package's module under the ``rlcore.causes`` entry point, or a module named in
``RLCORE_CAUSES``. Adding a cause is one file::

    from rlcore.tracking.causes import Rule, Part, Step, register

    def decide(step: Step) -> Part | None:
        calls, seconds = step.span("rlcore:predict")
        if not calls:
            return None
        return Part("model.predict in a loop", seconds, f"{calls:,.1f} calls per step")

    register(Rule("predict", "predict-bound", decide, order=10,
                  fix="call the model instead: model(x, training=False)", guide=GUIDES["predict"]))

The engine (``tracking.explain``) runs the rules in their order over one ``Step``; a rule that takes a part of the
step (``step.claim_eager``) takes it from the rules after it, so the shares stay disjoint.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rlcore.contract import settings
from rlcore.contract.profile import Cause, Finding, Where
from rlcore.contract.registry import Registry
from rlcore.tracking.facts import StepFacts

MIN_SHARE = 0.10  # of the step: less is not worth a change (xprof's 5% calls a 0.5 ms CPU step "input-bound")
MIN_SECONDS = 50e-6  # per step: a time a person can notice

GUIDES = {
    "predict": "Keras: Model.predict is not meant for loops; call the model (keras.io/api/models/model_training_apis)",
    "function": "TensorFlow guide: Better performance with tf.function (tensorflow.org/guide/function)",
    "retracing": "TensorFlow guide: tf.function, Controlling retracing (tensorflow.org/guide/function)",
    "gather": "TensorFlow API: tf.gather with batch_dims (tensorflow.org/api_docs/python/tf/gather)",
    "data": "TensorFlow guide: Better performance with the tf.data API (tensorflow.org/guide/data_performance)",
    "gpu": "TensorFlow guide: Optimize TensorFlow GPU performance, gaps between steps "
           "(tensorflow.org/guide/gpu_performance_analysis)",
    "steps_per_execution": "Keras: Model.compile(steps_per_execution=...) (keras.io/api/models/model_training_apis)",
    "compile": "TensorFlow guide: XLA, and the persistent compilation cache (tensorflow.org/xla)",
    "profiler": "TensorFlow guide: Optimize TensorFlow performance using the Profiler (tensorflow.org/guide/profiler)",
}


@dataclass(frozen=True)
class Part:
    """The part of the step a rule explains: the finding's title in the code's words, its seconds per training
    step, the evidence; a fix of its own where the rule's words need the numbers; a share of its own for a cost paid
    once per run."""

    title: str
    seconds: float
    evidence: str = ""
    fix: str = ""
    share: float | None = None
    where: tuple[Where, ...] = ()
    in_effect: str = ""  # the fix already made (then ``fix`` says what remains and what would help instead)
    try_fix: str | None = None  # None: the rule's own; "": none to try (its fix is in effect)


Seen = Part  # its name before (plug-in rules written then import it so)

Decide = Callable[["Step"], "Part | Iterable[Part] | None"]


@dataclass(frozen=True)
class Fix:
    """A fix the lab can try on a person's code without an edit (``rlcore profile --try-fixes``), declared beside
    the rule that advises it: its name (``--fix NAME``), the change in words, and ``apply``, which puts its patches
    on TensorFlow or Keras (``hooks.Patches``) before the script runs, importing them only then."""

    name: str
    change: str
    apply: Callable[[Any], None]


@dataclass(frozen=True)
class Rule:
    """One cause. ``decide`` reads the step and says what it saw (None: not this cause); ``order``: rules that take
    a part of the step run before those that read what is left; ``always_named``: named whatever it costs (a cheap
    model.predict on this CPU is not cheap on a GPU); ``measures``: what it reads, for people and the README."""

    name: str
    cause: Cause | str
    decide: Decide
    order: int = 50
    fix: str = ""
    guide: str = ""
    always_named: bool = False
    measures: tuple[str, ...] = ()
    threshold: str = ""  # its threshold, with the number it came from
    try_fix: Fix | None = None  # the fix the lab can apply without an edit, declared here beside the rule


RULES: Registry[Rule] = Registry("cause", group="rlcore.causes", env=settings.CAUSES.name,
                                 builtin_package="rlcore.tracking.causes", order=lambda r: (r.order, r.name))


def register(rule: Rule) -> Rule:
    return RULES.register(rule.name, rule)


def rules() -> list[Rule]:
    """Every rule, in the order the engine runs them."""
    return RULES.parts()


def fixes() -> dict[str, Fix]:
    """Every fix the lab can try, by name: those the rules declare (a plug-in's rule brings its own)."""
    return {r.try_fix.name: r.try_fix for r in RULES.loaded() if r.try_fix is not None}


def apply_fix(name: str) -> Any:
    """Put a fix's patches on (``remove()`` on what it returns takes them off)."""
    from rlcore.tracking.hooks import Patches

    patches = Patches()
    fixes()[name].apply(patches)
    return patches


def function_option(patches: Any, option: str) -> None:
    """Every tf.function the script itself defines from now on (not a library's: Keras's own loop over batches
    does not compile with XLA) with ``option`` on; with jit_compile, Keras's compiled training step too."""
    import contextlib

    import tensorflow as tf

    from rlcore.tracking.hooks import called_by_person

    def make(original: Callable) -> Callable:
        def function(func: Any = None, *args: Any, **kwargs: Any) -> Any:
            if called_by_person():
                kwargs.setdefault(option, True)
            return original(func, *args, **kwargs)
        return function

    patches.wrap(tf, "function", make)
    if option == "jit_compile":
        with contextlib.suppress(ImportError):
            compile_option(patches, "jit_compile", lambda _: True)


def compile_option(patches: Any, option: str, value: Callable[[Any], Any]) -> None:
    """Every Keras model the script compiles with ``option`` set to ``value(what the script passed)``."""
    import keras

    def make(original: Callable) -> Callable:
        def compile(model: Any, *args: Any, **kwargs: Any) -> Any:
            kwargs[option] = value(kwargs.get(option))
            return original(model, *args, **kwargs)
        return compile

    patches.wrap(keras.Model, "compile", make)


@dataclass
class Step:
    """One training step as the rules read it (K steps per call divided out): the reading's numbers per step, what
    the run knows beside them (``facts``: Keras's steps_per_execution and jit_compile, the retraces' notes, compile
    and training seconds, the run's steps), the person's lines behind each span, and what the rules before took."""

    numbers: Any  # xplane.StepNumbers
    k: int = 1
    facts: StepFacts = field(default_factory=StepFacts)
    calls: Mapping[str, list[Any]] = field(default_factory=dict)  # span -> hooks.CallSite, most called first
    found: list[Finding] = field(default_factory=list)  # named so far, in the rules' order
    # A rule took all the work around the arithmetic (Keras's set-up of a call per batch): the rules that read
    # that work in parts (Keras's logs, dispatch, launches, Python) leave it to it.
    overhead_taken: bool = False
    _claimed: set[str] = field(default_factory=set)

    @property
    def seconds(self) -> float:
        return self.numbers.step_seconds / self.k

    @property
    def quiet_seconds(self) -> float:
        """The step as its quickest step took it: what a busy machine stretches least (a
        process waiting for a core is in no op's time, so it lands in no part of the step)."""
        quiet = getattr(self.numbers, "quiet_step_seconds", 0.0) / self.k
        return min(quiet, self.seconds) if quiet > 0 else self.seconds

    def per(self, value: float) -> float:
        """A per-marker number per training step."""
        return value / self.k

    def span(self, name: str) -> tuple[float, float]:
        """A span's (calls, seconds) per step; (0, 0) when it was not seen."""
        count, seconds = self.numbers.spans.get(name, (0.0, 0.0))[:2]
        return count / self.k, seconds / self.k

    def spans(self, prefix: str = "") -> dict[str, tuple[float, float]]:
        return {name: self.span(name) for name in self.numbers.spans if name.startswith(prefix)}

    def eager(self, op_type: str) -> tuple[float, float, float]:
        """An eager op type's (count, launch seconds, kernel seconds) per step, outside every span."""
        values = (*tuple(self.numbers.eager_by_type.get(op_type, ())), 0.0, 0.0, 0.0)
        return values[0] / self.k, values[1] / self.k, values[2] / self.k

    def claim_eager(self, op_types: Iterable[str]) -> None:
        """A rule takes these eager ops as part of its cause: the rules after it no longer see them."""
        self._claimed.update(op_types)

    @property
    def claimed_kernel_seconds(self) -> float:
        """The kernels' seconds per step of the eager ops rules have taken: part of their causes, not arithmetic."""
        return sum(self.eager(op)[2] for op in self._claimed)

    def eager_unclaimed(self) -> list[tuple[str, float, float, float]]:
        """(op type, count, launch seconds, kernel seconds) per step of the eager ops no rule has taken."""
        return [(op, *self.eager(op)) for op in self.numbers.eager_by_type if op not in self._claimed]

    @property
    def functions_seconds(self) -> float:
        return sum(v[1] for v in self.numbers.functions.values()) / self.k

    @property
    def outside_seconds(self) -> float:
        """What no span, function call, input wait, conversion or claimed op holds: eager launches and Python (not
        the part of it that waited for the GIL tf.data's Python held: the input pipeline's)."""
        claimed = sum(self.eager(op)[1] for op in self._claimed)
        held = self.per(getattr(self.numbers, "input_held_outside_seconds", 0.0))
        return max(0.0, self.seconds - sum(s for _, s in self.spans().values()) - self.functions_seconds
                   - self.per(self.numbers.input_seconds) - self.per(self.numbers.conversion_seconds) - claimed
                   - held)

    def python_seconds(self) -> float | None:
        """The Python between TensorFlow's calls: what lies outside them less the eager ops' launches; None when
        many eager ops run (then that time is their launching and the Python between them: the launch cause's)."""
        from rlcore.tracking.causes.launch import LAUNCHED

        eager = self.eager_unclaimed()
        if sum(c for _, c, _, _ in eager) >= LAUNCHED:
            return None
        return max(0.0, self.outside_seconds - sum(s for _, _, s, _ in eager))

    def sites(self, span: str) -> list[Any]:
        return list(self.calls.get(span, []))


def where_of(step: Step, span: str, seconds: float, most: int = 5) -> tuple[Where, ...]:
    """The person's lines behind a span (counted in the steps after the capture), each with its calls per step and
    its part of the span's seconds (shared by calls)."""
    sites = step.sites(span)
    steps = step.facts.where_steps
    if not sites or not steps:
        return ()
    total = sum(s.calls for s in sites) or 1
    from rlcore.tracking.kernel import line_in_cell

    return tuple(Where(shown_path(s.file, s.line, s.code), line_in_cell(s.file, s.line), s.code,
                       s.calls / steps / step.k, seconds * s.calls / total,
                       s.function) for s in sites[:most])


def line_at(file: str, line: int, function: str = "", calls: float = 0.0, seconds: float = 0.0) -> Where:
    """One line of the person's code, with its source text."""
    import linecache

    from rlcore.tracking.kernel import line_in_cell

    code = linecache.getline(file, line).strip()
    return Where(shown_path(file, line, code), line_in_cell(file, line), code, calls, seconds, function)


def shown_path(file: str, line: int = 0, code: str = "") -> str:
    """A file as the person named it: a notebook's cell as "In [5]" (``tracking.kernel``); else relative to the
    folder the code ran in when it lies inside it."""
    import os

    from rlcore.tracking import kernel

    cell = kernel.cell_of(file, line, code) if kernel.ipython() is not None else None
    if cell:
        return cell

    try:
        relative = os.path.relpath(file)
    except ValueError:
        return file
    return relative if not relative.startswith("..") else file
