"""How run tables show their numbers: throughput without decimals, win rate or error as a percentage."""

import streamlit as st

RUN_COLUMNS = {
    "id": st.column_config.NumberColumn(format="%d", width="small"),
    "created": st.column_config.DatetimeColumn(format="YYYY-MM-DD HH:mm:ss"),
    "steps/s": st.column_config.NumberColumn(format="%.0f"),
    "train s": st.column_config.NumberColumn(format="%.1f"),
    "win rate / err c": st.column_config.NumberColumn(
        format="percent", help="DQN: the book test's win rate; HJB: max relative error of c against the exact one"),
}
