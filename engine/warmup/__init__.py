"""Getting a process's compiled kernels ready sooner on a fresh machine (issue 33's cold start):
:mod:`.ahead` compiles the later kernels of a training step in a second process."""
