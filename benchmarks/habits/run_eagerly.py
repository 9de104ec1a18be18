# habit: launch-bound
# where: model.compile(
# fix: run_eagerly
# fixed: run_eagerly_fixed.py
"""model.compile(..., run_eagerly=True): Keras runs every op of every batch one by one."""
import numpy as np
from tensorflow import keras

rng = np.random.default_rng(0)
x = rng.random((4096, 32)).astype("float32")
y = x.sum(axis=1, keepdims=True)
model = keras.Sequential([keras.Input((32,)), keras.layers.Dense(64, activation="relu"),
                          keras.layers.Dense(64, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse", run_eagerly=True)
model.fit(x, y, batch_size=64, epochs=1, verbose=0)
