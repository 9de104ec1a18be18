# habit: healthy
"""A healthy Keras fit: a big enough model and batch, data from tensors with prefetch."""
import numpy as np
import tensorflow as tf
from tensorflow import keras

rng = np.random.default_rng(0)
x = rng.random((8192, 256)).astype("float32")
y = x.sum(axis=1, keepdims=True)
dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(256).prefetch(tf.data.AUTOTUNE)
model = keras.Sequential([keras.Input((256,)), keras.layers.Dense(512, activation="relu"),
                          keras.layers.Dense(512, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(dataset, epochs=1, verbose=0)
