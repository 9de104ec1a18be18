"""Keras's Adam over a network's weights as one vector, for K steps inside one compiled call.

Keras's Adam updates each variable on its own: under XLA three fusions per variable a step, 24 of the seed network's
84 (its eight variables). Here the weights and Adam's two moments ride the loop as one vector each, so one update
is one fused elementwise pass; the weights, the moments and the step count are read from Keras's variables at the
call's start and written back at its end, so a K-step call and K single steps of ``apply_gradients`` leave the same
state (tests/rlcore/test_hjb.py). The arithmetic is Keras 3's ``Adam.update_step`` term for term. The solver uses
it only where it was measured to pay (``solver.flat_adam_pays``).
"""

from __future__ import annotations

from collections.abc import Callable

import keras
import numpy as np
import tensorflow as tf

Weights = list[tuple[tf.Tensor, tf.Tensor]]  # (kernel, bias) of each layer, input to output


def network_weights(model: keras.Model) -> Weights:
    return [(layer.kernel, layer.bias) for layer in model.layers]


class FlatAdam:
    """One Adam update over a flat vector, in step with ``optimizer``'s own state for ``model``'s layers."""

    def __init__(self, optimizer: keras.optimizers.Adam, model: keras.Model,
                 schedule: Callable[[tf.Tensor], tf.Tensor] | None = None) -> None:
        if optimizer.amsgrad or optimizer.weight_decay or optimizer.clipnorm or optimizer.global_clipnorm \
                or optimizer.clipvalue or optimizer.use_ema:
            raise ValueError("the flat Adam computes plain Adam: no amsgrad, weight decay, clipping or EMA.")
        self.optimizer, self.schedule = optimizer, schedule
        self.variables = [v for pair in network_weights(model) for v in pair]
        self.shapes = [tuple(v.shape) for v in self.variables]
        self.sizes = [int(np.prod(s)) for s in self.shapes]
        index = optimizer._get_variable_index  # Keras keeps each variable's moments at its index
        self.momentums = [optimizer._momentums[index(v)] for v in self.variables]
        self.velocities = [optimizer._velocities[index(v)] for v in self.variables]

    def start(self) -> tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
        """The weights, first and second moments now, as three flat vectors."""
        return _flat(self.variables), _flat(self.momentums), _flat(self.velocities)

    def weights(self, theta: tf.Tensor) -> Weights:
        parts = [tf.reshape(p, s) for p, s in zip(tf.split(theta, self.sizes), self.shapes, strict=True)]
        return list(zip(parts[0::2], parts[1::2], strict=True))

    def update(self, i: tf.Tensor, theta: tf.Tensor, m: tf.Tensor, v: tf.Tensor,
               grad: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
        """The ``i``-th update of this call (0-based): Keras's step count is its iterations at the start plus i."""
        opt, dtype = self.optimizer, theta.dtype
        iteration = opt.iterations + tf.cast(i, opt.iterations.dtype)
        lr = tf.cast(self.schedule(iteration) if self.schedule is not None else opt.learning_rate, dtype)
        local_step = tf.cast(iteration + 1, dtype)
        beta_1_power = tf.pow(tf.cast(opt.beta_1, dtype), local_step)
        beta_2_power = tf.pow(tf.cast(opt.beta_2, dtype), local_step)
        alpha = lr * tf.sqrt(1 - beta_2_power) / (1 - beta_1_power)
        m = m + (grad - m) * (1 - opt.beta_1)
        v = v + (tf.square(grad) - v) * (1 - opt.beta_2)
        return theta - (m * alpha) / (tf.sqrt(v) + opt.epsilon), m, v

    def finish(self, theta: tf.Tensor, m: tf.Tensor, v: tf.Tensor, steps: tf.Tensor) -> None:
        """Write the weights and moments back into Keras's variables and count the ``steps`` taken."""
        for targets, flat in ((self.variables, theta), (self.momentums, m), (self.velocities, v)):
            for target, part in zip(targets, tf.split(flat, self.sizes), strict=True):
                target.assign(tf.reshape(part, target.shape))
        self.optimizer.iterations.assign_add(tf.cast(steps, self.optimizer.iterations.dtype))


def _flat(variables: list) -> tf.Tensor:
    return tf.concat([tf.reshape(v, [-1]) for v in variables], axis=0)
