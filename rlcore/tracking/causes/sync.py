"""A tensor fetched to Python every step (``.numpy()``, ``float()``, ``int()``, ``print``): each waits for the
work before it, and on a GPU copies to the host."""

from __future__ import annotations

from rlcore.contract.profile import Cause
from rlcore.contract.text import count_text, seconds_text
from rlcore.tracking.causes import GUIDES, Part, Rule, Step, register, where_of
from rlcore.tracking.hooks import LOGS, SYNC


def decide(step: Step) -> Part | None:
    fetches, seconds = step.span(SYNC)
    if not fetches or step.span(LOGS)[0]:  # inside model.fit, a batch's fetches are Keras's own (its rule's)
        return None
    return Part("fetching tensors to Python every step", seconds,
                f"{count_text(fetches, 'fetch', 'fetches')} per step (.numpy(), float(), int(), a list of "
                f"tensors made a tensor); {seconds_text(seconds / fetches)} each on this machine, and each one a wait "
                "on a GPU", where=where_of(step, SYNC, seconds))


register(Rule("sync", Cause.SYNC, decide, order=30, always_named=True, measures=(SYNC,),
              threshold="any fetch inside a step: on a GPU each one is a wait",
              fix="keep values as tensors and fetch them every N steps (.numpy(), float() and print wait for the work "
                  "before them, and on a GPU copy to the host)", guide=GUIDES["gpu"]))
