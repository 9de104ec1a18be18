# habit: keras-overhead
# where: model.compile( | model.fit(
# fix: steps_per_execution
# fixed: small_batch_fit_fixed.py
"""model.fit at batch size 4 of a tiny model: Keras's work around each batch outweighs its arithmetic."""
import numpy as np
from tensorflow import keras

rng = np.random.default_rng(0)
x = rng.random((2000, 8)).astype("float32")
y = x.sum(axis=1, keepdims=True)
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(x, y, batch_size=4, epochs=1, verbose=0)
