"""A tf.function training step that calls back into Python (tf.py_function) for a part of its work, a habit no rule
of the lab names: ``python python_inside_step.py [STEPS]``. Its time is Python run as an op, not arithmetic."""

import sys
import time

import numpy as np
import tensorflow as tf

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 40
w = tf.Variable(tf.zeros((16, 1)))
x, y = tf.random.normal((64, 16)), tf.random.normal((64, 1))


def noisy(values):
    time.sleep(0.003)  # a lookup in a Python table, a call to a simulator
    return values.numpy() + np.float32(0.01)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((x @ w - y) ** 2)
    w.assign_sub(0.01 * tape.gradient(loss, w))
    looked_up = tf.py_function(noisy, [loss], tf.float32)
    return loss + 0.0 * looked_up


for _ in range(steps):
    loss = train_step(x, y)
print(f"last loss {float(loss):.3f}")
