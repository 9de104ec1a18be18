"""``model.fit(..., callbacks=[rlcore.keras.Callback(profile=50)])``: a Keras training as a run of the lab, its batches
steps with markers xprof can read (Keras 3's own TensorBoard profile has none), its logs charted per batch. Without
a run of your own (``rlcore.init``) the callback starts one when fit begins and ends it when fit returns."""

from __future__ import annotations

from rlcore.workloads.script.keras_callback import LabCallback


class Callback(LabCallback):
    """``profile``: batches to record with TensorFlow's profiler after ``warmup`` batches; ``name``: the run's name
    (default: the model's)."""

    def __init__(self, profile: int = 0, warmup: int = 5, name: str = "") -> None:
        from rlcore.runs.own import init

        super().__init__(profile, warmup, name, start=init)
