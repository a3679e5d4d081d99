"""scipy's side of spf's end-to-end benchmark (bench/src/end_to_end.rs runs it).

usage: python3 end_to_end.py JOB INPUT OUTPUT REPEAT [CHECK]

JOB is `coo_csr` (scipy.io.mmread(INPUT).tocsr(), then
scipy.sparse.save_npz(OUTPUT, ..., compressed=False)) or `csr_csc`
(scipy.sparse.load_npz(INPUT).tocsc(), then save_npz). Each of the REPEAT
runs is timed from before the read to after the write, in this process
(the interpreter and its imports are not timed). With CHECK, an .npz that
spf wrote, it is loaded and compared with scipy's own result (same shape,
same entries). Prints one JSON line: {"times": [...], "peak_kb": K,
"import_kb": K0, "check": true|false|null}: the process's peak resident
set and the resident set after the imports.
"""

import json
import resource
import sys
import time

import numpy as np
import scipy.io
import scipy.sparse as sp


def peak_kb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def main():
    job, src, dst, repeat = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    check = sys.argv[5] if len(sys.argv) > 5 else None
    import_kb = peak_kb()
    times = []
    result = None
    for _ in range(repeat):
        result = None
        t0 = time.perf_counter()
        if job == "coo_csr":
            result = scipy.io.mmread(src).tocsr()
        elif job == "csr_csc":
            result = sp.load_npz(src).tocsc()
        else:
            raise SystemExit(f"unknown job {job}")
        sp.save_npz(dst, result, compressed=False)
        times.append(time.perf_counter() - t0)
    same = None
    if check is not None:
        theirs = sp.load_npz(check)
        same = bool(theirs.shape == result.shape and (theirs != result).nnz == 0)
    print(json.dumps({"times": times, "peak_kb": peak_kb(), "import_kb": import_kb, "check": same}))


if __name__ == "__main__":
    main()
