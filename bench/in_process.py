"""The Python sides of spf's in-process benchmark (bench/src/in_process.rs runs it).

usage: python3 in_process.py SIDE JOB INPUT

SIDE is `scipy` (scipy's own method: `coo.tocsr()` for JOB `coo_csr`,
`csr.tocsc()` for `csr_csc`) or `spf` (the Python package:
`spf.convert(A, "csr")`, `spf.convert(A, "csc")`). INPUT is a Matrix
Market file, read once with scipy.io.mmread (and made CSR once for
`csr_csc`). The script converts once untimed (spf compiles or finds its
conversion then), prints {"ready": nnz}, then converts once for each line
`run` it reads on standard input, timed in this process, and answers
{"time": seconds}; at the end of its input it prints {"done": true}.
"""

import json
import sys
import time

import scipy.io

JOBS = {"coo_csr": ("coo", "csr"), "csr_csc": ("csr", "csc")}


def job_of(side, job, a):
    src, dst = JOBS[job]
    if src == "csr":
        a = a.tocsr()
    if side == "scipy":
        return a, getattr(a, "to" + dst)
    if side == "spf":
        import spf

        return a, lambda: spf.convert(a, dst)
    raise SystemExit(f"unknown side {side}")


def main():
    side, job, path = sys.argv[1], sys.argv[2], sys.argv[3]
    if job not in JOBS:
        raise SystemExit(f"unknown job {job}")
    a, convert = job_of(side, job, scipy.io.mmread(path))
    convert()
    print(json.dumps({"ready": int(a.nnz)}), flush=True)
    for line in sys.stdin:
        if line.strip() != "run":
            raise SystemExit(f"unknown request {line.strip()!r}")
        t0 = time.perf_counter()
        result = convert()
        seconds = time.perf_counter() - t0
        del result
        print(json.dumps({"time": seconds}), flush=True)
    print(json.dumps({"done": True}), flush=True)


if __name__ == "__main__":
    main()
