"""A tf.function training step fed a Python number (the step's index) and a loss fetched with .numpy() every step:
``python retrace.py [STEPS]``."""

import sys

import tensorflow as tf
from tensorflow import keras

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 40
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8), keras.layers.Dense(1)])
optimizer = keras.optimizers.SGD(0.01)
x, y = tf.random.normal((32, 4)), tf.random.normal((32, 1))


@tf.function
def train_step(epoch):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((model(x) - y) ** 2) * (1.0 + 0.0 * epoch)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


losses = []
for epoch in range(steps):
    losses.append(train_step(epoch).numpy())  # a new Python int every call: a new graph every call
print(f"last loss {losses[-1]:.3f}")
