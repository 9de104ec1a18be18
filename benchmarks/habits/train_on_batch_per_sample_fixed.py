# fixed-of: train_on_batch_per_sample.py
"""The replay sampled as minibatches: one train_on_batch per 32 transitions, the same transitions per call of the
compiled step."""
import numpy as np
import tensorflow as tf
from tensorflow import keras

rng = np.random.default_rng(0)
states = rng.random((12800, 8)).astype("float32")
targets = rng.random((12800, 4)).astype("float32")
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(32, activation="relu"), keras.layers.Dense(4)])
model.compile(optimizer="adam", loss="mse")
model.fit(tf.data.Dataset.from_tensor_slices((states, targets)).batch(32), epochs=1, verbose=0)
