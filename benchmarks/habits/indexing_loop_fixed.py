# fixed-of: indexing_loop.py
"""The chosen Q-values taken in one op (tf.gather with batch_dims), the step a tf.function."""
import numpy as np
import tensorflow as tf
from tensorflow import keras

rng = np.random.default_rng(0)
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(32, activation="relu"), keras.layers.Dense(4)])
optimizer = keras.optimizers.Adam(1e-3)


@tf.function
def train_step(states, actions, targets):
    with tf.GradientTape() as tape:
        chosen = tf.gather(model(states), actions, batch_dims=1)
        loss = tf.reduce_mean((chosen - targets) ** 2)
    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
    return loss


for step in range(60):
    states = tf.constant(rng.random((32, 8)), tf.float32)
    actions = tf.constant(rng.integers(0, 4, 32))
    targets = tf.constant(rng.random(32), tf.float32)
    loss = train_step(states, actions, targets)
