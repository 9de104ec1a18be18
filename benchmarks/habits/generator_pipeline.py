# habit: input-bound
# where: def samples(): | tf.data.Dataset.from_generator(
# fix: from_tensor_slices
# fixed: generator_pipeline_fixed.py
"""A Dataset.from_generator pipeline doing numpy work per element, trained with model.fit."""
import numpy as np
import tensorflow as tf
from tensorflow import keras

rng = np.random.default_rng(0)
features = rng.random((2048, 64)).astype("float32")


def samples():
    for i in range(len(features)):
        x = np.tanh(features[i] * 2.0) + np.sin(features[i])  # numpy work per element, in Python
        yield x, x.sum(keepdims=True)


dataset = tf.data.Dataset.from_generator(
    samples, output_signature=(tf.TensorSpec((64,), tf.float32), tf.TensorSpec((1,), tf.float32))).batch(32)
model = keras.Sequential([keras.Input((64,)), keras.layers.Dense(64, activation="relu"), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(dataset.repeat(), steps_per_epoch=60, epochs=1, verbose=0)
