"""scipy.sparse <-> spf through .npz: run by tests/cli_npz.rs as
`python3 scipy_round_trip.py SPF DIR`. For each scipy format spf has
(csr, csc, coo, bsr, dia), at int32 and int64 indices, compressed or not:
scipy writes a random matrix with save_npz, spf converts it to a format
scipy lacks (DCSR, ELL) and back to scipy's format (and to another one),
and scipy's load_npz must give the same matrix. Prints one line per case;
exits 1 on the first difference."""
import os
import subprocess
import sys

import numpy as np
import scipy.sparse as sp

spf, out = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(7)


def run(*args):
    r = subprocess.run([spf, *args], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"spf {' '.join(args)} failed: {r.stderr}")


def same(a, b, what):
    a, b = sp.csr_array(a), sp.csr_array(b)
    if a.shape != b.shape or (a - b).count_nonzero() != 0:
        sys.exit(f"{what}: scipy reads another matrix back")
    print(f"{what}: same {a.shape} matrix, {a.nnz} entries")


# (scipy format, spf format of the same layout, how scipy builds it)
cases = [
    ("csr", "csr", lambda m: sp.csr_array(m)),
    ("csc", "csc", lambda m: sp.csc_array(m)),
    ("coo", "coo", lambda m: sp.coo_array(m)),
    ("bsr", "bcsr", lambda m: sp.bsr_array(m, blocksize=(2, 2))),
    # Named bcsr, read as BCSR of 5 x 4 blocks (bcsr5x4).
    ("bsr", "bcsr", lambda m: sp.bsr_array(m, blocksize=(5, 4))),
    ("dia", "dia", lambda m: sp.dia_array(m)),
]
for fmt, name, build in cases:
    for wide in (False, True):
        dense = sp.random_array((10, 8), density=0.3, rng=rng).toarray()
        dense[2, :] = 0  # an empty row
        m = build(dense)
        # scipy builds bsr blocks unsorted: spf reads them sorted.
        if wide and fmt in ("csr", "csc", "bsr"):
            m.indices = m.indices.astype(np.int64)
            m.indptr = m.indptr.astype(np.int64)
        src = os.path.join(out, f"{fmt}{int(wide)}.npz")
        sp.save_npz(src, m, compressed=wide)
        for via in ("dcsr", "ell"):
            mid = os.path.join(out, f"{fmt}{int(wide)}.{via}.npz")
            back = os.path.join(out, f"{fmt}{int(wide)}.{via}.back.npz")
            run("convert", name, via, src, "-o", mid)
            run("convert", via, name, mid, "-o", back)
            r = sp.load_npz(back)
            if r.format != fmt:
                sys.exit(f"{back}: scipy reads a {r.format} matrix, not {fmt}")
            same(m, r, f"{fmt} (int{64 if wide else 32}) -> {via} -> {name}")
        csc = os.path.join(out, f"{fmt}{int(wide)}.csc.npz")
        run("convert", name, "csc", src, "-o", csc)
        same(m, sp.load_npz(csc), f"{fmt} -> csc")
print("all round trips agree")
