"""model.fit with Keras's own TensorBoard callback profiling batches 5 to 15 into ./logs (no lab inside):
``python keras_tensorboard_profile.py LOGDIR``."""

import sys

import numpy as np
from tensorflow import keras

x = np.random.default_rng(0).random((2048, 16)).astype("float32")
model = keras.Sequential([keras.Input((16,)), keras.layers.Dense(32, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(x, x.sum(axis=1), batch_size=32, epochs=1, verbose=0,
          callbacks=[keras.callbacks.TensorBoard(log_dir=sys.argv[1], profile_batch=(5, 15))])
