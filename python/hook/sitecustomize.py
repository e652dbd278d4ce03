# SPDX-License-Identifier: MIT
# sitecustomize.py - the entry of gpuscope's opt-in Python hook. This directory is
# put first on PYTHONPATH by `gpuscope run --python -- python train.py`, or by
# `eval "$(gpuscope pyhook env)"` for processes started otherwise (a launcher, a
# notebook kernel); Python then imports this file at start-up. It starts the hook
# (gpuscope_pyhook.py: docs/PYHOOK.md), which never raises, and then runs the
# sitecustomize this one shadows (Debian's, a virtualenv's), so that nothing else
# changes. GPUSCOPE_PYHOOK=0 turns the hook off without touching PYTHONPATH.


def _gpuscope_start():
    try:
        import gpuscope_pyhook
        gpuscope_pyhook.start()
    except Exception:  # the hook must never stop the program it watches
        pass


def _gpuscope_chain():
    """Import the next sitecustomize on sys.path, as Python would have without us
    (through the normal import system: its bytecode cache, its errors reported by site.py)."""
    import os
    import sys
    here = os.path.dirname(os.path.abspath(__file__))
    me = sys.modules.pop("sitecustomize", None)
    saved = sys.path[:]
    sys.path[:] = [p for p in sys.path if not (p and os.path.abspath(p) == here)]
    try:
        __import__("sitecustomize")
    except ImportError as e:
        if e.name != "sitecustomize":
            raise
        sys.modules["sitecustomize"] = me  # there is no other: we are it
    finally:
        sys.path[:] = saved


_gpuscope_start()
_gpuscope_chain()
