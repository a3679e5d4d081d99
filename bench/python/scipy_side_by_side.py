"""spf's Python package against scipy.sparse, side by side in one process.

Generates stand-ins of the papers' matrices with `spf generate` (a
stencil, a finite-element and a power-law matrix, each of at least 1.5M
nonzeros), then times each conversion in turn with scipy's own method,
alternating the two (spf, scipy, spf, scipy, ...) after one warm-up each,
and prints the medians, their ratio, the machine and the command as a
Markdown table (docs/benchmarks.md, "From Python").

    python bench/python/scipy_side_by_side.py --spf target/release/spf

Verification is on, as `spf.convert` does by default. The package must be
installed (`pip install .`, a release build).
"""

import argparse
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import scipy
import scipy.sparse as sp

import spf

# name, scale, the conversions timed on it (DIA only where the diagonals are few).
MATRICES = [
    ("ecology1", 0.3, ["coo_csr", "csr_csc", "csr_dia"]),
    ("pwtk", 0.15, ["coo_csr", "csr_csc"]),
    ("webbase-1M", 0.5, ["coo_csr", "csr_csc"]),
]

CONVERSIONS = {
    "coo_csr": ("coo", lambda a: spf.convert(a, "csr"), lambda a: a.tocsr()),
    "csr_csc": ("csr", lambda a: spf.convert(a, "csc"), lambda a: a.tocsc()),
    "csr_dia": ("csr", lambda a: spf.convert(a, "dia"), lambda a: a.todia()),
}


def timed(f, a):
    t = time.perf_counter()
    f(a)
    return time.perf_counter() - t


def side_by_side(ours, theirs, a, rounds):
    """Medians of `rounds` alternating runs, after a warm-up of each (the
    warm-up compiles spf's conversion or loads it from the cache)."""
    expected = theirs(a)
    got = ours(a)
    if (got != expected).nnz != 0 or got.shape != expected.shape:
        sys.exit("spf and scipy disagree")
    mine, scipys = [], []
    for _ in range(rounds):
        mine.append(timed(ours, a))
        scipys.append(timed(theirs, a))
    return statistics.median(mine), statistics.median(scipys)


def generate(spf_bin, name, scale, where):
    path = os.path.join(where, f"{name}.mtx")
    cmd = [spf_bin, "generate", name, "--scale", str(scale), "--shuffle", "-o", path]
    subprocess.run(cmd, check=True)
    return path


def machine():
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, scipy {scipy.__version__}, numpy {np.__version__}"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--spf", default="spf", help="the spf command, for `spf generate`")
    p.add_argument("--rounds", type=int, default=9)
    args = p.parse_args()
    print(f"command: python {' '.join(shlex.quote(x) for x in sys.argv)}")
    print(f"machine: {machine()}\n")
    print("| matrix | nnz | conversion | spf (ms) | scipy (ms) | scipy / spf |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as where:
        for name, scale, conversions in MATRICES:
            coo = spf.load(generate(args.spf, name, scale, where), "coo").to_scipy().copy()
            inputs = {"coo": coo, "csr": coo.tocsr()}
            for c in conversions:
                kind, ours, theirs = CONVERSIONS[c]
                a = inputs[kind]
                mine, scipys = side_by_side(ours, theirs, a, args.rounds)
                print(
                    f"| {name} (scale {scale}) | {a.nnz:,} | {c.replace('_', ' → ').upper()} "
                    f"| {mine * 1e3:.1f} | {scipys * 1e3:.1f} | {scipys / mine:.2f}× |",
                    flush=True,
                )
    # A converter called again: no synthesis and no compile.
    small = sp.random_array((5, 5), density=0.4, format="coo", rng=3)
    assert small.nnz == 10
    conv = spf.Converter("coo", "csr")
    conv(small)
    again = [timed(conv, small) for _ in range(101)]
    print(f"\nspf.Converter('coo', 'csr') called again on a 10-entry matrix: median {statistics.median(again) * 1e3:.3f} ms")


if __name__ == "__main__":
    main()
