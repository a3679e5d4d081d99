"""spf: sparse matrix and tensor format conversions, synthesized.

spf converts a sparse matrix or tensor from one storage format to another
with code it synthesizes from two format descriptors, validates, compiles
and caches. This package converts scipy.sparse arrays and matrices (and
n-dimensional coordinates) in memory::

    import scipy.sparse as sp
    import spf

    a = sp.random_array((1000, 1000), density=0.01, format="coo")
    b = spf.convert(a, "csr")          # a scipy csr_array
    d = spf.convert(a, "dcsr")         # an spf.Tensor: scipy has no DCSR
    d.arrays["rowidx"]                 # numpy views of spf's memory

See docs/python.md for every function.
"""

from __future__ import annotations

import threading
from typing import Any, Dict, Optional, Tuple, Union

import numpy as np
import scipy.sparse as _sp

from ._spf import (
    CheckReport,
    Error,
    Format,
    InputError,
    Tensor,
    TooLarge,
    UnsupportedConversion,
    ValidationError,
    synth,
)
from . import _spf

__all__ = [
    "CheckReport",
    "Converter",
    "Error",
    "Format",
    "Graph",
    "InputError",
    "Tensor",
    "TooLarge",
    "UnsupportedConversion",
    "ValidationError",
    "convert",
    "formats",
    "load",
    "pdfg",
    "save",
    "synth",
]

# The values spf holds; other dtypes are converted to the nearest of these.
_VALUE_DTYPES = (np.float64, np.float32, np.int64, np.int32)


_FORMATS = dict(_spf._formats())


def formats() -> Dict[str, str]:
    """The built-in formats: each name with what it is, in a line."""
    return dict(_FORMATS)


# Built-in formats by name, and the formats scipy's kinds read as, made
# once per process: a conversion's call then parses no descriptor. (A
# descriptor file is read each time it is named: it may have changed.)
_builtin_formats: Dict[str, Format] = {}
_scipy_formats: Dict[tuple, Format] = {}


def _format(f: Union[str, Format]) -> Format:
    if isinstance(f, Format):
        return f
    if isinstance(f, str):
        if f.lower() not in _FORMATS:
            return Format(f)
        got = _builtin_formats.get(f.lower())
        if got is None:
            got = _builtin_formats.setdefault(f.lower(), Format(f))
        return got
    raise TypeError(f"a format is a name, a descriptor's path or an spf.Format, not {type(f).__name__}")


def _index_array(what: str, a: Any) -> np.ndarray:
    """An index array as scipy holds it (int32 or int64), unchanged when it is."""
    a = np.asarray(a)
    if a.dtype in (np.int32, np.int64):
        return a
    if a.dtype.kind in "iu":
        info = np.iinfo(a.dtype)
        return a.astype(np.int32 if info.max <= np.iinfo(np.int32).max else np.int64)
    raise InputError(f"{what}: an index array of {a.dtype}; indices are integers")


def _value_array(what: str, a: Any) -> np.ndarray:
    """Values at their dtype when spf holds it (float64, float32, int64, int32)."""
    a = np.asarray(a)
    if a.dtype in _VALUE_DTYPES:
        return a
    if a.dtype.kind == "c":
        raise InputError(f"{what}: complex values ({a.dtype}); spf converts real and integer values")
    if a.dtype.kind == "b" or (a.dtype.kind in "iu" and a.dtype.itemsize < 4):
        return a.astype(np.int32)
    if a.dtype.kind in "iu":
        return a.astype(np.int64)
    if a.dtype.kind == "f":
        return a.astype(np.float64 if a.dtype.itemsize > 4 else np.float32)
    raise InputError(f"{what}: values of {a.dtype}; spf converts real and integer values")


def _scipy_arrays(a: Any) -> Tuple[str, Optional[Tuple[int, int]], list]:
    """A scipy object's arrays under the keys `save_npz` writes them at."""
    kind = a.format
    shape = np.asarray(a.shape, dtype=np.int64)
    what = f"the scipy {kind}"
    block = None
    if kind in ("csr", "csc"):
        arrays = [
            ("indptr", _index_array(f"{what}'s indptr", a.indptr)),
            ("indices", _index_array(f"{what}'s indices", a.indices)),
        ]
    elif kind == "bsr":
        block = tuple(int(x) for x in a.blocksize)
        arrays = [
            ("indptr", _index_array(f"{what}'s indptr", a.indptr)),
            ("indices", _index_array(f"{what}'s indices", a.indices)),
        ]
    elif kind == "coo":
        coords = getattr(a, "coords", None)
        if coords is None:
            coords = (a.row, a.col)
        if len(coords) == 2:
            arrays = [
                ("row", _index_array(f"{what}'s row", coords[0])),
                ("col", _index_array(f"{what}'s col", coords[1])),
            ]
        else:
            arrays = [("coords", _stacked(what, coords))]
    elif kind == "dia":
        arrays = [("offsets", _index_array(f"{what}'s offsets", a.offsets))]
    else:
        raise InputError(
            f"a scipy {kind} matrix: spf reads csr, csc, coo, bsr and dia (convert it with .tocsr())"
        )
    arrays.append(("data", _value_array(f"{what}'s data", a.data)))
    arrays.append(("shape", shape))
    return kind, block, arrays


