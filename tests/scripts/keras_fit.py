"""model.fit on synthetic data, as a tutorial writes it: ``python keras_fit.py [EPOCHS] [--callback] [--tensorboard DIR]``.
``--callback`` adds the lab's callback by hand; ``--tensorboard DIR`` adds Keras's own TensorBoard(profile_batch=);
with both, one fit each."""

import sys
import time

import numpy as np
from tensorflow import keras

epochs = int(next((a for a in sys.argv[1:] if a.isdigit()), "2"))
rng = np.random.default_rng(0)
x = rng.random((2048, 20)).astype("float32")
y = (x.sum(axis=1) > 10).astype("int32")
model = keras.Sequential([keras.Input((20,)), keras.layers.Dense(32, activation="relu"),
                          keras.layers.Dense(2, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
fits = []  # each fit's callbacks: with both flags, one fit with the lab's callback, then one with Keras's own
if "--callback" in sys.argv:
    import rlcore.keras

    fits.append([rlcore.keras.Callback(profile=10, warmup=5)])
if "--tensorboard" in sys.argv:
    logdir = sys.argv[sys.argv.index("--tensorboard") + 1]
    fits.append([keras.callbacks.TensorBoard(log_dir=logdir, profile_batch=(5, 14))])
for callbacks in fits or [[]]:
    started = time.perf_counter()
    model.fit(x, y, batch_size=32, epochs=epochs, validation_split=0.1, verbose=0, callbacks=callbacks)
    print(f"fit done in {time.perf_counter() - started:.3f} s")
