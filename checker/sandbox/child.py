"""The learner's process starts here: namespaces and its private tmpfs first (the process is still
single-threaded), then NumPy and the worker, which walls the process in before it loads a line of the
learner's file. Arguments: the two pipes' fds, then `worker.main`'s."""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _HERE)  # started with -I: the script's folder is not on the path by itself
import isolation  # noqa: E402

_APPLIED, _MISSING = isolation.enter_namespaces(sys.argv[7], int(sys.argv[8]))  # the folder, the tmpfs's size
import worker  # noqa: E402 - imports NumPy, inside the namespaces

sys.path.remove(_HERE)
worker.main(sys.argv[1:], _APPLIED, _MISSING)
