# SPDX-License-Identifier: MIT
# gpuscope under gpustat's name, for running gpustat-using scripts unchanged in tests and local checks.
from gpuscope import *  # noqa: F401,F403
from gpuscope import __version__  # noqa: F401
