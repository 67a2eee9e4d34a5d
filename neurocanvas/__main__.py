"""``python -m neurocanvas``: the same as the ``neurocanvas`` program."""

import sys

from neurocanvas import main

sys.exit(main())
