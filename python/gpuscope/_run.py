# SPDX-License-Identifier: MIT
"""How the module reaches gpuscope: one run of the binary per query, its
output parsed, its explanation raised when it fails."""
import json
import os
import shutil
import subprocess

try:  # written by `make install`: where that installation put the binary
    from ._config import GPUSCOPE_BIN as _INSTALLED_BIN
except ImportError:
    _INSTALLED_BIN = None


class QueryError(RuntimeError):
    """gpuscope could not take the snapshot; the message says why and what to do."""

    def __init__(self, message, exit_status=None):
        super().__init__(message)
        self.exit_status = exit_status


def binary():
    """The gpuscope executable: $GPUSCOPE_BIN, the installed one, the build
    tree next to this source tree, or the first on $PATH."""
    env = os.environ.get("GPUSCOPE_BIN")
    if env:
        return env
    if _INSTALLED_BIN and os.access(_INSTALLED_BIN, os.X_OK):
        return _INSTALLED_BIN
    here = os.path.dirname(os.path.abspath(__file__))
    built = os.path.join(here, "..", "..", "build", "gpuscope")
    if os.access(built, os.X_OK):
        return os.path.normpath(built)
    found = shutil.which("gpuscope")
    if found:
        return found
    raise QueryError("gpuscope is not installed: run 'make install', or set GPUSCOPE_BIN to the binary")


def run_json(args, ok=(0,)):
    """Run `gpuscope ARGS...` once and return its JSON output, parsed (exit
    statuses in ok count as success: 5 is "printed, some GPU lost")."""
    try:
        p = subprocess.run([binary()] + list(args), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, check=False)
    except OSError as e:
        raise QueryError(f"cannot run gpuscope ({e}); set GPUSCOPE_BIN to the binary") from e
    err = p.stderr.decode("utf-8", "replace").strip()
    if p.returncode not in ok:
        raise QueryError(err or f"gpuscope exited with status {p.returncode}", p.returncode)
    try:
        return json.loads(p.stdout.decode("utf-8", "replace"))
    except ValueError as e:
        raise QueryError(f"gpuscope printed no JSON ({e}): {err}") from e
