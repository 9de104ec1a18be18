# habit: call-setup-bound
# where: model.train_on_batch(
# fix: batch
# fixed: train_on_batch_per_sample_fixed.py
"""An RL tutorial's replay: train_on_batch on one transition at a time."""
import numpy as np
from tensorflow import keras

rng = np.random.default_rng(0)
states = rng.random((400, 8)).astype("float32")
targets = rng.random((400, 4)).astype("float32")
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(32, activation="relu"), keras.layers.Dense(4)])
model.compile(optimizer="adam", loss="mse")
for i in range(len(states)):
    model.train_on_batch(states[i:i + 1], targets[i:i + 1])
