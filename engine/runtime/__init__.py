"""Running projects: compile a network to a program, train, evaluate, job folders, events.

- :mod:`engine.runtime.compiler`: ``compile_network(project, name) -> Program``
- :mod:`engine.runtime.program`: the executable :class:`~engine.runtime.program.Program`
"""
