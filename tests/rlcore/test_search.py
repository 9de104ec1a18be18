"""Search spaces: the grid's product times seeds, reproducible random draws inside their ranges, every member
validated with a sentence naming it, the cap, and results per setting from given numbers."""

import math
import random

import pytest

from rlcore import search
from rlcore.contract import workloads
from rlcore.contract.params import ConfigError

DQN = workloads.get("dqn")


def test_the_grid_is_the_product_of_its_lists_times_the_seeds():
    space = search.Space(grid={"learning_rate": [1e-3, 1e-2], "batch_size": [32, 64, 128]}, seeds=[0, 1])
    members = search.members(DQN, {"epochs": 10}, space)
    assert space.count() == len(members) == 12
    settings = {(m.setting["learning_rate"], m.setting["batch_size"], m.seed) for m in members}
    assert settings == {(lr, b, s) for lr in (1e-3, 1e-2) for b in (32, 64, 128) for s in (0, 1)}
    assert all(m.config["epochs"] == 10 and m.config["seed"] == m.seed for m in members)
    assert members[0].label(DQN) == "lr=0.001 batch=32 seed=0"


def test_random_draws_are_reproducible_from_the_sweeps_seed_and_inside_their_ranges():
    _, lr = search.parse_range(DQN, "lr", "log:1e-4:1e-2")
    _, hidden = search.parse_range(DQN, "hidden1", "int:16:256")
    _, mode = search.parse_range(DQN, "mode", "choice:static,player")
    space = search.Space(ranges={"learning_rate": lr, "hidden1": hidden, "mode": mode}, random=200, sweep_seed=7)
    first, again = search.members(DQN, {}, space), search.members(DQN, {}, space)
    assert [m.setting for m in first] == [m.setting for m in again] and len(first) == 200
    other = search.members(DQN, {}, search.Space(ranges=space.ranges, random=200, sweep_seed=8))
    assert [m.setting for m in other] != [m.setting for m in first]
    rates = [m.setting["learning_rate"] for m in first]
    assert all(1e-4 <= r <= 1e-2 for r in rates)
    below = sum(r < 1e-3 for r in rates)  # log-uniform: half the draws below the geometric middle
    assert 70 < below < 130
    assert all(16 <= m.setting["hidden1"] <= 256 and isinstance(m.setting["hidden1"], int) for m in first)
    assert {m.setting["mode"] for m in first} == {"static", "player"}


@pytest.mark.parametrize(("build", "sentence"), [
    (lambda: search.members(DQN, {"exec_mode": "pytorch"}, search.Space(grid={"profile": [0, 5]})),
     "Member 2 (profile=5): profile does not apply to the pytorch style"),
    (lambda: search.members(DQN, {}, search.Space(grid={"batch_size": [100, 5000]})),
     "Member 2 (batch=5000): batch must not exceed memory"),
    (lambda: search.members(DQN, {}, search.Space(grid={"learning_rate": [1e-3, 1e-2, 3e-2]},
                                                   seeds=list(range(400)))),
     "This sweep would make 1,200 runs; a sweep makes at most 1,000"),
    (lambda: search.parse_values(DQN, "lr", "1e-3, 2"), "lr must be at most 1, not 2."),
    (lambda: search.parse_values(DQN, "learning", "1"), "dqn has no setting 'learning'"),
    (lambda: search.parse_range(DQN, "lr", "log:0:1"), "lr's range needs LOW < HIGH and LOW > 0 on a log scale"),
    (lambda: search.parse_range(DQN, "lr", "normal:0:1"), "lr's range must start with one of uniform, log"),
    (lambda: search.parse_seeds("0,x"), "seeds must be a whole number"),
])
def test_a_bad_member_value_or_size_is_one_sentence_that_names_it(build, sentence):
    with pytest.raises(ConfigError) as e:
        build()
    assert str(e.value).startswith(sentence)


