"""Conversions of scipy objects through spf, checked against scipy itself:
every built-in 2-D format, every scipy kind and value dtype, the edge
shapes, scipy's non-canonical objects, n-D coordinates, and random
matrices through random pairs (hypothesis)."""

import pathlib
import threading

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import spf

ROOT = pathlib.Path(__file__).resolve().parents[2]
MATRICES = ROOT / "tests" / "data" / "matrices"

TWO_D = [name for name in spf.formats() if spf.Format(name).order == 2]
THREE_D = [name for name in spf.formats() if spf.Format(name).order == 3]


def dense(m):
    """A scipy object or spf tensor as a dense float64 array."""
    return np.asarray(m.toarray(), dtype=np.float64)


def storable(name, m):
    """`m` (a scipy matrix) restricted to what `name` can store: a
    skyline's triangle, 2:4 blocks (the formats that refuse other
    entries, naming them)."""
    m = sp.coo_array(m)
    keep = np.ones(m.nnz, dtype=bool)
    if name == "skyl":
        keep = m.row >= m.col
    elif name == "skyu":
        keep = m.row <= m.col
    elif name == "nm24":
        seen = {}
        for k, (i, j) in enumerate(zip(m.row, m.col)):
            block = (i, j // 4)
            seen[block] = seen.get(block, 0) + 1
            keep[k] = seen[block] <= 2
    return sp.coo_array((m.data[keep], (m.row[keep], m.col[keep])), shape=m.shape)


@pytest.fixture(scope="module")
def sample():
    """A real matrix (dwt_2680's leading 300 × 300 block) with a
    rectangular cut, so rows and columns differ."""
    m = sp.csr_array(scipy.io.mmread(MATRICES / "dwt_2680.mtx"))
    return m[:300, :250]


def test_formats_lists_every_builtin_with_a_description():
    f = spf.formats()
    assert {"coo", "csr", "csc", "dia", "ell", "bcsr", "csf3"} <= set(f)
    assert all(isinstance(d, str) and d for d in f.values())
    assert f["csc"] == "compressed sparse column"


@pytest.mark.parametrize("name", TWO_D)
def test_every_2d_builtin_from_csr_and_back(sample, name):
    a = sp.csr_array(storable(name, sample))
    b = spf.convert(a, name)
    back = spf.convert(b, "csr")
    assert isinstance(back, sp.csr_array)
    np.testing.assert_array_equal(dense(back), dense(a))
    # The converted tensor stores the same entries, whatever its format.
    np.testing.assert_array_equal(dense(b), dense(a))


@pytest.mark.parametrize("kind", ["coo", "csr", "csc", "bsr", "dia"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32])
def test_every_scipy_kind_and_dtype_converts_and_keeps_its_dtype(sample, kind, dtype):
    base = sp.csr_array((sample * 8).astype(dtype))
    a = base.tobsr(blocksize=(2, 2)) if kind == "bsr" else base.asformat(kind)
    b = spf.convert(a, "csr")
    assert isinstance(b, sp.csr_array)
    assert b.dtype == np.dtype(dtype)
    assert b.indices.dtype == np.int32 and b.indptr.dtype == np.int32
    np.testing.assert_array_equal(b.toarray(), base.toarray())
    # And into the input's kind, from CSR.
    c = spf.convert(b, "bcsr" if kind == "bsr" else kind)
    assert c.format == kind and c.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(c.toarray(), base.toarray())


def test_arrays_give_arrays_and_matrices_give_matrices(sample):
    assert isinstance(spf.convert(sp.coo_array(sample), "csc"), sp.csc_array)
    m = spf.convert(sp.coo_matrix(sample), "csc")
    assert isinstance(m, sp.csc_matrix) and not isinstance(m, sp.sparray)
    assert isinstance(spf.convert(sp.csr_matrix(sample), "dia"), sp.dia_matrix)


def test_a_format_without_a_scipy_layout_gives_a_tensor(sample):
    t = spf.convert(sample, "dcsr")
    assert isinstance(t, spf.Tensor)
    assert t.format.name == "DCSR" and t.shape == sample.shape
    assert set(t.arrays) == {"rowidx", "rp", "col", "A"}
    assert t.nnz == sample.nnz
    np.testing.assert_array_equal(t.toarray(), sample.toarray())


@pytest.mark.parametrize(
    "shape, entries",
    [
        ((0, 0), []),
        ((5, 7), []),
        ((1, 1), [(0, 0, 2.5)]),
        ((1, 9), [(0, 3, 1.0), (0, 8, -2.0)]),
        ((9, 1), [(4, 0, 1.0), (0, 0, 3.0)]),
    ],
)
@pytest.mark.parametrize("to", ["csr", "csc", "coo", "dia", "ell", "dcsr"])
def test_empty_single_and_one_sided_matrices(shape, entries, to):
    rows = np.array([e[0] for e in entries], dtype=np.int32)
    cols = np.array([e[1] for e in entries], dtype=np.int32)
    vals = np.array([e[2] for e in entries], dtype=np.float64)
    a = sp.coo_array((vals, (rows, cols)), shape=shape)
    b = spf.convert(a, to)
    assert b.shape == shape
    np.testing.assert_array_equal(dense(b), a.toarray())


def test_unsorted_indices_are_read_as_scipy_means_them():
    # Row 0 lists columns 2, 0; row 1 is empty; row 2 lists 3, 1.
    a = sp.csr_array(
        (np.array([1.0, 2.0, 3.0, 4.0]), np.array([2, 0, 3, 1]), np.array([0, 2, 2, 4])),
        shape=(3, 4),
    )
    assert not a.has_sorted_indices
    for to in ["csr", "csc", "coo", "dcsr", "ell"]:
        np.testing.assert_array_equal(dense(spf.convert(a, to)), a.toarray())
    b = spf.convert(a, "csr")
    assert b.has_sorted_indices


def test_tobsr_gives_unsorted_blocks_that_convert(sample):
    a = sp.csr_array(sample).tobsr(blocksize=(3, 2))
    b = spf.convert(a, "csr")
    np.testing.assert_array_equal(b.toarray(), sample.toarray())


def test_duplicates_are_summed():
    a = sp.coo_array(
        (np.array([1.0, 2.0, 4.0]), (np.array([0, 0, 1]), np.array([1, 1, 0]))), shape=(2, 2)
    )
    assert a.nnz == 3
    b = spf.convert(a, "csr")
    assert b.nnz == 2
    np.testing.assert_array_equal(b.toarray(), [[0.0, 3.0], [4.0, 0.0]])
    c = sp.csr_array((np.array([1.0, 5.0]), np.array([1, 1]), np.array([0, 2, 2])), shape=(2, 2))
    np.testing.assert_array_equal(spf.convert(c, "csc").toarray(), [[0.0, 6.0], [0.0, 0.0]])


def test_explicit_zeros_are_kept():
    a = sp.csr_array((np.array([0.0, 2.0]), np.array([0, 1]), np.array([0, 1, 2])), shape=(2, 2))
    b = spf.convert(a, "csc")
    assert b.nnz == 2
    assert sorted(b.data.tolist()) == [0.0, 2.0]


def test_src_reads_a_csr_as_ucsr():
    a = sp.csr_array((np.array([1.0, 2.0]), np.array([1, 0]), np.array([0, 2, 2])), shape=(2, 2))
    b = spf.convert(a, "csc", src="ucsr")
    np.testing.assert_array_equal(b.toarray(), a.toarray())


def test_three_dimensional_coordinates_into_csf3_and_back():
    rng = np.random.default_rng(7)
    shape = (6, 5, 4)
    flat = rng.choice(np.prod(shape), size=30, replace=False)
    coords = np.stack(np.unravel_index(flat, shape))
    values = rng.standard_normal(30)
    t = spf.convert((coords, values, shape), "csf3")
    assert isinstance(t, spf.Tensor) and t.shape == shape and t.nnz == 30
    back = spf.convert(t, "coo3d")
    assert isinstance(back, sp.coo_array) and back.shape == shape
    expected = np.zeros(shape)
    expected[tuple(coords)] = values
    np.testing.assert_array_equal(back.toarray(), expected)
    np.testing.assert_array_equal(t.toarray(), expected)


def test_a_converter_is_made_once_and_used_from_many_threads(sample):
    conv = spf.Converter("coo", "csc")
    inputs = [sp.coo_array(sample * (k + 1)) for k in range(8)]
    results = [None] * len(inputs)

    def work(k):
        results[k] = conv(inputs[k])

    threads = [threading.Thread(target=work, args=(k,)) for k in range(len(inputs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for a, b in zip(inputs, results):
        np.testing.assert_array_equal(b.toarray(), a.toarray())


def test_index_width_64_gives_int64_indices(sample):
    b = spf.convert(sample, "csc", index_width=64)
    assert b.indices.dtype == np.int64 and b.indptr.dtype == np.int64


# Formats every matrix can be stored in (no triangle or block limits).
GENERAL = [n for n in TWO_D if n not in ("skyl", "skyu", "nm24")]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.integers(0, 12),
    cols=st.integers(0, 12),
    density=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**32 - 1),
    kind=st.sampled_from(["coo", "csr", "csc", "dia"]),
    src=st.sampled_from(GENERAL),
    dst=st.sampled_from(GENERAL),
)
def test_random_matrices_through_random_pairs(rows, cols, density, seed, kind, src, dst):
    a = sp.random_array((rows, cols), density=density, format=kind, rng=seed)
    via = spf.convert(a, src)
    b = spf.convert(via, dst)
    np.testing.assert_array_equal(dense(b), a.toarray())


# Every scipy kind at every value dtype into every 2-D built-in and back:
# in the interpreter, which needs no compile per pair and value type (the
# compiled engine runs every format at float64 above, every kind and dtype
# into CSR, and the same code at every value type in the Rust suite).
@pytest.mark.parametrize("name", TWO_D)
def test_every_scipy_kind_and_dtype_into_every_2d_builtin_and_back(name):
    rng = np.random.default_rng(11)
    base = storable(name, sp.random_array((12, 10), density=0.3, format="coo", rng=rng) * 50)
    into = {}
    for kind in ["coo", "csr", "csc", "bsr", "dia"]:
        src = "bcsr" if kind == "bsr" else kind
        into[kind] = spf.Converter(src, name, engine="interp")
    back = spf.Converter(name, "coo", engine="interp")
    for dtype in [np.float64, np.float32, np.int64, np.int32]:
        m = sp.csr_array(base.astype(dtype))
        for kind, conv in into.items():
            a = m.tobsr(blocksize=(2, 2)) if kind == "bsr" else m.asformat(kind)
            b = conv(a)
            c = back(b)
            assert c.dtype == np.dtype(dtype), (kind, dtype)
            np.testing.assert_array_equal(c.toarray(), m.toarray(), err_msg=f"{kind} {dtype}")