def _stacked(what: str, coords) -> np.ndarray:
    rows = [_index_array(f"{what}'s coordinates", c) for c in coords]
    dtype = np.int64 if any(r.dtype == np.int64 for r in rows) else np.int32
    return np.stack([r.astype(dtype, copy=False) for r in rows]) if rows else np.zeros((0, 0), dtype)


def _scipy_input(a: Any):
    """A conversion's input as scipy's layout: (kind, block, ndim, arrays),
    for a scipy object or a `(coords, values, shape)` tuple; None for
    anything else."""
    if _sp.issparse(a):
        kind, block, arrays = _scipy_arrays(a)
        return kind, block, len(a.shape), arrays
    if isinstance(a, tuple) and len(a) == 3:
        coords, values, shape = a
        coords = np.asarray(coords)
        if coords.ndim != 2:
            raise InputError(f"coords has shape {coords.shape}; it is (ndim, nnz)")
        arrays = [
            ("coords", _stacked("the coordinates", list(coords))),
            ("data", _value_array("the values", values)),
            ("shape", np.asarray(shape, dtype=np.int64)),
        ]
        return "coo", None, len(shape), arrays
    return None


def _source_format(scipy, src: Optional[Union[str, Format]]) -> Format:
    kind, block, ndim, _ = scipy
    if src is not None:
        return _format(src)
    got = _scipy_formats.get((kind, block, ndim))
    if got is None:
        got = _scipy_formats.setdefault((kind, block, ndim), _spf._of_scipy(kind, block, ndim))
    return got


def _not_an_input(a: Any) -> TypeError:
    return TypeError(
        "spf converts a scipy.sparse array or matrix, an spf.Tensor or a (coords, values, shape) "
        f"tuple, not {type(a).__name__}"
    )


def _tensor(a: Any, src: Optional[Union[str, Format]], allow_nonfinite: bool = False) -> Tensor:
    """An input as a tensor: an spf.Tensor, a scipy object or a
    `(coords, values, shape)` tuple (NaN and infinities refused unless
    `allow_nonfinite`)."""
    if isinstance(a, Tensor):
        if src is not None and _format(src) != a.format:
            raise InputError(f"src={src!r}, but the tensor is in {a.format.name}")
        return a
    scipy = _scipy_input(a)
    if scipy is None:
        raise _not_an_input(a)
    return _spf._tensor_from_scipy(_source_format(scipy, src), scipy[0], scipy[3], allow_nonfinite)


def _run(conv, a: Any, scipy) -> Tensor:
    """Runs a converter on an input: a tensor, or scipy's arrays, which it
    takes without building a tensor first."""
    if scipy is None:
        return conv(a)
    return conv._convert_scipy(scipy[0], scipy[3])


def _is_matrix(a: Any) -> bool:
    return _sp.issparse(a) and not isinstance(a, _sp.sparray)


def _to_scipy(t: Tensor, matrix: bool, writable: bool):
    """The scipy object of a tensor, or None when it has no scipy layout."""
    layout = t._scipy(writable)
    kind, shape = layout[0], layout[1]
    if kind is None:
        return None
    arrays = {key: a.reshape(s) for key, s, a in layout[2]}
    shape = tuple(int(x) for x in shape)
    data = arrays["data"]
    if kind == "coo" and "coords" in arrays:
        coords = tuple(arrays["coords"])
        if matrix and len(coords) == 2:
            return _sp.coo_matrix((data, coords), shape=shape)
        return _sp.coo_array((data, coords), shape=shape)
    if kind == "coo":
        cls = _sp.coo_matrix if matrix else _sp.coo_array
        return cls((data, (arrays["row"], arrays["col"])), shape=shape)
    if kind in ("csr", "csc", "bsr"):
        cls = {
            "csr": (_sp.csr_array, _sp.csr_matrix),
            "csc": (_sp.csc_array, _sp.csc_matrix),
            "bsr": (_sp.bsr_array, _sp.bsr_matrix),
        }[kind][matrix]
        return cls((data, arrays["indices"], arrays["indptr"]), shape=shape)
    if kind == "dia":
        cls = _sp.dia_matrix if matrix else _sp.dia_array
        return cls((data, arrays["offsets"]), shape=shape)
    raise Error(f"spf gave a scipy layout {kind!r} this package does not know")


