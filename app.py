"""TF Training Lab: the entry point. Pages are thin views over rlcore; training never runs in this process."""

from ui import router

# A function, so tests can drive the router (Streamlit's hello app does the same).
router.run()
