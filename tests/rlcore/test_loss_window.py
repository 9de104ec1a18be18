"""A record's losses, their values fetched first, read as each read before: the same numbers, the same mean, the
same stop on NaN, and whatever is no number still left out."""

from __future__ import annotations

import math

import numpy as np
import pytest
import tensorflow as tf

from rlcore.contract.reporting import LOSS, DivergedError, LossWindow, number


@tf.function
def _loss(x: tf.Tensor) -> tf.Tensor:
    return tf.reduce_mean(tf.square(x))


def _as_before(value: object) -> float | None:
    """What ``number`` read before its fetch came first: its shape, size and dtype asked, then its value."""
    shape, size = getattr(value, "shape", None), getattr(value, "size", None)
    if shape is not None and len(shape) > 0 and (size is None or int(size) != 1):
        return None
    try:
        result = complex(value) if "complex" in str(getattr(value, "dtype", "")) else float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return result if isinstance(result, float) else None


def test_a_record_s_tensors_read_the_numbers_they_read_before() -> None:
    losses = [_loss(tf.fill([100, 1], 0.37 * i)) for i in range(300)]
    assert [number(x) for x in losses] == [_as_before(x) for x in losses]  # exactly: float32 widened the same way
    window = LossWindow("steps/s")
    for x in losses:
        window.add_loss(x)
    assert window.close(300, 1.0)[LOSS] == pytest.approx(sum(float(x) for x in losses) / 300, rel=1e-12)


@pytest.mark.parametrize("values", [
    [tf.constant(1, tf.int32), tf.constant(2.5)],  # dtypes that do not stack
    [tf.constant(True), tf.constant(False)],
    [tf.constant([1.0]), tf.constant([2.0])],  # no scalars: no numbers, as alone
    [tf.constant(1 + 1j), tf.constant(2 + 0j)],
    [tf.constant("a"), tf.constant("b")],
    [tf.constant(2.0, tf.bfloat16), tf.constant(3.0, tf.bfloat16)],
    [1.0, tf.constant(2.0), np.float32(3.0), "text", None],
])
def test_values_of_every_kind_read_as_they_read_before(values: list) -> None:
    together, alone = [number(x) for x in values], [_as_before(x) for x in values]
    assert [None if x is None else round(x, 6) for x in together] == [None if x is None else round(x, 6)
                                                                       for x in alone]


def test_a_nan_among_a_record_s_tensors_still_stops_the_run_as_diverged() -> None:
    window = LossWindow("steps/s")
    for x in [tf.constant(1.0), tf.constant(math.nan), tf.constant(2.0)]:
        window.add_loss(x)
    with pytest.raises(DivergedError):
        window.close(3, 1.0)
