"""A tensor indexed in a Python loop (``[q[i][a[i]] for i in ...]``): each ``tensor[i]`` a StridedSlice launched
from Python with its constants, then the list made one tensor (Pack) and the slices' gradients."""

from __future__ import annotations

from rlcore.contract.profile import Cause
from rlcore.contract.text import seconds_text
from rlcore.tracking.causes import GUIDES, Part, Rule, Step, register, where_of
from rlcore.tracking.hooks import INDEX

INDEXED = 8  # tensor[i] per step from which it is a loop (a few slices are ordinary code)
FOLLOWERS = ("Pack", "StridedSliceGrad", "Unpack")  # the ops a Python list of indexed values brings after it


def decide(step: Step) -> Part | None:
    indexed, seconds = step.span(INDEX)
    if indexed < INDEXED:
        return None
    followers = [(op, *step.eager(op)) for op in FOLLOWERS if op in step.numbers.eager_by_type]
    step.claim_eager(op for op, *_ in followers)
    also = ", ".join(f"{c:,.0f} {op}" for op, c, _, _ in sorted(followers, key=lambda x: -x[1]))
    return Part("indexing a tensor in a Python loop", seconds + sum(s for _, _, s, _ in followers),
                f"{indexed:,.0f} tensor[i] per step, each a StridedSlice and its constants launched from Python "
                f"({seconds_text(seconds / indexed)} each)" + (f"; then {also}" if also else ""),
                where=where_of(step, INDEX, seconds))


register(Rule("indexing", Cause.INDEXING, decide, order=20, measures=(INDEX, *FOLLOWERS),
              threshold=f"{INDEXED} or more tensor[i] run eagerly per step",
              fix="take the values in one op: tf.gather(q, actions, batch_dims=1) instead of [q[i][a[i]] for i in ...]",
              guide=GUIDES["gather"]))
