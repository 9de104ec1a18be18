"""A training loop captured with tf.profiler.experimental.start/stop around 30 steps, no step markers at all:
``python profiler_no_markers.py LOGDIR``."""

import sys

import tensorflow as tf

w = tf.Variable(tf.zeros((64, 1)))
x, y = tf.random.normal((256, 64)), tf.random.normal((256, 1))
optimizer = tf.keras.optimizers.SGD(0.01)


@tf.function
def train_step():
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((x @ w - y) ** 2)
    optimizer.apply_gradients([(tape.gradient(loss, w), w)])
    return loss


for _ in range(5):
    train_step()
tf.profiler.experimental.start(sys.argv[1])
for _ in range(30):
    train_step()
tf.profiler.experimental.stop()
