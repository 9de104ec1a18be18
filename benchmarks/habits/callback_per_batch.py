# habit: callback-bound
# where: def on_train_batch_end(self, batch, logs=None):
# fix: every N batches
# fixed: callback_per_batch_fixed.py
"""A callback doing work every batch: it evaluates a held-out set after each batch."""
import numpy as np
from tensorflow import keras

rng = np.random.default_rng(0)
x = rng.random((4096, 32)).astype("float32")
y = x.sum(axis=1, keepdims=True)
held_out = rng.random((2048, 32)).astype("float32")


class HeldOutLoss(keras.callbacks.Callback):
    def on_train_batch_end(self, batch, logs=None):
        predictions = self.model(held_out, training=False).numpy()
        self.loss = float(np.mean((predictions - held_out.sum(axis=1, keepdims=True)) ** 2))


model = keras.Sequential([keras.Input((32,)), keras.layers.Dense(64, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(x, y, batch_size=64, epochs=1, verbose=0, callbacks=[HeldOutLoss()])
