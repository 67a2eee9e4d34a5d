"""NeuroCanvas engine: the headless core (no Qt below this package)."""

import os

# OpenBLAS's worker threads spin for about 0.1 s (2**28 cycles) after every multi-threaded
# product before they sleep, holding a core the engine's own threads need (the direct
# convolution runs on as many threads as BLAS, see engine.core.ops._threads). 2**18 cycles
# (~75 us) still keeps them awake between back-to-back products. OpenBLAS reads this when NumPy
# loads it, so it applies where the engine is imported before NumPy (the CLI, the app and its
# jobs); a value the user set is kept.
os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "18")

__version__ = "0.1.0"
