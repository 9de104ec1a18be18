"""A tf.data pipeline whose map runs Python (tf.py_function), feeding a tf.function training step:
``python py_function_pipeline.py [STEPS] [--prefetch-parallel] [--tf-ops]``. ``--prefetch-parallel`` adds
prefetch and a parallel map (the usual advice: it cannot lift Python far); ``--tf-ops`` writes the map in
TensorFlow ops (the fix)."""

import sys
import time

import numpy as np
import tensorflow as tf

steps = int(next((a for a in sys.argv[1:] if a.isdigit()), "60"))
parallel = "--prefetch-parallel" in sys.argv
tf_ops = "--tf-ops" in sys.argv
images = np.random.default_rng(0).random((512, 32, 32)).astype("float32")


def augment(image):
    time.sleep(0.002)  # Python per element: a file read, a PIL call, numpy augmentation
    return np.flip(image.numpy(), axis=1)


def in_python(image):
    return tf.py_function(augment, [image], tf.float32)


def in_tensorflow(image):
    return tf.reverse(image, axis=[1])


dataset = tf.data.Dataset.from_tensor_slices(images).repeat()
dataset = dataset.map(in_tensorflow if tf_ops else in_python,
                      num_parallel_calls=tf.data.AUTOTUNE if parallel else None)
dataset = dataset.batch(8)
if parallel:
    dataset = dataset.prefetch(tf.data.AUTOTUNE)
w = tf.Variable(tf.zeros((32 * 32, 1)))
optimizer = tf.keras.optimizers.SGD(1e-3)


@tf.function
def train_step(batch):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((tf.reshape(batch, (-1, 32 * 32)) @ w) ** 2)
    optimizer.apply_gradients([(tape.gradient(loss, w), w)])
    return loss


for i, batch in enumerate(dataset):
    if i >= steps:
        break
    train_step(batch)
