"""The lab in a notebook (Jupyter, Colab, VS Code): ``%load_ext rlcore`` registers ``%%rlcore`` (a cell profiled,
its why shown in the cell) and ``%rlcore why`` / ``%rlcore runs`` (``magic``); ``rlcore.init()`` and the Keras
callback show the same why at their end (``display``); ``rlcore profile notebook.ipynb`` runs a notebook headless in
a real kernel with the lab inside it (``headless``). Which cell a line is in is ``tracking.kernel``'s.

IPython, ipykernel and nbclient are the notebook extra (``requirements-notebook.txt``); nothing here is imported
unless a notebook asks for it.
"""
