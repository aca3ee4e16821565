"""Test app: Python regions through markers/scope_bpf.py.

A tracer must see "solve" 3 times at top level (a with block); in each,
"kernel" twice (a decorated function), one of them left by an exception
the with block inside it catches; and nothing else.
"""

import sys

import scope_bpf


@scope_bpf.region("kernel")
def kernel(fail):
    total = sum(i * i for i in range(20000))
    if fail:
        raise ValueError(total)
    return total


def main():
    if not scope_bpf.enabled():
        sys.exit("py_markers: libscope_bpf_markers not loaded")
    for _ in range(3):
        with scope_bpf.region("solve"):
            kernel(False)
            try:
                kernel(True)
            except ValueError:
                pass


main()
