# habit: input-bound
# where: .map(preprocess)
# fix: num_parallel_calls
# fixed: map_not_parallel_fixed.py
"""A deterministic preprocessing map in TensorFlow ops, heavy per element, run one element at a time every epoch and
not prefetched."""
import numpy as np
import tensorflow as tf
from tensorflow import keras

images = np.random.default_rng(0).random((512, 64, 64, 3)).astype("float32")


def preprocess(image):
    image = tf.image.resize(image, (48, 48))
    image = tf.image.per_image_standardization(image)
    for _ in range(3):
        image = tf.image.adjust_contrast(tf.image.adjust_brightness(image, 0.1), 1.1)
    return image, tf.reduce_mean(image, keepdims=True)[0]


dataset = (tf.data.Dataset.from_tensor_slices(images)
           .map(preprocess)
           .batch(64).repeat())
model = keras.Sequential([keras.Input((48, 48, 3)), keras.layers.Flatten(), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(dataset, steps_per_epoch=60, epochs=1, verbose=0)
