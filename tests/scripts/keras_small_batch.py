"""model.fit at a small batch, where Keras's own work around every batch outweighs the batch's arithmetic:
``python keras_small_batch.py [EPOCHS] [--spe N]``; ``--spe N`` compiles with steps_per_execution=N."""

import sys

import numpy as np
from tensorflow import keras

epochs = int(next((a for a in sys.argv[1:] if a.isdigit()), "1"))
spe = int(sys.argv[sys.argv.index("--spe") + 1]) if "--spe" in sys.argv else 1
rng = np.random.default_rng(0)
x = rng.random((4000, 8)).astype("float32")
y = x.sum(axis=1, keepdims=True)
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse", steps_per_execution=spe)
model.fit(x, y, batch_size=8, epochs=epochs, verbose=0)
