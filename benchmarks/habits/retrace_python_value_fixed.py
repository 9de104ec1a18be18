# fixed-of: retrace_python_value.py
"""The learning rate passed as a tensor: one graph."""
import tensorflow as tf

w = tf.Variable(tf.zeros((16, 1)))
x, y = tf.random.normal((64, 16)), tf.random.normal((64, 1))


@tf.function
def train_step(x, y, lr):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((x @ w - y) ** 2)
    w.assign_sub(lr * tape.gradient(loss, w))
    return loss


for step in range(60):
    lr = tf.constant(0.1 * 0.99 ** step)
    loss = train_step(x, y, lr)
