# fixed-of: fit_per_batch.py
"""One fit over every batch."""
import numpy as np
from tensorflow import keras

rng = np.random.default_rng(0)
x = rng.random((1024, 16)).astype("float32")
y = x.sum(axis=1, keepdims=True)
model = keras.Sequential([keras.Input((16,)), keras.layers.Dense(32, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(x, y, batch_size=32, epochs=1, verbose=0)
