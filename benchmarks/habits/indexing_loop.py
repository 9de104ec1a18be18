# habit: launch-bound
# names: indexing
# where: chosen = tf.stack([q[i][actions[i]] for i in range(len(actions))])
# fix: tf.gather
# fixed: indexing_loop_fixed.py
"""A DQN's chosen Q-values picked one by one in a Python list (each q[i][a] a slice launched from Python), in an
eager step. Measured by hand (200 steps, two pairs): tf.gather alone, still eager, 4.2 s -> 2.5 s (41% of the step);
the rest is the eager step's launches, which lead: both are named."""
import numpy as np
import tensorflow as tf
from tensorflow import keras

rng = np.random.default_rng(0)
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(32, activation="relu"), keras.layers.Dense(4)])
optimizer = keras.optimizers.Adam(1e-3)
for step in range(60):
    states = tf.constant(rng.random((32, 8)), tf.float32)
    actions = rng.integers(0, 4, 32)
    targets = tf.constant(rng.random(32), tf.float32)
    with tf.GradientTape() as tape:
        q = model(states)
        chosen = tf.stack([q[i][actions[i]] for i in range(len(actions))])
        loss = tf.reduce_mean((chosen - targets) ** 2)
    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