def _tensor_to_scipy(self: Tensor):
    """The tensor as a scipy sparse array (csr_array, coo_array, ...),
    sharing the tensor's memory (read-only) where scipy stores an array as
    spf does. Raises spf.Error when the format has no scipy layout."""
    s = _to_scipy(self, matrix=False, writable=False)
    if s is None:
        reason = self._scipy(False)[1]
        raise Error(
            f"{self.format.name} has no scipy layout"
            + (f" for this tensor: {reason}" if reason else "")
            + "; .to_coo() converts it to one"
        )
    return s


def _tensor_to_coo(self: Tensor):
    """The tensor's entries as a scipy coo_array (converted by spf)."""
    coo = "coo" if self.format.order == 2 else "coo3d"
    # A tensor passed its check when it was made: NaN and infinities in it
    # were accepted then, and its coordinates hold them.
    conv = _converter(self.format, _format(coo), {"allow_nonfinite": True})
    return _to_scipy(conv(self), matrix=False, writable=True)


def _tensor_toarray(self: Tensor) -> np.ndarray:
    """The tensor as a dense numpy array."""
    return self.to_coo().toarray()


class Converter:
    """The conversion from `src` to `dst`, synthesized, validated and
    compiled once; calling it converts any number of inputs (scipy objects,
    spf.Tensor or (coords, values, shape) tuples), from any thread.

    Options: ``engine`` ("auto", "native", "interp"), ``index_width``
    ("auto", 32, 64), ``verify`` (check every result, the default),
    ``cache_dir`` (where compiled conversions are kept), ``max_padding``
    (refuse, as spf.TooLarge, a conversion whose arrays would take more
    than that many times its input's bytes and more than 16 MiB; 16 by
    default, 0 for no limit) and ``allow_nonfinite`` (accept NaN and
    infinities among the values, which are refused as spf.InputError by
    default).
    """

    def __init__(self, src: Union[str, Format], dst: Union[str, Format], **options: Any) -> None:
        self.src = _format(src)
        self.dst = _format(dst)
        self._options = options
        self._inner = _spf._Converter(self.src, self.dst, **options)

    def __call__(self, a: Any):
        scipy = None if isinstance(a, Tensor) else _scipy_input(a)
        if scipy is None and not isinstance(a, Tensor):
            raise _not_an_input(a)
        if isinstance(a, Tensor) and a.format != self.src:
            raise InputError(f"the converter takes {self.src.name} tensors, not {a.format.name}")
        t = _run(self._inner, a, scipy)
        out = _to_scipy(t, _is_matrix(a), writable=True)
        return t if out is None else out

    @property
    def via(self) -> Optional[Format]:
        """The built-in format the conversion goes through when synthesis
        cannot make it directly (each step validated and its result
        checked); None for a direct conversion."""
        return self._inner.via

    def __repr__(self) -> str:
        return f"spf.Converter({self.src.name!r}, {self.dst.name!r})"


_converters: Dict[tuple, Any] = {}
_converters_lock = threading.Lock()


def _converter(src: Format, dst: Format, options: Dict[str, Any]):
    """The converter of a pair and options, made once per process."""
    key = (src, dst, tuple(sorted(options.items())))
    with _converters_lock:
        conv = _converters.get(key)
    if conv is None:
        conv = _spf._Converter(src, dst, **options)
        with _converters_lock:
            conv = _converters.setdefault(key, conv)
    return conv