def test_results_per_setting_and_the_best_one_in_the_headlines_direction():
    hjb = workloads.get("hjb")
    finished = [({"width": 8, "seed": s}, "done", {"max_rel_err_c": e, "max_rel_err_V": 0.01, "train_seconds": 10.0})
                for s, e in ((0, 0.02), (1, 0.04))]
    finished += [({"width": 16, "seed": s}, "done", {"max_rel_err_c": e, "max_rel_err_V": 0.02, "train_seconds": 20.0})
                 for s, e in ((0, 0.01), (1, 0.01))]
    finished += [({"width": 16, "seed": 2}, "failed", None)]
    results = search.aggregate(hjb, ["width"], finished)
    by_width = {r.setting["width"]: r for r in results}
    assert by_width[8].means["max_rel_err_c"] == pytest.approx(0.03)
    assert by_width[8].spreads["max_rel_err_c"] == pytest.approx(math.sqrt(2) * 0.01)  # sample standard deviation
    assert (by_width[16].runs, by_width[16].done, by_width[16].spreads["max_rel_err_c"]) == (3, 2, 0.0)
    assert by_width[16].seconds == 20.0
    assert search.best(hjb, results).setting == {"width": 16}  # error: lower is better
    dqn = [({"batch_size": b}, "done", {"win_rate": w}) for b, w in ((32, 0.9), (64, 0.95))]
    assert search.best(DQN, search.aggregate(DQN, ["batch_size"], dqn)).setting == {"batch_size": 64}  # higher


def test_a_space_survives_the_store_as_json():
    _, lr = search.parse_range(DQN, "lr", "log:1e-4:1e-2")
    space = search.Space({"batch_size": [32, 64]}, {"learning_rate": lr}, 3, [0, 1], 5)
    again = search.Space.from_dict(space.to_dict())
    assert again == space and again.varied == ["batch_size", "learning_rate"]


@pytest.mark.parametrize(("args", "sentence"), [
    (["--grid", "lr=1e-3,1e-2", "--grid", "learning_rate=1e-4,1e-3"],
     "error: lr is given twice (--grid lr and --grid learning_rate); give each setting once."),
    (["--set", "batch=16", "--grid", "batch=16,32"], "error: batch is given twice (--set batch and --grid batch)"),
    (["--grid", "lr=1e-3,1e-2", "--range", "lr=log:1e-4:1e-2", "--random", "2"],
     "error: lr is given twice (--grid lr and --range lr)"),
    (["--grid", "seed=1,2", "--seeds", "0,1"], "error: seed is given twice (--grid seed and --seeds)"),
    (["--range", "memory=int:1.2:1.8", "--random", "2"], "error: memory's range holds no whole number"),
    (["--random", "5", "--detach"], "error: 5 random draws need a range to draw from"),
    (["--range", "learning_rate=log:1e-4:1e-2", "--detach"], "error: This sweep would make no runs"),
])
def test_a_sweep_that_contradicts_itself_is_one_sentence_and_creates_nothing(tmp_path, args, sentence):
    import os
    import subprocess
    import sys

    from rlcore.runs.store import Store

    proc = subprocess.run([sys.executable, "-m", "rlcore", "sweep", "dqn", *args], capture_output=True, text=True,
                          timeout=120, env=os.environ | {"RLCORE_HOME": str(tmp_path)})
    assert proc.returncode == 2 and proc.stderr.startswith(sentence) and len(proc.stderr.splitlines()) == 1, \
        proc.stderr
    assert Store(tmp_path).list_runs() == [] and Store(tmp_path).list_sweeps() == []


def test_random_draws_stay_inside_their_range_whatever_the_rounding():
    rng = random.Random(0)
    assert {search.Range("int", 1.5, 3.5).draw(rng) for _ in range(200)} == {2, 3}
    assert {search.Range("logint", 1.5, 3.5).draw(rng) for _ in range(200)} <= {2, 3}
    narrow = search.Range("uniform", 0.12345674, 0.12345676)
    assert all(0.12345674 <= narrow.draw(rng) <= 0.12345676 for _ in range(200))
