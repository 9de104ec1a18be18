"""The Keras Q-network both TensorFlow trainers build: the book's loop in TensorFlow's styles (``tf_styles``) and
the in-graph loop (``turbo``), neither importing the other; saving and loading it. The test and the replays, which
need no TensorFlow, are in ``win_rate``; the loop and its result in ``loop``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import keras
import numpy as np
import tensorflow as tf

from rlcore.workloads.dqn.win_rate import N_ACTIONS, STATE_SIZE, QFunction

STATES = tf.TensorSpec((None, STATE_SIZE), tf.float32)


# ---------------------------------------------------------------- network


def build_q_network(hidden1: int, hidden2: int, seed: int) -> keras.Model:
    """64 -> hidden1 -> hidden2 -> 4 ReLU MLP with PyTorch's default init, as the book's network.

    PyTorch's nn.Linear draws weights and biases from U(-1/sqrt(fan_in), 1/sqrt(fan_in)); a
    VarianceScaling of 1/3 (fan_in, uniform) gives exactly that bound for the weights.
    """
    layers = [keras.Input((STATE_SIZE,))]
    fan_in = STATE_SIZE
    for i, (units, act) in enumerate(((hidden1, "relu"), (hidden2, "relu"), (N_ACTIONS, None))):
        bound = 1.0 / np.sqrt(fan_in)
        layers.append(keras.layers.Dense(
            units,
            activation=act,
            kernel_initializer=keras.initializers.VarianceScaling(1 / 3, "fan_in", "uniform", seed=seed + 2 * i),
            bias_initializer=keras.initializers.RandomUniform(-bound, bound, seed=seed + 2 * i + 1),
        ))
        fan_in = units
    return keras.Sequential(layers)


def copy_weights(source: keras.Model, dest: keras.Model) -> None:
    for s, d in zip(source.weights, dest.weights, strict=True):
        d.assign(s)


def save_model(model: keras.Model, path: str | Path) -> Path:
    """Save a Q-network as a ``.keras`` file."""
    path = Path(path)
    model.save(path)
    return path


def model_bytes(model: keras.Model) -> bytes:
    """The ``.keras`` file of a Q-network as bytes (what a run keeps as its model artifact)."""
    with tempfile.TemporaryDirectory() as tmp:
        return save_model(model, Path(tmp) / "model.keras").read_bytes()


def load_q_function(path: str | Path) -> QFunction:
    """A Q-function from a saved ``.keras`` model, for replaying games."""
    model = keras.models.load_model(path)
    fn = tf.function(lambda s: model(s, training=False), input_signature=[STATES])
    return lambda states: fn(states).numpy()
