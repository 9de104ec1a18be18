# habit: call-setup-bound
# where: model.fit(x[i:i + 32], y[i:i + 32], verbose=0)
# fix: once
# fixed: fit_per_batch_fixed.py
"""model.fit called once per batch, as many RL tutorials do: each call sets up its data adapter, callbacks, logs."""
import numpy as np
from tensorflow import keras

rng = np.random.default_rng(0)
x = rng.random((1024, 16)).astype("float32")
y = x.sum(axis=1, keepdims=True)
model = keras.Sequential([keras.Input((16,)), keras.layers.Dense(32, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
for i in range(0, len(x), 32):
    model.fit(x[i:i + 32], y[i:i + 32], verbose=0)
