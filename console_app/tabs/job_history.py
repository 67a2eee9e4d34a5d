"""Moved to :mod:`engine.runtime.job_history` (the report reads job folders without Qt).

Kept as an alias so modules written against the old place keep importing; new code imports
``engine.runtime.job_history``.
"""

from engine.runtime.job_history import (  # noqa: F401
    LABEL_FILE,
    STATUSES,
    JobInfo,
    delete_job,
    jobs_root,
    list_jobs,
    network_statistics,
    pareto_front,
    read_curve,
    read_job,
    rename_job,
)
