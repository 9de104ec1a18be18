import os

# TensorFlow reads these at import: quiet logs, and never touch a GPU unless a test asks for one.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "-1")

