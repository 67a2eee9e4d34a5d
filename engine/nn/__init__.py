"""``engine.nn``: the public Python API, in nnabla's vocabulary.

::

    import engine.nn as nn
    import engine.nn.functions as F
    import engine.nn.parametric as PF
    import engine.nn.solvers as S

    nn.seed(0)
    x = nn.Variable(images)
    with nn.parameter_scope("Convolution"):
        h = PF.convolution(x, 16, (3, 3), pad=(1, 1))
    solver = S.Adam(alpha=0.001)
    solver.set_parameters(nn.get_parameters())

The submodules ``functions``, ``parametric``, ``initializer``, ``solvers`` and ``lr_scheduler``
are imported on demand (``import engine.nn.parametric as PF``), as in nnabla.
"""

import contextlib
from collections.abc import Iterator

from engine.core.autograd import Variable, no_grad
from engine.core.backend import seed, set_device
from engine.core.ops import arithmetic  # noqa: F401 - installs Variable's + - * / ** @ operators
from engine.nn.parameter import (
    ParameterInfo,
    clear_parameters,
    get_current_parameter_scope,
    get_lr_multiplier,
    get_lr_multipliers,
    get_parameter,
    get_parameter_info,
    get_parameter_or_create,
    get_parameters,
    load_parameters,
    parameter_scope,
    save_parameters,
    set_lr_multiplier,
    set_parameter,
)
from engine.nn.parameter_file import ParameterFileError

__all__ = [
    "Variable", "no_grad", "seed", "set_device",
    "parameter_scope", "get_current_parameter_scope", "get_parameter", "set_parameter",
    "get_parameter_or_create", "get_parameters", "clear_parameters",
    "get_lr_multiplier", "set_lr_multiplier", "get_lr_multipliers", "get_parameter_info",
    "ParameterInfo", "save_parameters", "load_parameters", "ParameterFileError", "auto_forward",
]  # fmt: skip


@contextlib.contextmanager
def auto_forward(auto: bool = True) -> Iterator[None]:
    """nnabla's ``with nn.auto_forward():`` (compute as the graph is built). The engine always
    computes eagerly, so this only lets code written for nnabla run unchanged."""
    yield
