"""numpy arrays are borrowed, not copied: a Tensor of contiguous arrays
shares their memory, a conversion reads its input in place and leaves it
as it was, and its result owns its memory; non-contiguous arrays are
copied and convert alike."""

import numpy as np
import pytest
import scipy.sparse as sp

import spf


def csc_arrays():
    # [[1, 0, 2], [0, 0, 3]] in CSC.
    return {
        "colptr": np.array([0, 1, 1, 3], dtype=np.int32),
        "row": np.array([0, 0, 1], dtype=np.int32),
        "A": np.array([1.0, 2.0, 3.0]),
    }


def random_csr(seed=7, shape=(40, 30), density=0.2):
    rng = np.random.default_rng(seed)
    return sp.random_array(shape, density=density, format="csr", rng=rng, dtype=np.float64)


def test_a_tensor_shares_the_memory_of_contiguous_arrays():
    arrays = csc_arrays()
    t = spf.Tensor(spf.Format("csc"), {"NR": 2, "NC": 3, "NNZ": 3}, arrays)
    for name, a in arrays.items():
        assert np.shares_memory(t.arrays[name], a), name
    # The tensor keeps them alive after the caller lets them go.
    want = {name: a.copy() for name, a in arrays.items()}
    del arrays
    for name, a in want.items():
        np.testing.assert_array_equal(t.arrays[name], a)


def test_a_tensor_copies_a_non_contiguous_array():
    arrays = csc_arrays()
    wide = np.array([1.0, -1.0, 2.0, -1.0, 3.0, -1.0])
    arrays["A"] = wide[::2]
    assert not arrays["A"].flags.c_contiguous
    t = spf.Tensor(spf.Format("csc"), {"NR": 2, "NC": 3, "NNZ": 3}, arrays)
    assert not np.shares_memory(t.arrays["A"], wide)
    assert np.shares_memory(t.arrays["row"], arrays["row"])
    np.testing.assert_array_equal(t.toarray(), [[1.0, 0.0, 2.0], [0.0, 0.0, 3.0]])


@pytest.mark.parametrize("engine", ["interp", "auto"])
def test_a_conversion_leaves_its_input_unchanged_and_owns_its_result(engine):
    arrays = csc_arrays()
    before = {name: a.copy() for name, a in arrays.items()}
    t = spf.Tensor(spf.Format("csc"), {"NR": 2, "NC": 3, "NNZ": 3}, arrays)
    out = spf.Converter("csc", "csr", engine=engine)(t)
    assert isinstance(out, sp.csr_array)
    np.testing.assert_array_equal(out.toarray(), [[1.0, 0.0, 2.0], [0.0, 0.0, 3.0]])
    for name, a in arrays.items():
        np.testing.assert_array_equal(a, before[name])
        for r in (out.indptr, out.indices, out.data):
            assert not np.shares_memory(r, a), name
    # The result is the caller's to write; the input stays as it was.
    out.data[:] = 0
    np.testing.assert_array_equal(arrays["A"], before["A"])


@pytest.mark.parametrize("engine", ["interp", "auto"])
def test_scipy_inputs_are_read_in_place_and_left_unchanged(engine):
    m = random_csr()
    before = (m.indptr.copy(), m.indices.copy(), m.data.copy())
    conv = spf.Converter("csr", "csc", engine=engine)
    for _ in range(2):
        out = conv(m)
        np.testing.assert_array_equal(out.toarray(), m.toarray())
        for a, b in zip((m.indptr, m.indices, m.data), before):
            np.testing.assert_array_equal(a, b)
        for r in (out.indptr, out.indices, out.data):
            for a in (m.indptr, m.indices, m.data):
                assert not np.shares_memory(r, a)


def test_non_contiguous_scipy_arrays_convert():
    m = random_csr(seed=3)
    # Every array a strided view of a wider one.
    data = np.repeat(m.data, 2)[::2]
    indices = np.repeat(m.indices, 2)[::2]
    indptr = np.repeat(m.indptr, 2)[::2]
    assert not (data.flags.c_contiguous or indices.flags.c_contiguous or indptr.flags.c_contiguous)
    strided = sp.csr_array((data, indices, indptr), shape=m.shape)
    for to in ("csc", "coo", "dcsr"):
        out = spf.convert(strided, to)
        np.testing.assert_array_equal(out.toarray(), m.toarray())
    np.testing.assert_array_equal(strided.toarray(), m.toarray())


def test_unsorted_scipy_input_is_sorted_in_a_copy():
    # Row 0's indices out of order: the reader sorts a copy, not the caller's.
    indptr = np.array([0, 2, 3], dtype=np.int32)
    indices = np.array([2, 0, 1], dtype=np.int32)
    data = np.array([2.0, 1.0, 3.0])
    m = sp.csr_array((data, indices, indptr), shape=(2, 3))
    m.has_sorted_indices = False
    out = spf.convert(m, "csc")
    np.testing.assert_array_equal(out.toarray(), [[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]])
    np.testing.assert_array_equal(indices, [2, 0, 1])
    np.testing.assert_array_equal(data, [2.0, 1.0, 3.0])
