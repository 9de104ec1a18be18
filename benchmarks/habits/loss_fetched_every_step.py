# habit: compute-bound
# names: sync-bound
# where: history.append(loss.numpy())
# fix: every
# fixed: loss_fetched_every_step_fixed.py
"""The loss fetched to Python every step. On a CPU a function's result is ready when the call returns, so the fetch
costs little and the arithmetic leads; the fetch is still named (on a GPU each one is a wait)."""
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
    history.append(loss.numpy())
