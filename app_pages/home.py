"""Home: the two questions the lab answers, each reproduced in one click, recent runs, the shell."""

import streamlit as st

from ui import access, extras, run_view, runs_table

# The router reads this (without running the page): its place in the menu, where it is defined.
PAGE = {"title": "Home", "icon": ":material/home:", "url_path": "", "order": 0}

store = access.store()
if "run" in st.query_params:  # /?run=ID: the run opens where it is shown
    run_view.open_from_elsewhere(store)
st.title("TF Training Lab")
st.markdown(
    "The lab grew from two questions people keep asking. **Why does my TensorFlow port of a small DQN train 40x "
    "slower than PyTorch?** (the Gridworld DQN of *Deep Reinforcement Learning in Action*: `model.predict` on "
    "every move and an eager step are the slow habits; `tf.function` is the fix). **Why is my GPU slower than my "
    "CPU?** (a tiny network solving the HJB equation of the growth model, where launch overhead dominates).\n\n"
    "It answers both by measuring them on your machine: the same training in several execution styles, the time "
    "of every phase, each result judged against its yardstick (the book's win-rate test, the exact HJB solution)."
)
st.markdown("**Your own TensorFlow code**: `rlcore profile train.py` runs a script unchanged and says why it is as "
            "fast as it is, in the words of your code; `rlcore.init()` in a loop and `rlcore.keras.Callback()` in "
            "`model.fit` do the same from inside. The Your code page has them to copy.")
for _, section in extras.every("home"):  # what each workload adds here (the DQN, the HJB: their question in a click)
    section(store)
runs = store.list_runs()
if runs:
    st.subheader("Recent runs")
    runs_table.recent(runs)
    st.page_link("app_pages/runs.py", label="All runs and comparisons", icon=":material/table_rows:")
st.subheader("From the shell")
st.caption("In the lab's folder, after `make run` or `make test` made its `.venv`:")
st.code(
    ".venv/bin/python -m rlcore dqn --exec naive --epochs 20   # the seed's port: model.predict per move\n"
    ".venv/bin/python -m rlcore dqn --exec graph               # the book's 5000 games, compiled once\n"
    ".venv/bin/python -m rlcore turbo                          # the whole loop compiled, 512 games at once\n"
    ".venv/bin/python -m rlcore dqn --help                     # every setting, by the styles it applies to\n"
    ".venv/bin/python -m rlcore hjb --preset accurate          # the HJB network against the exact V\n"
    ".venv/bin/python -m rlcore devices                        # what TensorFlow sees on this machine\n"
    ".venv/bin/python -m rlcore why logs/                      # a TensorFlow profile made anywhere (a GPU's too)",
    language="bash",
)
