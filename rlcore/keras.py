"""``model.fit(..., callbacks=[rlcore.keras.Callback(profile=50)])``: a Keras training as a run of the lab, its batches
steps with markers xprof can read (Keras 3's own TensorBoard profile has none), its logs charted per batch. Without
a run of your own (``rlcore.init``) the callback starts one when fit begins and ends it when fit returns."""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    if name == "Callback":  # the class imports Keras: only when asked for
        from rlcore.runs.own import keras_callback

        return keras_callback()
    raise AttributeError(f"module 'rlcore.keras' has no attribute {name!r}")
