# fixed-of: function_in_loop.py
"""The tf.function made once, before the loop."""
import tensorflow as tf

w = tf.Variable(tf.zeros((16, 1)))
x, y = tf.random.normal((64, 16)), tf.random.normal((64, 1))


def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((x @ w - y) ** 2)
    w.assign_sub(0.01 * tape.gradient(loss, w))
    return loss


step_fn = tf.function(train_step)
for step in range(30):
    loss = step_fn(x, y)
