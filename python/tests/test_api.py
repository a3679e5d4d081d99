"""The rest of the package: formats and their checks, tensors and their
views, files, code and graphs, and every exception class."""

import pathlib

import numpy as np
import pytest
import scipy.sparse as sp

import spf

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"

# CSR under other names: a user's descriptor.
MY_CSR = """
format MYCSR {
    dense [R, C];
    map {[r, k, c] -> [i, j] : i = r && j = c && 0 <= r < R && ptr(r) <= k < ptr(r + 1) && j = idx(k)};
    data V : {[r, k, c] -> [k]} size N;
    uf ptr : {[x] : 0 <= x <= R} -> {[y] : 0 <= y <= N} nondecreasing;
    uf idx : {[x] : 0 <= x < N} -> {[y] : 0 <= y < C};
    forall r, k1, k2 : 0 <= r < R && ptr(r) <= k1 < k2 < ptr(r + 1) => idx(k1) < idx(k2);
}
"""


def small():
    return sp.csr_array(np.array([[1.0, 0.0, 2.0], [0.0, 0.0, 3.0]]))


def test_format_properties():
    f = spf.Format("csr")
    assert (f.name, f.order, f.dims) == ("CSR", 2, ["NR", "NC"])
    assert f.index_arrays == ["rowptr", "col"] and f.value_array == "A"
    assert "NNZ" in f.symbols
    assert f.scipy_format == "csr" and spf.Format("ucsr").scipy_format == "csr"
    assert spf.Format("dcsr").scipy_format is None
    assert spf.Format("CSR") == f and hash(spf.Format("CSR")) == hash(f)
    assert f != spf.Format("csc")


def test_a_users_format_from_text_converts_and_checks():
    f = spf.Format.from_text(MY_CSR)
    assert f.name == "MYCSR" and f.scipy_format == "csr"
    b = spf.convert(small(), f)
    assert isinstance(b, sp.csr_array)
    np.testing.assert_array_equal(b.toarray(), small().toarray())
    t = spf.convert(small(), "dcsr")
    np.testing.assert_array_equal(spf.convert(t, f).toarray(), small().toarray())


def test_a_pair_without_a_direct_conversion_is_routed_through_a_builtin():
    rcsr = spf.Format(str(DATA / "descriptors" / "rcsr.desc"))
    conv = spf.Converter(rcsr, "jad")
    assert conv.via == spf.Format("coo")
    assert spf.Converter("coo", "jad").via is None
    report = rcsr.check()
    assert report.holds
    routed = [p for p in report.pairs if p[:2] == ("RCSR", "JAD")]
    assert routed and routed[0][2], routed
    assert "converts through COO" in routed[0][3]


def test_check_reports_what_spf_check_prints():
    report = spf.Format("csc").check()
    assert report.holds and bool(report) and report.summary is None
    assert all(holds for holds, _ in report.properties)
    pairs = report.pairs
    assert ("CSC", "CSR", True) in [p[:3] for p in pairs]
    assert "CSC" in str(report)


def test_a_descriptor_validation_refutes_raises_validation_error():
    wrong = spf.Format(str(DATA / "descriptors" / "csr_pairs.desc"))
    assert not wrong.check().holds
    # CSRP -> COO has no route: validation's counterexample is raised.
    with pytest.raises(spf.ValidationError) as e:
        spf.Converter(wrong, "coo")
    assert "is wrong on the test tensor" in str(e.value)
    assert e.value.counterexample.startswith("%%MatrixMarket")
    assert isinstance(e.value, spf.Error) and isinstance(e.value, ValueError)


def test_tensor_arrays_are_read_only_views_of_the_tensor():
    t = spf.convert(small(), "dcsr")
    col = t.arrays["col"]
    assert not col.flags.writeable
    assert col.base is not None
    assert np.shares_memory(col, t.arrays["col"])
    with pytest.raises(ValueError):
        col[0] = 7
    assert t.symbols == {"NR": 2, "NC": 3, "NNZ": 3, "NP": 2}
    assert t.dtype == "float64" and t.shape == (2, 3)
    assert repr(t) == "<spf.Tensor DCSR 2 x 3>"


def test_tensor_to_scipy_shares_its_memory():
    t = spf.Tensor(
        spf.Format("csc"),
        {"NR": 2, "NC": 3, "NNZ": 3},
        {
            "colptr": np.array([0, 1, 1, 3], dtype=np.int32),
            "row": np.array([0, 0, 1], dtype=np.int32),
            "A": np.array([1.0, 2.0, 3.0]),
        },
    )
    s = t.to_scipy()
    assert isinstance(s, sp.csc_array)
    np.testing.assert_array_equal(s.toarray(), small().toarray())
    assert np.shares_memory(s.data, t.arrays["A"])
    with pytest.raises(spf.Error, match="no scipy layout"):
        spf.convert(small(), "ell").to_scipy()
    assert spf.convert(small(), "ell").to_coo().format == "coo"


def test_a_tensor_that_breaks_its_format_is_refused():
    with pytest.raises(spf.InputError, match="col"):
        spf.Tensor(
            spf.Format("csr"),
            {"NR": 1, "NC": 2, "NNZ": 1},
            {"rowptr": np.array([0, 1]), "col": np.array([5]), "A": np.array([1.0])},
        )


