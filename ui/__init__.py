"""Streamlit helpers shared by the pages (forms bound to the URL, the sidebar, the run view)."""
