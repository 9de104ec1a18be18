# fixed-of: loss_fetched_every_step.py
"""The loss fetched every 100 steps."""
import tensorflow as tf

w = tf.Variable(tf.zeros((256, 256)))
x = tf.random.normal((256, 256))


@tf.function
def train_step():
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((x @ w - x) ** 2)
    w.assign_sub(0.01 * tape.gradient(loss, w))
    return loss


history = []
for step in range(300):
    loss = train_step()
    if step % 100 == 0:
        history.append(loss.numpy())
