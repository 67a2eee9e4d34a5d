"""``F``: every NNC layer as an nnabla-style function on Variables.

``import engine.nn.functions as F``; names are the snake_case of NNC layer names and signatures
follow nnabla's (``F.convolution(x, weight, bias, base_axis, pad, stride, dilation, group)``).
The kernels live in ``engine.core.ops``, one module per NNC category.
"""

from engine.core.ops.activation import *  # noqa: F403
from engine.core.ops.arithmetic import *  # noqa: F403
from engine.core.ops.basic import *  # noqa: F403
from engine.core.ops.logical import *  # noqa: F403
from engine.core.ops.loop_control import *  # noqa: F403
from engine.core.ops.loss import *  # noqa: F403
from engine.core.ops.mathematics import *  # noqa: F403
from engine.core.ops.normalization import *  # noqa: F403
from engine.core.ops.others import *  # noqa: F403
from engine.core.ops.pooling import *  # noqa: F403
from engine.core.ops.preprocess import *  # noqa: F403
from engine.core.ops.quantize import *  # noqa: F403
from engine.core.ops.spectral import *  # noqa: F403
from engine.core.ops.trigonometric import *  # noqa: F403
from engine.core.ops.validation import *  # noqa: F403
