"""A workload of a few lines, as a plug-in would ship it: one package, declared as an entry point in the
``rlcore.workloads`` group of its distribution's metadata (tests/plugins/__init__.py installs that metadata for a
test). It trains through the lab's harness like the built-in workloads, so it gets their bookkeeping for free: the
clock, cancel, the machine's sampler, the summary. Nothing else in the lab names it."""

from dataclasses import dataclass

from rlcore.contract import reporting, workloads
from rlcore.contract.params import param
from rlcore.tracking.run import TrainingRun


@dataclass(frozen=True)
class ToyConfig:
    steps: int = param(4, "Records to report.", lo=1, hi=100)
    rate: float = param(0.5, "How fast the loss falls.", lo=0.0, hi=0.99)


def train_toy(cfg: ToyConfig, reporter: reporting.Reporter) -> workloads.Outcome:
    run = TrainingRun(reporter, kind="toy", total=cfg.steps, progress=lambda run: i / cfg.steps)
    run.start(None)
    for i in range(1, cfg.steps + 1):
        run.emit({reporting.LOSS: (1 - cfg.rate) ** i, "toy/score": i / cfg.steps}, step=i)
    summary = run.finish({"score": 1 - (1 - cfg.rate) ** cfg.steps, "steps": cfg.steps,
                          "train_seconds": cfg.steps / 100})
    return workloads.Outcome(summary, {"toy.txt": b"made by the toy"})


workloads.register(workloads.Workload(
    kind="toy", title="Toy", description="A workload of a few lines.", config=ToyConfig, train=train_toy,
    judge=lambda cfg, s: workloads.Verdict("ok", "converged", f"Converged: score {s['score']:.2f}."),
    headlines=(workloads.Headline("score", "score", "%"),),
    charts=(workloads.Chart(reporting.LOSS, "toy loss", log_y=True), workloads.Chart("toy/score", "toy score")),
    artifacts=(workloads.Artifact("toy.txt", "data"),)))
