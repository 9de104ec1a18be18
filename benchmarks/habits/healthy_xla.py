# habit: healthy
"""A healthy compiled step: XLA, several steps per call, a model with real arithmetic."""
import tensorflow as tf
from tensorflow import keras

model = keras.Sequential([keras.Input((256,)), keras.layers.Dense(512, activation="relu"),
                          keras.layers.Dense(512, activation="relu"), keras.layers.Dense(1)])
optimizer = keras.optimizers.Adam(1e-3)
x, y = tf.random.normal((256, 256)), tf.random.normal((256, 1))


@tf.function(jit_compile=True)
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((model(x, training=True) - y) ** 2)
    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
    return loss


for step in range(40):
    loss = train_step(x, y)
