"""Data-parallel training over MPI processes (``mpirun -n K neurocanvas train P --distributed``).

- :mod:`.collectives`: the MPI world, the packed-buffer gradient all-reduce (MPI on the CPU,
  NCCL on GPUs), the project fingerprint every rank must share;
- :mod:`.shards`: each rank's slice of every global batch, validation split and reduced;
- :mod:`.trainer`: the single-process loop with the all-reduce in every update;
- :mod:`.run`: start and resume (rank 0 writes the job folder; checkpoints as single-process);
- :mod:`.launch`: the ``mpirun`` command line the app starts.

The package itself imports nothing: the app's job runner reads :mod:`.launch` and
:mod:`.collectives`'s error without loading the trainer, the session and the compiler.
"""
