# habit: retracing
# where: loss = train_step(x, y) | def train_step(x, y):
# fix: input_signature
# fixed: retrace_shapes_fixed.py
"""Batches of a new length every step (sequences not padded to one length): a new graph per shape."""
import numpy as np
import tensorflow as tf

w = tf.Variable(tf.zeros((8, 1)))
rng = np.random.default_rng(0)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((tf.reduce_mean(x, axis=1) @ w - y) ** 2)
    w.assign_sub(0.01 * tape.gradient(loss, w))
    return loss


for step in range(60):
    length = 5 + step  # each batch's sequences as long as they happen to be
    x = tf.constant(rng.random((16, length, 8)), tf.float32)
    y = tf.constant(rng.random((16, 1)), tf.float32)
    loss = train_step(x, y)
