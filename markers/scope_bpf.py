"""Region markers for Python programs that scope-bpf records.

    import scope_bpf

    with scope_bpf.region("solve"):
        ...

    @scope_bpf.region("kernel")
    def kernel():
        ...

The markers call libscope_bpf_markers (scope_bpf_begin_named and
scope_bpf_end_named) through ctypes; it fires the same probes as the C
header's markers, so `scope-bpf record -- python3 app.py` records them. The
library is looked for at $SCOPE_BPF_MARKERS_LIB, then where `make install`
put it, then by the dynamic loader's search (LD_LIBRARY_PATH, ldconfig).
Without it the markers do nothing and one RuntimeWarning says so.

Regions of one thread must nest; a name is cut to 127 bytes (UTF-8). Untraced,
a marker costs a ctypes call. See docs/MARKERS.md.
"""

import contextlib
import ctypes
import os
import warnings

__all__ = ["region", "begin", "end", "enabled"]

_SONAME = "libscope_bpf_markers.so.0"
# The installed library's path; `make install` writes it here.
_INSTALLED_LIB = ""


def _load():
    tried = []
    for path in (os.environ.get("SCOPE_BPF_MARKERS_LIB"), _INSTALLED_LIB, _SONAME):
        if not path:
            continue
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append(str(e))
    warnings.warn("scope_bpf: %s not found (%s); regions are not marked"
                  % (_SONAME, "; ".join(tried)), RuntimeWarning, stacklevel=3)
    return None


def _bind(lib, symbol):
    # No argtypes: ctypes passes bytes as char * itself, at half the cost.
    fn = getattr(lib, symbol)
    fn.restype = None
    return fn


def _nothing(name):
    pass


_lib = _load()
_begin = _bind(_lib, "scope_bpf_begin_named") if _lib else _nothing
_end = _bind(_lib, "scope_bpf_end_named") if _lib else _nothing


def enabled():
    """Whether the library was found, so that markers reach the probes."""
    return _lib is not None


def _encode(name):
    return name if isinstance(name, bytes) else str(name).encode("utf-8")


def begin(name):
    """A region named name begins on this thread (pair it with end(name))."""
    _begin(_encode(name))


def end(name):
    """The innermost open region named name ends on this thread."""
    _end(_encode(name))


class region(contextlib.ContextDecorator):
    """A region around a with block, or around every call of a decorated function."""

    def __init__(self, name):
        self.name = _encode(name)

    def __enter__(self):
        _begin(self.name)
        return self

    def __exit__(self, *exc):
        _end(self.name)
        return False
