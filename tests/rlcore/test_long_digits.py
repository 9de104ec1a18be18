"""Every parser of a number a person types, given thousands of digits: one sentence, never Python's "Exceeds the
limit (4300 digits) for integer string conversion" (the bench's batch list crashed the page and the CLI so). One
case per parser; the pages' and the CLI's own cases are in tests/pages/test_odd_input.py and tests/rlcore/test_cli.py.
"""

import pytest

from rlcore import search
from rlcore.contract import workloads
from rlcore.contract.params import ConfigError, int_list, parse_float, parse_id, parse_int

HUGE = "9" * 5000
PAST_THE_LIMIT = "1" + "0" * 4300  # 4,301 digits: the first that int() refuses
ZEROS = "0" * 4301  # no value at all, and still 4,301 digits to int()


@pytest.mark.parametrize(("parse", "sentence"), [
    (lambda: parse_int(HUGE, "epochs"), "epochs must be a whole number of at most 4,000 digits"),
    (lambda: parse_float(HUGE, "lr"), "lr must be a number of at most 4,000 characters"),
    (lambda: parse_float("9" * 400, "lr"), "lr must be a number a float can hold"),
    (lambda: parse_id(HUGE), "run must be a run id like 3"),
    (lambda: int_list("batch", f"1,{PAST_THE_LIMIT}", 1_000_000), "batch must be whole numbers from 1 to 1,000,000"),
    (lambda: int_list("batch", f"1,{ZEROS}", 1_000_000), "batch must be whole numbers from 1 to 1,000,000"),
    (lambda: workloads.get("bench").make_config({"batch": PAST_THE_LIMIT}), "batch must be whole numbers from 1"),
    (lambda: workloads.get("bench").make_config({"width": HUGE}), "width must be whole numbers from 1 to 4,096"),
    (lambda: workloads.get("dqn").make_config({"epochs": HUGE}), "epochs must be a whole number of at most"),
    (lambda: search.members(workloads.get("bench"), {}, search.Space(grid={"batch": [f"1,{ZEROS}"]})),
     "Member 1"),
    (lambda: search.parse_values(workloads.get("dqn"), "epochs", f"5,{HUGE}"), "epochs must be a whole number"),
    (lambda: search.parse_range(workloads.get("dqn"), "epochs", f"int:1:{HUGE}"), "epochs's range must be int:LOW"),
    (lambda: search.parse_range(workloads.get("dqn"), "epochs", "logint:1:1e400"), "epochs's range must be logint"),
    (lambda: search.parse_seeds(f"0,{HUGE}"), "seeds must be a whole number of at most 4,000 digits"),
])
def test_a_number_of_thousands_of_digits_is_one_sentence(parse, sentence):
    with pytest.raises(ConfigError) as caught:
        parse()
    assert str(caught.value).startswith(sentence), str(caught.value)


def test_the_run_ids_of_a_link_and_a_sign_in_cookie_s_expiry_too():
    from ui import access, views

    with pytest.raises(ValueError, match=r"^runs must be run ids separated by commas"):
        views.parse_run_ids(f"1,{HUGE}", [1])
    for expiry in (HUGE, PAST_THE_LIMIT, "²" * 10):  # a bad cookie is no cookie
        assert not access.token_valid(f"{expiry}.{'0' * 16}.{'0' * 64}", "x" * 64, 1_800_000_000.0)


def test_a_number_written_with_thousands_commas_in_a_sweep_says_how_lists_are_written():
    with pytest.raises(ConfigError) as caught:
        search.parse_values(workloads.get("dqn"), "epochs", "1,000")
    assert str(caught.value) == ("epochs must be at least 1, not 0. Values are separated by commas, so 1,000 reads as "
                                 "1 and 000: write 1000.")
    assert search.parse_values(workloads.get("dqn"), "epochs", "16,128") == ("epochs", [16, 128])
