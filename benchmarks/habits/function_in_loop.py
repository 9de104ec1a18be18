# habit: retracing
# where: step_fn = tf.function(train_step)
# fix: once
# fixed: function_in_loop_fixed.py
"""A tf.function made inside the training loop: traced again at every step."""
import tensorflow as tf

w = tf.Variable(tf.zeros((16, 1)))
x, y = tf.random.normal((64, 16)), tf.random.normal((64, 1))


def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((x @ w - y) ** 2)
    w.assign_sub(0.01 * tape.gradient(loss, w))
    return loss


for step in range(30):
    step_fn = tf.function(train_step)
    loss = step_fn(x, y)
