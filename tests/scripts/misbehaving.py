"""A script that misbehaves on request: ``python misbehaving.py raise|exit3|hang|processes|profiler [STEPS]``.
Each trains a few eager steps first, so the lab has steps and numbers to keep."""

import multiprocessing
import os
import sys
import time

import tensorflow as tf
from tensorflow import keras

how = sys.argv[1] if len(sys.argv) > 1 else "raise"
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
optimizer = keras.optimizers.SGD(0.01)
x, y = tf.random.normal((16, 4)), tf.random.normal((16, 1))


def step():
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((model(x) - y) ** 2)
    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
    return loss


def child(path):
    with open(path, "w") as f:
        f.write(str(os.getpid()))


def main():
    if how == "profiler":
        tf.profiler.experimental.start(os.environ.get("SCRIPT_PROFILE_DIR", "/tmp/script-own-profile"))
    for _ in range(steps):
        step()
    if how == "raise":
        raise ValueError("the data ran out at step 5")
    if how == "exit3":
        sys.exit(3)
    if how == "hang":
        print("hanging", flush=True)
        while True:
            time.sleep(0.05)
    if how == "processes":  # a forked child, then a spawned one, then more steps
        for start in ("fork", "spawn"):
            marker = os.environ.get("SCRIPT_CHILD_FILE", "/tmp/script-child") + f"-{start}"
            process = multiprocessing.get_context(start).Process(target=child, args=(marker,))
            process.start()
            process.join(60)
        for _ in range(steps):
            step()
    if how == "profiler":
        tf.profiler.experimental.stop()
    print("done")


if __name__ == "__main__":  # spawn imports this file again in its child, as multiprocessing requires
    main()
