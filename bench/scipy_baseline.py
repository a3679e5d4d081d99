"""scipy.sparse baseline of the spf benchmark (bench/src/scipy.rs runs it).

usage: python3 scipy_baseline.py JOB.json

JOB.json: {"source": "coo"|"csr"|"csc", "target": "csr"|"csc"|"dia",
"shape": [NR, NC], "repeat": N, "dir": DIR}. DIR holds the input as raw
little-endian arrays: row.bin, col.bin (int64) and val.bin (float64) for
COO; ptr.bin, idx.bin (int64) and val.bin for CSR/CSC. The matrix object is
built before the timer starts; each of the N runs times the conversion
alone (`tocsr`, `tocsc`, `todia`), as the generated converters are timed.
The last run's output is written to DIR as out_*.bin (int64 indices,
float64 values) and one JSON line is printed: {"times": [...], "files":
{...}, "data_shape": [...]}.
"""

import json
import os
import sys
import time

import numpy as np
import scipy.sparse as sp


def main():
    with open(sys.argv[1]) as f:
        job = json.load(f)
    d = job["dir"]
    shape = tuple(job["shape"])

    def load(name, dtype):
        return np.fromfile(os.path.join(d, name), dtype=dtype)

    val = load("val.bin", np.float64)
    if job["source"] == "coo":
        m = sp.coo_matrix((val, (load("row.bin", np.int64), load("col.bin", np.int64))), shape=shape)
    elif job["source"] == "csr":
        m = sp.csr_matrix((val, load("idx.bin", np.int64), load("ptr.bin", np.int64)), shape=shape)
    else:
        m = sp.csc_matrix((val, load("idx.bin", np.int64), load("ptr.bin", np.int64)), shape=shape)
    convert = {"csr": m.tocsr, "csc": m.tocsc, "dia": m.todia}[job["target"]]

    times = []
    out = None
    for _ in range(max(1, job["repeat"])):
        out = None
        t0 = time.perf_counter()
        out = convert()
        times.append(time.perf_counter() - t0)

    files = {}

    def save(name, array, dtype):
        path = os.path.join(d, "out_" + name + ".bin")
        np.ascontiguousarray(array, dtype=dtype).tofile(path)
        files[name] = path

    data_shape = []
    if job["target"] == "dia":
        save("offsets", out.offsets, np.int64)
        save("data", out.data, np.float64)
        data_shape = list(out.data.shape)
    else:
        save("indptr", out.indptr, np.int64)
        save("indices", out.indices, np.int64)
        save("data", out.data, np.float64)
    print(json.dumps({"times": times, "files": files, "data_shape": data_shape}))


if __name__ == "__main__":
    main()
