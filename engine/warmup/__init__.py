"""Getting a process's compiled kernels ready sooner on a fresh machine (issue 33's cold start):
:mod:`.ahead` compiles a training step's kernels in a second process while the training
process compiles only the convolution and runs NumPy stand-ins for the data-movement kernels
(engine/core/ops/_standins.py); :mod:`.cache_files` tells a cold cache from numba's file names
before numba is imported."""
