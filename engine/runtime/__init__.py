"""Running projects: what NNC's Run and Evaluate buttons do, as Python functions.

- :mod:`~engine.runtime.compiler`: ``compile_network(project, name) -> Program`` (drawn or
  derived networks, units expanded, NNC's parameter names)
- :mod:`~engine.runtime.program`: the executable program (steps calling ``engine.nn.functions``)
- :mod:`~engine.runtime.datasets`: dataset URIs (``builtin:digits/training``, CSV paths)
- :mod:`~engine.runtime.session`: the run plan from CONFIG and everything built before training
- :mod:`~engine.runtime.trainer`: the training loop; :mod:`~engine.runtime.extensions` its
  monitors, checkpoints, job files, events, progress and stop requests
- :mod:`~engine.runtime.checkpoint`: best and last checkpoints (exact resume)
- :mod:`~engine.runtime.job`: the job folder; :mod:`~engine.runtime.events`: the event protocol
- :mod:`~engine.runtime.run`: ``train(project)`` and ``resume(job)``
- :mod:`~engine.runtime.evaluator` and :mod:`~engine.runtime.metrics`: evaluation in NNC's file
  layouts; :mod:`~engine.runtime.inference`: inference on files
"""
