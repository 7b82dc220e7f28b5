"""kata: practise attention by hand; the checker behind the `kata` command."""

__version__ = "0.1.0"


def load_ipython_extension(ipython):
    """`%load_ext checker` in Jupyter: registers the `%%kata NN` cell magic (checker/practice/notebook.py)."""
    from checker.practice.notebook import load_ipython_extension as register

    register(ipython)