def test_load_and_save_every_kind(tmp_path):
    a = spf.load(DATA / "matrices" / "dwt_2680.mtx")
    assert a.format.name == "COO" and a.shape == (2680, 2680) and a.nnz == 25026
    csr = spf.convert(a, "csr")
    spf.save(tmp_path / "a.npz", csr)
    back = sp.load_npz(tmp_path / "a.npz")
    assert back.format == "csr" and (back != csr).nnz == 0
    assert spf.load(tmp_path / "a.npz").format.name == "CSR"
    d = spf.convert(csr, "dcsr")
    for name in ["d.npz", "d.json", "d.mtx", "d.mtx.gz"]:
        spf.save(tmp_path / name, d)
        fmt = None if name.endswith("npz") else "dcsr"
        again = spf.load(tmp_path / name, fmt)
        assert again.format.name == "DCSR"
        np.testing.assert_array_equal(again.toarray(), csr.toarray())


def test_bad_files_raise_input_error(tmp_path):
    with pytest.raises(spf.InputError, match="No such file"):
        spf.load(tmp_path / "missing.mtx")
    bad = tmp_path / "bad.mtx"
    bad.write_text("%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1.0\n")
    with pytest.raises(spf.InputError, match="bad.mtx:3"):
        spf.load(bad)


def test_synth_and_pdfg():
    c = spf.synth("coo", "csr")
    assert "#include <stdint.h>" in c
    assert "fn " in spf.synth("coo", "csr", emit="rust")
    assert "digraph" in spf.synth("coo", "csr", emit="dot")
    assert spf.synth("coo", "csr", emit="ir").strip()
    g = spf.pdfg("coo", "csr")
    assert g.svg.lstrip().startswith("<") and "<svg" in g._repr_svg_()
    assert g.dot.startswith("digraph")
    with pytest.raises(ValueError, match="emit"):
        spf.synth("coo", "csr", emit="java")


def test_sizes_beyond_the_available_memory_are_refused_before_they_are_filled(monkeypatch):
    # 3e9 rows: a rowptr the kernel would let spf reserve and kill it filling.
    huge = sp.coo_array((np.array([1.0]), (np.array([2_999_999_999]), np.array([0]))), shape=(3_000_000_000, 1))
    monkeypatch.setenv("SPF_MAX_MEMORY", "256M")
    with pytest.raises(spf.TooLarge, match=r"`rowptr` needs 22\.35 GiB \(3000000001 elements\), .* MiB available"):
        spf.convert(huge, "csr")


def test_a_conversion_that_would_be_mostly_padding_is_refused():
    # 2,000 rows, four entries each on scattered diagonals: DIA would hold
    # about 2,000 diagonals of 2,000 slots (32 MB) for 8,000 entries.
    n = 2000
    rows = np.repeat(np.arange(n), 4)
    cols = (rows * 7919 + np.tile(np.arange(4), n) * 1237) % n
    a = sp.coo_array((np.full(rows.size, 1.5), (rows, cols)), shape=(n, n)).tocsr()
    with pytest.raises(spf.TooLarge, match="more than 16 times its input's .*--max-padding 16 is the limit"):
        spf.convert(a, "dia")
    with pytest.raises(spf.TooLarge, match="more than 4 times"):
        spf.Converter("csr", "dia", max_padding=4)(a)
    b = spf.convert(a, "dia", max_padding=0)
    assert (b != a).nnz == 0


def test_every_exception_class():
    assert issubclass(spf.Error, ValueError)
    for cls in [spf.InputError, spf.UnsupportedConversion, spf.ValidationError, spf.TooLarge]:
        assert issubclass(cls, spf.Error)
    with pytest.raises(spf.InputError, match="did you mean `csr`"):
        spf.Format("cssr")
    with pytest.raises(spf.InputError, match="no `map` item"):
        spf.Format.from_text("format bad { dense [M]; }")
    with pytest.raises(spf.UnsupportedConversion, match="2 dense dimensions but CSF3 has 3"):
        spf.convert(small(), "csf3")
    with pytest.raises(spf.InputError, match="cannot be stored in SKYL"):
        spf.convert(sp.csr_array(np.array([[0.0, 1.0], [0.0, 0.0]])), "skyl")
    with pytest.raises(spf.InputError, match="outside its range"):
        spf.convert(sp.csr_array((np.array([1.0]), np.array([5]), np.array([0, 1])), shape=(1, 3)), "csc")
    with pytest.raises(spf.InputError, match="complex"):
        spf.convert(small().astype(np.complex128), "csc")
    huge = sp.coo_array((np.array([1.0]), (np.array([3_000_000_000]), np.array([0]))), shape=(3_000_000_001, 1))
    with pytest.raises(spf.TooLarge, match="more than 32-bit indices hold"):
        spf.convert(huge, "csr", index_width=32)
    with pytest.raises(TypeError, match="spf converts a scipy.sparse"):
        spf.convert([[1, 2]], "csr")
    with pytest.raises(ValueError, match="one thread"):
        spf.convert(small(), "csc", threads=4)
