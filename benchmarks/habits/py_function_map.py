# habit: input-bound
# where: def jitter(image): | .map(lambda image: tf.py_function(jitter, [image], tf.float32))
# fix: TensorFlow ops
# fixed: py_function_map_fixed.py
"""A tf.py_function map without parallelism feeding a tf.function training step."""
import numpy as np
import tensorflow as tf

images = np.random.default_rng(0).random((1024, 28, 28)).astype("float32")


def jitter(image):
    image = image.numpy()
    return np.clip(image + np.random.normal(0, 0.05, image.shape), 0, 1).astype("float32")


dataset = (tf.data.Dataset.from_tensor_slices(images).repeat()
           .map(lambda image: tf.py_function(jitter, [image], tf.float32)).batch(32))
model = tf.keras.Sequential([tf.keras.Input((28 * 28,)), tf.keras.layers.Dense(512, activation="relu"),
                             tf.keras.layers.Dense(1)])


@tf.function
def train_step(batch):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((model(tf.reshape(batch, (-1, 28 * 28))) - 1.0) ** 2)
    grads = tape.gradient(loss, model.trainable_variables)
    for weight, grad in zip(model.trainable_variables, grads):
        weight.assign_sub(1e-4 * grad)
    return loss


for step, batch in enumerate(dataset):
    if step >= 60:
        break
    loss = train_step(batch)
