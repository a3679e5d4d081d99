"""NaN and infinities: refused as spf.InputError by default, converted with
allow_nonfinite=True as scipy converts them (NaN where scipy has NaN), and
read from and written to files that keep them."""

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import spf


def with_nonfinite():
    """A 5 x 4 csr matrix holding NaN, both infinities and finite values."""
    row = np.array([0, 1, 2, 2, 3, 4, 4])
    col = np.array([0, 3, 1, 2, 0, 1, 3])
    val = np.array([np.nan, np.inf, -np.inf, 2.5, -1.0, np.nan, 7.0])
    return sp.csr_array((val, (row, col)), shape=(5, 4))


def same(a, b):
    """Equal dense arrays, NaN where the other has NaN."""
    a, b = np.asarray(a.toarray()), np.asarray(b.toarray())
    assert a.shape == b.shape
    assert np.array_equal(np.isnan(a), np.isnan(b))
    assert np.array_equal(a[~np.isnan(a)], b[~np.isnan(b)])


@pytest.mark.parametrize("to", ["csc", "coo", "dia", "ell", "dcsr"])
def test_nonfinite_values_convert_when_allowed(to):
    m = with_nonfinite()
    out = spf.convert(m, to, allow_nonfinite=True)
    same(out, sp.csr_array(m))
    assert np.isnan(out.toarray()).sum() == 2
    if to == "csc":
        want = m.tocsc()
        assert np.array_equal(out.indptr, want.indptr)
        assert np.array_equal(out.indices, want.indices)
        assert np.array_equal(np.isnan(out.data), np.isnan(want.data))


def test_nonfinite_values_are_refused_by_default():
    m = with_nonfinite()
    with pytest.raises(spf.InputError, match="allow-nonfinite"):
        spf.convert(m, "csc")
    with pytest.raises(spf.InputError, match="not a finite number"):
        spf.Converter("csr", "csc")(m)
    conv = spf.Converter("csr", "csc", allow_nonfinite=True)
    same(conv(m), m)
    # A coo input takes the coordinate readers' path.
    same(spf.convert(sp.coo_array(m), "csr", allow_nonfinite=True), m)
    with pytest.raises(spf.InputError, match="allow-nonfinite"):
        spf.convert(sp.coo_array(m), "csr")


def test_files_with_nonfinite_values(tmp_path):
    m = with_nonfinite()
    mtx = tmp_path / "m.mtx"
    scipy.io.mmwrite(str(mtx), sp.coo_matrix(m))
    with pytest.raises(spf.InputError, match="allow-nonfinite"):
        spf.load(mtx)
    t = spf.load(mtx, "csr", allow_nonfinite=True)
    same(t.to_scipy(), m)
    # Written as .npz and .mtx, read back by scipy and by spf.
    npz = tmp_path / "m.npz"
    spf.save(npz, t)
    same(sp.load_npz(str(npz)), m)
    out = tmp_path / "out.mtx"
    spf.save(out, t)
    same(sp.csr_array(scipy.io.mmread(str(out))), m)
    same(spf.load(out, allow_nonfinite=True).to_scipy(), m)
    # A scipy object saves with the keyword; JSON cannot carry them.
    spf.save(tmp_path / "s.npz", m, allow_nonfinite=True)
    same(sp.load_npz(str(tmp_path / "s.npz")), m)
    with pytest.raises(spf.InputError, match="not a finite number"):
        spf.save(tmp_path / "s2.npz", m)
    with pytest.raises(spf.InputError, match="JSON cannot carry"):
        spf.save(tmp_path / "m.json", t)
    assert not (tmp_path / "m.json").exists()
