# fixed-of: py_function_map.py
"""The jitter in TensorFlow ops, a parallel map and prefetch."""
import numpy as np
import tensorflow as tf

images = np.random.default_rng(0).random((1024, 28, 28)).astype("float32")


def jitter(image):
    return tf.clip_by_value(image + tf.random.normal(tf.shape(image), 0, 0.05), 0, 1)


dataset = (tf.data.Dataset.from_tensor_slices(images).repeat()
           .map(jitter, num_parallel_calls=tf.data.AUTOTUNE).batch(32).prefetch(tf.data.AUTOTUNE))
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
