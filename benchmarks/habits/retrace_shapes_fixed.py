# fixed-of: retrace_shapes.py
"""An input_signature with the length left open: one graph for every length."""
import numpy as np
import tensorflow as tf

w = tf.Variable(tf.zeros((8, 1)))
rng = np.random.default_rng(0)


@tf.function(input_signature=[tf.TensorSpec((None, None, 8), tf.float32), tf.TensorSpec((None, 1), tf.float32)])
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((tf.reduce_mean(x, axis=1) @ w - y) ** 2)
    w.assign_sub(0.01 * tape.gradient(loss, w))
    return loss


for step in range(60):
    length = 5 + step
    x = tf.constant(rng.random((16, length, 8)), tf.float32)
    y = tf.constant(rng.random((16, 1)), tf.float32)
    loss = train_step(x, y)
