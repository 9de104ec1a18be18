# habit: predict-bound
# where: q = model.predict(state, verbose=0)
# fix: model(
# fixed: predict_in_loop_fixed.py
"""An RL agent acting with model.predict on one state per step, training on a minibatch."""
import numpy as np
import tensorflow as tf
from tensorflow import keras

rng = np.random.default_rng(0)
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(32, activation="relu"), keras.layers.Dense(4)])
optimizer = keras.optimizers.Adam(1e-3)
batch_x = tf.constant(rng.random((32, 8)), tf.float32)
batch_y = tf.constant(rng.random((32, 4)), tf.float32)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((model(x, training=True) - y) ** 2)
    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
    return loss


for step in range(60):
    state = rng.random((1, 8)).astype("float32")
    q = model.predict(state, verbose=0)
    action = int(np.argmax(q))
    loss = train_step(batch_x, batch_y)