def convert(
    a: Any,
    to: Union[str, Format],
    *,
    src: Optional[Union[str, Format]] = None,
    index_width: Union[str, int] = "auto",
    verify: bool = True,
    max_padding: int = 16,
    allow_nonfinite: bool = False,
    threads: Optional[int] = None,
):
    """Converts `a` to the format `to`.

    `a` is a scipy.sparse array or matrix (coo, csr, csc, bsr, dia), an
    spf.Tensor, or a tuple (coords, values, shape) of n-dimensional
    coordinates (coords an (ndim, nnz) integer array). `to` is a built-in
    name ("csr", "dcsr", ...) or an spf.Format. `src` reads `a` as another
    format of the same layout (a csr as "ucsr").

    Returns a scipy object of the input's kind (array in, array out;
    matrix in, matrix out) when `to` has a scipy layout, else an
    spf.Tensor. Values keep their dtype; index arrays are int32 when the
    sizes fit (`index_width` 32 or 64 fixes them). A conversion whose
    arrays would take more than `max_padding` times the input's bytes (and
    more than 16 MiB) is refused as spf.TooLarge before it allocates them:
    mostly padding, such as DIA of a matrix with thousands of diagonals (0
    is no limit). Values that are not finite (NaN, infinities) are
    refused as spf.InputError unless `allow_nonfinite` is true; then they
    convert as any other value (the result holds them where the input
    does). The conversion runs on one thread: `threads` is None or 1.
    """
    if threads not in (None, 1):
        raise ValueError(f"threads={threads!r}: spf's conversions run on one thread (None or 1)")
    dst = _format(to)
    options = {"verify": bool(verify), "max_padding": int(max_padding)}
    if allow_nonfinite:
        options["allow_nonfinite"] = True
    if index_width != "auto":
        options["index_width"] = index_width
    if isinstance(a, Tensor):
        out = _converter(_tensor(a, src).format, dst, options)(a)
    else:
        scipy = _scipy_input(a)
        if scipy is None:
            raise _not_an_input(a)
        out = _run(_converter(_source_format(scipy, src), dst, options), a, scipy)
    s = _to_scipy(out, _is_matrix(a), writable=True)
    return out if s is None else s


def save(path, a, *, allow_nonfinite: bool = False) -> None:
    """Writes `a` (an spf.Tensor or a scipy object) to the file at `path`,
    its kind told by the name: `.npz` (scipy's save_npz layout where the
    format has one, spf's own otherwise), `.mtx`, `.tns`, `.json`, and
    `.gz` of the last three. The file is replaced whole or not at all.
    A scipy object holding NaN or infinities is refused unless
    `allow_nonfinite`; `.npz`, `.mtx` and `.tns` keep them, JSON cannot
    and is refused."""
    _spf.save(path, _tensor(a, None, allow_nonfinite))


def load(
    path, format: Optional[Union[str, Format]] = None, *, allow_nonfinite: bool = False
) -> Tensor:
    """The tensor in the file at `path`: `.mtx` (Matrix Market), `.tns`
    (FROSTT), `.npz` (scipy's save_npz layout or spf's own) or JSON, gzip
    compressed or not. `format` is the format to read it as; by default a
    coordinate file reads as COO (COO3D for a 3-D .tns), an .npz as the
    format it holds. Values that are not finite (`nan`, `inf`, `-inf`,
    `infinity` in a .mtx or .tns; NaN and infinities in an .npz) are
    refused as spf.InputError unless `allow_nonfinite` is true."""
    if format is None:
        format = _format_of_file(str(path))
    return _spf._load(path, _format(format), bool(allow_nonfinite))


def _format_of_file(path: str) -> Format:
    name = path[:-3] if path.endswith(".gz") else path
    if name.endswith(".npz"):
        with np.load(path) as z:
            if "format" in z:
                kind = z["format"].item()
                kind = kind.decode() if isinstance(kind, bytes) else str(kind)
                block = tuple(int(x) for x in z["data"].shape[1:]) if kind == "bsr" else None
                return _spf._of_scipy(kind, block, len(z["shape"]))
            if "spf_format" in z:
                kind = z["spf_format"].item()
                return Format(kind.decode() if isinstance(kind, bytes) else str(kind))
        raise InputError(f"{path}: neither a scipy.sparse archive nor an spf instance; name its format")
    if name.endswith(".tns"):
        return Format("coo3d")
    if name.endswith(".mtx"):
        return Format("coo")
    raise InputError(f"{path}: name the format to read it as (spf.load(path, format=...))")


class Graph:
    """The polyhedral dataflow graph of a conversion: `.dot` (Graphviz) and
    `.svg`; a notebook shows it."""

    def __init__(self, dot: str, svg: str) -> None:
        self.dot = dot
        self.svg = svg

    def _repr_svg_(self) -> str:
        return self.svg

    def __repr__(self) -> str:
        return f"<spf.Graph: {self.dot.count('->')} edges>"


def pdfg(src: Union[str, Format], dst: Union[str, Format]) -> Graph:
    """The polyhedral dataflow graph of the conversion from `src` to `dst`."""
    return Graph(*_spf._pdfg(_format(src), _format(dst)))


_synth = synth


def synth(src: Union[str, Format], dst: Union[str, Format], emit: str = "c", index_width: int = 64) -> str:  # noqa: F811
    """The synthesized conversion from `src` to `dst` as text: `emit` is
    "c", "rust", "ir" (the computation) or "dot" (its dataflow graph)."""
    return _synth(_format(src), _format(dst), emit, index_width)
