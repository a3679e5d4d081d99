"""scipy's side of spf's end-to-end benchmark (bench/src/end_to_end.rs runs it).

usage: python3 end_to_end.py JOB INPUT OUTPUT [CHECK]

JOB is `coo_csr` (scipy.io.mmread(INPUT).tocsr(), then
scipy.sparse.save_npz(OUTPUT, ..., compressed=False)) or `csr_csc`
(scipy.sparse.load_npz(INPUT).tocsc(), then save_npz). The script runs
the job once for each line `run` it reads on standard input, timed from
before the read to after the write in this process (the interpreter's
start-up and imports are not timed), and answers each with a JSON line
{"time": seconds}; the benchmark runs spf between two lines, so that both
sides are measured over the same stretch of time. At the end of its input
it prints {"peak_kb": K, "import_kb": K0, "check": true|false|null}: the
process's peak resident set, the resident set after the imports, and,
with CHECK (an .npz that spf wrote), whether it holds scipy's result (same
shape, same entries).
"""

import json
import resource
import sys
import time

import scipy.io
import scipy.sparse as sp


def peak_kb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def once(job, src, dst):
    t0 = time.perf_counter()
    if job == "coo_csr":
        result = scipy.io.mmread(src).tocsr()
    elif job == "csr_csc":
        result = sp.load_npz(src).tocsc()
    else:
        raise SystemExit(f"unknown job {job}")
    sp.save_npz(dst, result, compressed=False)
    return time.perf_counter() - t0, result


def main():
    job, src, dst = sys.argv[1], sys.argv[2], sys.argv[3]
    check = sys.argv[4] if len(sys.argv) > 4 else None
    import_kb = peak_kb()
    result = None
    for line in sys.stdin:
        if line.strip() != "run":
            raise SystemExit(f"unknown request {line.strip()!r}")
        result = None
        seconds, result = once(job, src, dst)
        print(json.dumps({"time": seconds}), flush=True)
    same = None
    if check is not None and result is not None:
        theirs = sp.load_npz(check)
        same = bool(theirs.shape == result.shape and (theirs != result).nnz == 0)
    print(json.dumps({"peak_kb": peak_kb(), "import_kb": import_kb, "check": same}), flush=True)


if __name__ == "__main__":
    main()
