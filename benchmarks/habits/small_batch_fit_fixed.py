# fixed-of: small_batch_fit.py
"""The same batches, 32 per call (steps_per_execution)."""
import numpy as np
from tensorflow import keras

rng = np.random.default_rng(0)
x = rng.random((8000, 8)).astype("float32")
y = x.sum(axis=1, keepdims=True)
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse", steps_per_execution=32)
model.fit(x, y, batch_size=4, epochs=1, verbose=0)
