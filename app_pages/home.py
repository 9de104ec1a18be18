"""Home: what the lab answers, a one-click reproduction of the seed's question, recent runs, the shell."""

import streamlit as st

from rlcore import views
from rlcore.runs import worker
from rlcore.runs.store import Store
from ui import tables

st.title("TF Training Lab")
st.markdown(
    "Why does a TensorFlow port of a small DQN train many times slower than the PyTorch original, and why can a "
    "GPU be slower than the CPU? This lab answers both by measuring them on your machine: the same training in "
    "several execution styles (naive, eager, graph, XLA), with the time of every phase, the book's win-rate test "
    "for the Gridworld DQN and the error against the exact solution for the HJB network."
)
if st.button("Reproduce the seed's question", type="primary", key="reproduce",
             help="Queues the same short DQN twice, naive and graph, then opens their comparison."):
    store = Store()
    ids = [store.create_run("dqn", views.SEED_QUESTION | {"exec_mode": style}, label=f"seed question: {style}")
           for style in views.SEED_QUESTION_STYLES]
    for run_id in ids:
        worker.launch(store, run_id)
    st.switch_page("app_pages/runs.py", query_params={"runs": ",".join(map(str, ids))})
recent = views.runs_table(Store().list_runs()).head(5)
if len(recent):
    st.subheader("Recent runs")
    st.dataframe(recent[["id", "kind", "status", "style", "label", "steps/s", "win rate / err c"]], hide_index=True,
                 column_config=tables.RUN_COLUMNS)
    st.page_link("app_pages/runs.py", label="All runs and comparisons", icon=":material/table_rows:")
st.subheader("From the shell")
st.code(
    "python -m rlcore dqn --exec naive --epochs 20    # the seed's port: model.predict per move\n"
    "python -m rlcore dqn --exec graph                # the book's 5000 games, compiled once\n"
    "python -m rlcore dqn --help                      # every setting, with the book's defaults\n"
    "python -m rlcore hjb --preset seed               # the HJB question's network, judged against the exact V\n"
    "python -m rlcore hjb --preset accurate           # larger batch, decaying rate, float64, L-BFGS polish\n"
    "python -m rlcore devices                         # what TensorFlow sees on this machine",
    language="bash",
)
st.caption("Train and watch runs on the Gridworld DQN and HJB pages; compare, share and delete them on Runs.")
