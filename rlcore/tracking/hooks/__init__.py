"""How the lab sees a person's own TensorFlow code without the code changing.

Two kinds of hooks, each a small wrapper put on one method of TensorFlow or Keras and taken off again:

- **Instruments**, while a profile window records (any run, the lab's own styles included): user-level calls are put
  on TensorFlow's timeline as spans named ``rlcore:<what>`` (``model.predict``, a tensor indexed eagerly
  (``q[i]``), a tensor fetched to Python: its ``.numpy()``, ``float()``, ``int()``; Keras's per-batch log
  conversion and each callback), so the capture's reader
  can say how much of a step each one took, in the code's own words. A ``tf.function`` call keeps the signature of
  its arguments, so a retrace can be told apart: a Python number that took a new value, or a new shape.
- **Steps**, for code that does not say where its steps are (a script run by ``rlcore profile``): an optimizer
  update is a step (Keras 3's ``apply``/``apply_gradients`` called eagerly), and so is each call of a
  ``tf.function`` whose trace applied gradients (the seed's ``training_step``); ``model.fit`` gets the lab's
  callback. Steps run from one update (or call) to the next, so a step's time includes the Python around it.

Nothing here imports TensorFlow until a hook is installed, which happens in a run's own process.

The hooks live by job: ``patches`` (wrapping and the span names), ``instruments`` (spans, call sites, retraces),
``where`` (the person's frames) and ``steps`` (steps found by themselves, Ctrl-C deferred). What the rest of the lab
uses is named here.
"""

from rlcore.tracking.hooks.instruments import CallSite, Instruments, Retrace, Signature, signature, what_varied
from rlcore.tracking.hooks.patches import CALLBACK, CALLS, INDEX, LAUNCHES, LOGS, PREDICT, SPAN, SYNC, Patches
from rlcore.tracking.hooks.steps import AutoSteps, Cancelled, StepSource, interrupts_deferred
from rlcore.tracking.hooks.where import called_by_person, person_frame

__all__ = ["CALLBACK", "CALLS", "INDEX", "LAUNCHES", "LOGS", "PREDICT", "SPAN", "SYNC", "AutoSteps", "CallSite",
           "Cancelled", "Instruments", "Patches", "Retrace", "Signature", "StepSource", "called_by_person",
           "interrupts_deferred", "person_frame", "signature", "what_varied"]
