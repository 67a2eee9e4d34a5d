"""The kernels: the ``xp`` ones (NumPy or CuPy) and, beside them, numba's compiled CPU loops."""

import os

# numba highlights its error messages with colorama when that is installed, and colorama's
# exit hook then writes "\x1b[0m" to a terminal stdout: under mpirun (a pseudo-terminal) that
# ended rank 0's JSON event stream with a line that is not JSON. numba reads this at import.
os.environ.setdefault("NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING", "1")
