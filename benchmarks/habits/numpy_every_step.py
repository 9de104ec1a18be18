# habit: conversion
# where: loss = train_step(data, labels)
# fix: once
# fixed: numpy_every_step_fixed.py
"""A large numpy array handed to the training step every step: converted to a tensor each time."""
import numpy as np
import tensorflow as tf

rng = np.random.default_rng(0)
data = rng.random((20000, 64)).astype("float32")
labels = rng.random((20000, 1)).astype("float32")
w = tf.Variable(tf.zeros((64, 1)))


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((x[:64] @ w - y[:64]) ** 2)
    w.assign_sub(0.01 * tape.gradient(loss, w))
    return loss


for step in range(80):
    loss = train_step(data, labels)
