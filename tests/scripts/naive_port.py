"""A TensorFlow port of the book's chapter-3 DQN as people write it (the seed question's code): ``model.predict`` on
every move, an eager training step, and Q(s, a) gathered with a Python list. ``--fixed`` applies the seed answer's
two changes: the model called through a tf.function instead of predict, and a tf.function train step with tf.gather.

    python naive_port.py [--fixed] [MOVES]

A stand-in game keeps it self-contained: 64 numbers of state, four moves, a reward of -1 and sometimes +10.
"""

import random
import sys
from collections import deque

import numpy as np
import tensorflow as tf
from tensorflow import keras

fixed = "--fixed" in sys.argv
moves = int(next((a for a in sys.argv[1:] if a.isdigit()), "300"))
gamma, epsilon, batch_size, mem_size, sync_freq = 0.9, 0.3, 64, 500, 100

model = keras.Sequential([keras.Input((64,)), keras.layers.Dense(150, activation="relu"),
                          keras.layers.Dense(100, activation="relu"), keras.layers.Dense(4)])
model2 = keras.models.clone_model(model)
model2.set_weights(model.get_weights())
loss_fn = keras.losses.MSE  # as the question has it: a function, which takes a Python list
optimizer = keras.optimizers.Adam(1e-3)
replay = deque(maxlen=mem_size)
rng = np.random.default_rng(0)


def new_state():
    return (rng.random(64) / 10.0).astype(np.float32)


if fixed:
    model_func = tf.function(model)

    @tf.function
    def train_step(state1_batch, state2_batch, done_batch, reward_batch, action_batch):
        Q2 = model2(state2_batch)
        with tf.GradientTape() as tape:
            Q1 = model(state1_batch)
            Y = reward_batch + gamma * ((1 - done_batch) * tf.math.reduce_max(Q2, axis=1))
            X = tf.gather(Q1, action_batch, batch_dims=1)
            loss = loss_fn(X, Y)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

state1 = new_state()
for j in range(moves):
    if fixed:
        qval = model_func(state1[None]).numpy()
    else:
        qval = model.predict(state1[None], verbose=0)
    action = random.randint(0, 3) if random.random() < epsilon else int(np.argmax(qval))
    state2 = new_state()
    reward = 10.0 if rng.random() < 0.05 else -1.0
    done = reward > 0
    replay.append((state1, action, reward, state2, done))
    state1 = new_state() if done else state2
    if len(replay) > batch_size:
        minibatch = random.sample(replay, batch_size)
        state1_batch = np.array([s1 for (s1, a, r, s2, d) in minibatch])
        action_batch = np.array([a for (s1, a, r, s2, d) in minibatch])
        reward_batch = np.float32([r for (s1, a, r, s2, d) in minibatch])
        state2_batch = np.array([s2 for (s1, a, r, s2, d) in minibatch])
        done_batch = np.array([d for (s1, a, r, s2, d) in minibatch]).astype(np.float32)
        if fixed:
            loss = train_step(state1_batch, state2_batch, done_batch, reward_batch, action_batch)
        else:
            Q2 = model2(state2_batch)
            with tf.GradientTape() as tape:
                Q1 = model(state1_batch)
                Y = reward_batch + gamma * ((1 - done_batch) * tf.math.reduce_max(Q2, axis=1))
                X = [Q1[i][action_batch[i]] for i in range(len(action_batch))]
                loss = loss_fn(X, Y)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
        if j % sync_freq == 0:
            model2.set_weights(model.get_weights())
print(f"trained {moves} moves")
