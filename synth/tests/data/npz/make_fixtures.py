"""Writes the .npz fixtures of synth/tests/npz.rs with scipy.sparse.save_npz.

Run from this directory: python3 make_fixtures.py (scipy >= 1.8).
The matrix is 4 x 6 with 7 entries; the csr file is also written with
int64 indices, and a few files compressed (scipy's default)."""
import numpy as np
import scipy.sparse as sp

dense = np.array([
    [1.5, 0, 0, 2, 0, 0],
    [0, -3, 0, 0, 0, 0.25],
    [0, 0, 0, 0, 0, 0],
    [4, 0, 5, 0, 0, 1e-300],
])
a = sp.csr_array(dense)
sp.save_npz("csr32.npz", a, compressed=False)
b = sp.csr_array(dense)
b.indices = b.indices.astype(np.int64)
b.indptr = b.indptr.astype(np.int64)
sp.save_npz("csr64.npz", b, compressed=True)
sp.save_npz("csc.npz", sp.csc_array(dense), compressed=True)
sp.save_npz("coo.npz", sp.coo_array(dense), compressed=False)
sp.save_npz("bsr.npz", sp.bsr_array(dense, blocksize=(2, 2)), compressed=False)
sp.save_npz("bsr3.npz", sp.bsr_array(np.zeros((3, 3)) + np.eye(3), blocksize=(3, 3)), compressed=False)
sp.save_npz("dia.npz", sp.dia_array(dense), compressed=False)
print(sp.dia_array(dense).offsets)
# A 3-D COO array (scipy >= 1.15 writes its indices as `coords`).
t3 = np.zeros((2, 3, 4))
t3[0, 1, 2], t3[1, 2, 3], t3[1, 0, 0] = 1.5, -2.0, 7.0
sp.save_npz("coo3.npz", sp.coo_array(t3), compressed=False)
# Not scipy's output: a csr whose indices are floats (a dtype error).
np.savez("float_indices.npz", format=b"csr", shape=np.array(a.shape), data=a.data,
         indices=a.indices.astype(np.float64), indptr=a.indptr)
