//! `.npz` archives: which formats have scipy's layouts, the fixtures scipy
//! wrote (tests/data/npz, made by make_fixtures.py) read as instances that
//! store scipy's matrix, write-then-read round trips in both layouts, and
//! damaged or mismatched archives refused with a reason.

use std::collections::BTreeMap;
use std::io::Cursor;
use std::path::PathBuf;

use codegen::width::{IndexWidth, IndexWidths};
use synth::builtin::{builtin_names, load_format};
use synth::instance::{Instance, ValueType, Values};
use synth::instance_validation::validate;
use synth::npz::in_place::FilePages;
use synth::npz::layout::layout_of;
use synth::npz::{read_npz, read_npz_file, write_npz, NpzError, ReadFileError, Written};
use synth::oracle::entries;
use synth::Descriptor;

fn format(name: &str) -> Descriptor {
    load_format(name).expect("built-in")
}

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/npz")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The 4 × 6 matrix of make_fixtures.py.
fn expected() -> BTreeMap<Vec<i64>, f64> {
    [
        ((0, 0), 1.5),
        ((0, 3), 2.0),
        ((1, 1), -3.0),
        ((1, 5), 0.25),
        ((3, 0), 4.0),
        ((3, 2), 5.0),
        ((3, 5), 1e-300),
    ]
    .into_iter()
    .map(|((i, j), v)| (vec![i, j], v))
    .collect()
}

fn read(bytes: &[u8], d: &Descriptor) -> Result<Instance, NpzError> {
    read_npz(Cursor::new(bytes), d)
}

/// The nonzero entries an instance stores (padding zeros dropped).
fn nonzeros(d: &Descriptor, inst: &Instance) -> BTreeMap<Vec<i64>, f64> {
    let mut e = entries(d, inst).expect("readable");
    e.retain(|_, v| *v != 0.0);
    e
}

fn write(d: &Descriptor, inst: &Instance) -> (Vec<u8>, Written) {
    let mut out = Cursor::new(Vec::new());
    let written = write_npz(d, inst, &mut out).expect("written");
    (out.into_inner(), written)
}

#[test]
fn scipy_layouts_are_decided_by_shape() {
    let layouts: BTreeMap<&str, Option<&str>> = builtin_names()
        .iter()
        .map(|n| (*n, layout_of(&format(n)).map(|(l, _)| l.format)))
        .collect();
    for (name, want) in [
        ("csr", Some("csr")),
        ("ucsr", Some("csr")),
        ("csc", Some("csc")),
        ("coo", Some("coo")),
        ("bcsr", Some("bsr")),
        ("dia", Some("dia")),
        ("dcsr", None),
        ("ell", None),
        ("csf3", None),
        ("coo3d", Some("coo")),
        ("scoo3", Some("coo")),
    ] {
        assert_eq!(layouts[name], want, "{name}");
    }
    // A user's CSR with other names is scipy's csr too (the constraints
    // equal CSR's after renaming).
    let renamed = synth::descriptor_file::parse_descriptor(
        "format MyCSR { dense [R, C];
         map {[a, p, b] -> [i, j] : i = a && j = b && 0 <= a < R && ptr(a) <= p < ptr(a + 1) && j = idx(p)};
         data V : {[a, p, b] -> [p]} size K;
         uf ptr : {[x] : 0 <= x <= R} -> {[y] : 0 <= y <= K} nondecreasing;
         uf idx : {[x] : 0 <= x < K} -> {[y] : 0 <= y < C}; }",
    )
    .expect("parses");
    assert_eq!(layout_of(&renamed).map(|(l, _)| l.format), Some("csr"));
}

#[test]
fn scipy_fixtures_read_as_the_matching_formats() {
    for (file, name) in [
        ("csr32.npz", "csr"),
        ("csr64.npz", "csr"),
        ("csr32.npz", "ucsr"),
        ("csc.npz", "csc"),
        ("coo.npz", "coo"),
        ("bsr.npz", "bcsr"),
        ("dia.npz", "dia"),
    ] {
        let d = format(name);
        let inst = read(&fixture(file), &d).unwrap_or_else(|e| panic!("{file}: {e}"));
        validate(&d, &inst).unwrap_or_else(|e| panic!("{file} as {name}: {e}"));
        assert_eq!(nonzeros(&d, &inst), expected(), "{file} as {name}");
        // Written back in scipy's layout, read again: the same instance.
        let (bytes, written) = write(&d, &inst);
        assert!(matches!(written, Written::Scipy(_)), "{written:?}");
        assert_eq!(read(&bytes, &d).expect("reads back"), inst, "{file}");
    }
    // A 3-D COO array: `coords`, 3 × nnz.
    let coo3d = format("coo3d");
    let t = read(&fixture("coo3.npz"), &coo3d).expect("reads");
    validate(&coo3d, &t).expect("a valid COO3D");
    let want: BTreeMap<Vec<i64>, f64> = [
        (vec![0, 1, 2], 1.5),
        (vec![1, 2, 3], -2.0),
        (vec![1, 0, 0], 7.0),
    ]
    .into_iter()
    .collect();
    assert_eq!(nonzeros(&coo3d, &t), want);
    let (bytes, written) = write(&coo3d, &t);
    assert_eq!(written, Written::Scipy("coo"));
    assert_eq!(read(&bytes, &coo3d).expect("reads back"), t);
    let csr = read(&fixture("csr32.npz"), &format("csr")).expect("reads");
    assert_eq!(
        csr.arrays["rowptr"],
        Values::Int(vec![0, 2, 4, 4, 7].into())
    );
    assert_eq!(csr.symbols["NNZ"], 7);
}

#[test]
fn indices_are_written_at_32_bits_when_they_fit() {
    let d = format("csr");
    let (w32, w64) = (IndexWidth::W32, IndexWidth::W64);
    // The dtypes are the recorded widths, and writing keeps them.
    let inst = read(&fixture("csr64.npz"), &d).expect("reads");
    assert_eq!(inst.index_width, Some(IndexWidths::uniform(w64)));
    let narrow = read(&fixture("csr32.npz"), &d).expect("reads");
    assert_eq!(narrow.index_width, Some(IndexWidths::uniform(w32)));
    // int32 members are held at 32 bits, not widened, and go out as they
    // came; at 64 bits when the instance says so.
    for name in ["indptr", "indices"] {
        let ours = if name == "indptr" { "rowptr" } else { "col" };
        assert!(matches!(narrow.arrays[ours], Values::Int32(_)), "{name}");
        assert!(matches!(inst.arrays[ours], Values::Int(_)), "{name}");
    }
    let (bytes, _) = write(&d, &narrow);
    let back = read(&bytes, &d).expect("reads back");
    assert!(matches!(back.arrays["col"], Values::Int32(_)));
    assert_eq!(back, narrow);
    let mut widened = narrow.clone();
    widened.index_width = Some(IndexWidths::uniform(w64));
    let (bytes, _) = write(&d, &widened);
    assert!(!String::from_utf8_lossy(&bytes).contains("'descr': '<i4'"));
    let back = read(&bytes, &d).expect("reads back");
    assert!(matches!(back.arrays["col"], Values::Int(_)));
    assert_eq!(back, widened);
    let (bytes, _) = write(&d, &inst);
    assert!(!String::from_utf8_lossy(&bytes).contains("'descr': '<i4'"));
    // Without a record: 32 bits where every size fits.
    let mut free = inst.clone();
    free.index_width = None;
    let (bytes, _) = write(&d, &free);
    // The int32 dtype appears in the header of `indices.npy`.
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.contains("'descr': '<i4'"), "int32 indices");
    assert_eq!(
        read(&bytes, &d).expect("reads back").index_width,
        Some(IndexWidths::uniform(w32))
    );
    let mut wide = free.clone();
    wide.symbols.insert("NC".into(), 1 << 40);
    let (bytes, _) = write(&d, &wide);
    let text = String::from_utf8_lossy(&bytes);
    assert!(!text.contains("'descr': '<i4'"), "int64 indices past 2^31");
    wide.index_width = Some(IndexWidths::uniform(w64));
    assert_eq!(read(&bytes, &d).expect("reads back"), wide);
    // Positions and coordinates apart: each array at its kind's width,
    // read back as recorded (scipy's layout and the generic one).
    let mixed = IndexWidths {
        positions: w64,
        coordinates: w32,
    };
    for name in ["csr", "dcsr"] {
        let d = format(name);
        let mut inst = if name == "csr" {
            free.clone()
        } else {
            let mut t = Instance {
                format: "DCSR".into(),
                ..Instance::default()
            };
            for (k, v) in [("NR", 4), ("NC", 4), ("NP", 2), ("NNZ", 3)] {
                t.symbols.insert(k.into(), v);
            }
            for (k, v) in [
                ("rowidx", vec![0, 3]),
                ("rp", vec![0, 2, 3]),
                ("col", vec![1, 2, 0]),
            ] {
                t.arrays.insert(k.into(), Values::Int(v.into()));
            }
            t.arrays
                .insert("A".into(), Values::Real(vec![1.0, 2.0, 3.0].into()));
            t
        };
        validate(&d, &inst).expect("valid");
        inst.index_width = Some(mixed);
        let (bytes, _) = write(&d, &inst);
        let back = read(&bytes, &d).expect("reads back");
        assert_eq!(back, inst, "{name}");
    }
}

#[test]
fn other_formats_use_the_generic_layout() {
    let d = format("ell");
    let inst = Instance {
        format: "ELL".into(),
        symbols: [("NR", 2), ("NC", 3), ("W", 2)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
        arrays: [
            ("col".to_string(), Values::Int(vec![0, 2, 1, 1].into())),
            (
                "A".to_string(),
                Values::Real(vec![1.0, 2.0, 3.0, 0.0].into()),
            ),
        ]
        .into_iter()
        .collect(),
        index_width: None,
        value_type: Default::default(),
    };
    validate(&d, &inst).expect("a valid ELL");
    let (bytes, written) = write(&d, &inst);
    assert_eq!(written, Written::Generic(None));
    let back = read(&bytes, &d).expect("reads back");
    assert_eq!(
        back.index_width,
        Some(IndexWidths::uniform(IndexWidth::W32))
    );
    assert_eq!(
        Instance {
            index_width: None,
            value_type: Default::default(),
            ..back
        },
        inst
    );
    // Read as another format: refused, naming both.
    let e = read(&bytes, &format("csr")).unwrap_err().to_string();
    assert_eq!(
        e,
        "the archive holds an instance of ELL (spf's generic layout), not of CSR"
    );
    // A BCSR of odd extents cannot be scipy's bsr: generic, with the reason.
    let bcsr = format("bcsr");
    let mut odd = read(&fixture("bsr.npz"), &bcsr).expect("reads");
    odd.symbols.insert("NR".into(), 3);
    let (bytes, written) = write(&bcsr, &odd);
    assert!(
        matches!(&written, Written::Generic(Some(r)) if r.contains("multiples of the 2 × 2 block")),
        "{written:?}"
    );
    assert_eq!(read(&bytes, &bcsr).expect("reads back"), odd);
}

#[test]
fn damaged_and_mismatched_archives_are_refused() {
    let csr = format("csr");
    let good = fixture("csr32.npz");
    // Truncated: the zip directory is at the end.
    let e = read(&good[..good.len() / 2], &csr).unwrap_err();
    assert!(matches!(e, NpzError::Archive(_)), "{e}");
    assert!(read(b"not a zip", &csr).is_err());
    // Another scipy format than the named one.
    let e = read(&fixture("csc.npz"), &csr).unwrap_err().to_string();
    assert!(
        e.contains("scipy `csc` matrix, but CSR does not have scipy's `csc` layout")
            && e.contains("csc"),
        "{e}"
    );
    let e = read(&fixture("csr32.npz"), &format("dcsr"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("(the built-in formats with that layout: csr, ucsr)"),
        "{e}"
    );
    // A bsr of 3 × 3 blocks is not BCSR's 2 × 2.
    let e = read(&fixture("bsr3.npz"), &format("bcsr"))
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "the archive holds a scipy `bsr` matrix of 3 × 3 blocks, but BCSR stores 2 × 2 \
         blocks; name the source bcsr3x3 (BCSR with 3 × 3 blocks), or save it with \
         blocksize=(2, 2)"
    );
    // A bsr named as another format: the formats with its layout.
    let e = read(&fixture("bsr.npz"), &csr).unwrap_err().to_string();
    assert!(
        e.contains("but CSR does not have scipy's `bsr` layout of 2 × 2 blocks")
            && e.contains("(the built-in formats with that layout: bcsr)"),
        "{e}"
    );
    let e = read(&fixture("bsr3.npz"), &csr).unwrap_err().to_string();
    assert!(
        e.contains("(the built-in formats with that layout: bcsr3x3)"),
        "{e}"
    );
    // Real-valued indices: a dtype error naming the array.
    let e = read(&fixture("float_indices.npz"), &csr)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "array `indices` has dtype `<f8`, but an index array holds integers (int32 or int64)"
    );
    let inst = read(&good, &csr).expect("reads");
    let real_indices = {
        let mut broken = inst.clone();
        broken
            .arrays
            .insert("col".into(), Values::Real(vec![0.5; 7].into()));
        broken
    };
    let mut out = Cursor::new(Vec::new());
    assert!(write_npz(&csr, &real_indices, &mut out).is_err());
    // Wrong lengths and out-of-range indices read, and validation refuses
    // them (the CLI validates every instance it reads).
    let mut short = inst.clone();
    short
        .arrays
        .insert("rowptr".into(), Values::Int(vec![0, 2, 4, 7].into()));
    let (bytes, _) = write(&csr, &short);
    let back = read(&bytes, &csr).expect("reads");
    assert!(validate(&csr, &back).is_err());
    let mut far = inst;
    far.arrays
        .insert("col".into(), Values::Int(vec![0, 3, 1, 9, 0, 2, 5].into()));
    let (bytes, _) = write(&csr, &far);
    let e = validate(&csr, &read(&bytes, &csr).expect("reads")).unwrap_err();
    assert!(
        e.to_string().contains("col(3) = 9 is outside its range"),
        "{e}"
    );
    // Not an archive of either layout.
    let mut out = Cursor::new(Vec::new());
    {
        let mut zip = zip::ZipWriter::new(&mut out);
        zip.start_file("x.npy", zip::write::SimpleFileOptions::default())
            .expect("starts");
        zip.finish().expect("finishes");
    }
    let e = read(out.get_ref(), &csr).unwrap_err().to_string();
    assert!(e.contains("neither a scipy.sparse matrix"), "{e}");
}

mod damaged {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// Any byte changed or the archive cut anywhere: an error or an
        /// instance (for the CLI to validate), never a panic.
        #[test]
        fn damaged_archives_never_panic(
            file in 0usize..4,
            at in any::<usize>(),
            byte in any::<u8>(),
            cut in any::<bool>(),
        ) {
            let (name, d) = [("csr32.npz", "csr"), ("dia.npz", "dia"), ("bsr.npz", "bcsr"), ("coo.npz", "coo")][file];
            let mut bytes = fixture(name);
            let at = at % bytes.len();
            if cut {
                bytes.truncate(at);
            } else {
                bytes[at] = byte;
            }
            let d = format(d);
            if let Ok(inst) = read(&bytes, &d) {
                let _ = validate(&d, &inst);
            }
        }
    }
}

/// A [`FilePages`] that copies: a block of the global allocator holding
/// the file's bytes, as the contract asks (the mapping itself is the
/// `spf` binary's, tested there); it records the offset and alignment of
/// each block it gives.
#[derive(Default)]
struct CopyingPages(std::sync::Mutex<Vec<(u64, usize)>>);

impl CopyingPages {
    fn given(&self) -> Vec<(u64, usize)> {
        self.0.lock().expect("not poisoned").clone()
    }
}

// SAFETY: the block is the global allocator's, of `len` bytes at `align`,
// holding the file's bytes at `offset`.
unsafe impl FilePages for CopyingPages {
    fn map(
        &self,
        file: &std::fs::File,
        offset: u64,
        len: usize,
        align: usize,
    ) -> Option<std::ptr::NonNull<u8>> {
        use std::os::unix::fs::FileExt;
        let layout = std::alloc::Layout::from_size_align(len, align).ok()?;
        // SAFETY: `len` is at least `in_place::SMALLEST`, not zero.
        let p = std::ptr::NonNull::new(unsafe { std::alloc::alloc(layout) })?;
        // SAFETY: the block just allocated holds `len` bytes.
        let block = unsafe { std::slice::from_raw_parts_mut(p.as_ptr(), len) };
        if file.read_exact_at(block, offset).is_err() {
            // SAFETY: allocated above with this layout.
            unsafe { std::alloc::dealloc(p.as_ptr(), layout) };
            return None;
        }
        self.0.lock().expect("not poisoned").push((offset, align));
        Some(p)
    }
}

/// A CSR of `n` rows with 2 entries each (columns `i` and `i + 1` of an
/// `n + 1`-column matrix), its values `i + 0.5` and `-(i + 1)`.
fn wide_csr(n: usize) -> Instance {
    let rowptr: Vec<i64> = (0..=n as i64).map(|i| 2 * i).collect();
    let col: Vec<i64> = (0..n as i64).flat_map(|i| [i, i + 1]).collect();
    let a: Vec<f64> = (0..n)
        .flat_map(|i| [i as f64 + 0.5, -(i as f64 + 1.0)])
        .collect();
    Instance {
        format: "CSR".into(),
        symbols: [
            ("NR", n as i64),
            ("NC", n as i64 + 1),
            ("NNZ", 2 * n as i64),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect(),
        arrays: [
            ("rowptr".to_string(), Values::Int(rowptr.into())),
            ("col".to_string(), Values::Int(col.into())),
            ("A".to_string(), Values::Real(a.into())),
        ]
        .into_iter()
        .collect(),
        index_width: None,
        value_type: Default::default(),
    }
}

#[test]
fn aligned_members_are_read_in_place_and_equal_a_copy() {
    let d = format("csr");
    // 300,000 rows: `col` holds 600,000 int32 (2.4 MB) and `A` as many
    // float64, both over `in_place::SMALLEST`; `rowptr` too.
    let inst = wide_csr(300_000);
    let (bytes, _) = write(&d, &inst);
    let dir = tempfile::tempdir().expect("a directory");
    let path = dir.path().join("wide.npz");
    std::fs::write(&path, &bytes).expect("written");
    let pages = CopyingPages::default();
    let placed = read_npz_file(&path, &d, Some(&pages)).expect("read in place");
    let given = pages.given();
    assert_eq!(given.len(), 3, "rowptr, col and A: {given:?}");
    assert!(given
        .iter()
        .all(|&(offset, align)| offset % align as u64 == 0));
    let copied = read_npz_file(&path, &d, None).expect("read by copying");
    assert_eq!(placed, copied);
    assert_eq!(placed.arrays["col"], inst.arrays["col"]);
    assert_eq!(placed.arrays["A"], inst.arrays["A"]);
    assert!(matches!(placed.arrays["col"], Values::Int32(_)));
    validate(&d, &placed).expect("valid");

    // A flipped bit of a value is found by the member's checksum, as the
    // copying reader finds it.
    let mut damaged = bytes.clone();
    let at = bytes.len() / 2;
    damaged[at] ^= 0x10;
    std::fs::write(&path, &damaged).expect("written");
    let err = |pages: Option<&dyn FilePages>| match read_npz_file(&path, &d, pages) {
        Err(ReadFileError::Npz(e)) => e.to_string(),
        other => panic!("not refused: {:?}", other.map(|_| ())),
    };
    let (placed, copied) = (err(Some(&pages)), err(None));
    assert!(placed.contains("checksum"), "{placed}");
    assert!(copied.contains("checksum"), "{copied}");
}

#[test]
fn members_that_cannot_be_held_in_place_are_copied() {
    let d = format("csr");
    let inst = wide_csr(300_000);
    let dir = tempfile::tempdir().expect("a directory");
    // Written by zip without alignment after a member of one byte (which
    // shifts the values off their alignment), compressed, or small: none
    // is given to the allocator, and each reads as the instance.
    let (bytes, _) = write(&d, &inst);
    let mut unaligned = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let stored =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    unaligned.start_file("pad", stored).expect("started");
    std::io::Write::write_all(&mut unaligned, b"x").expect("written");
    let mut compressed = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let mut source = zip::ZipArchive::new(Cursor::new(&bytes)).expect("an archive");
    for k in 0..source.len() {
        let mut member = source.by_index(k).expect("a member");
        let name = member.name().to_string();
        let mut data = Vec::new();
        std::io::Read::read_to_end(&mut member, &mut data).expect("read");
        unaligned.start_file(name.clone(), stored).expect("started");
        std::io::Write::write_all(&mut unaligned, &data).expect("written");
        let deflated = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        compressed.start_file(name, deflated).expect("started");
        std::io::Write::write_all(&mut compressed, &data).expect("written");
    }
    let small = write(&d, &wide_csr(1000)).0;
    for (what, bytes, want) in [
        (
            "unaligned",
            unaligned.finish().expect("done").into_inner(),
            &inst,
        ),
        (
            "compressed",
            compressed.finish().expect("done").into_inner(),
            &inst,
        ),
        ("small", small, &wide_csr(1000)),
    ] {
        let path = dir.path().join(format!("{what}.npz"));
        std::fs::write(&path, &bytes).expect("written");
        let pages = CopyingPages::default();
        let read = read_npz_file(&path, &d, Some(&pages)).expect("read");
        assert_eq!(read.arrays, want.arrays, "{what}");
        assert_eq!(pages.given(), vec![], "{what}");
    }
}

/// An `.npy` file of dtype `dtype` holding `values` (a 1-d array).
fn npy_of<T: npyz::Serialize + npyz::AutoSerialize>(
    dtype: &str,
    values: impl ExactSizeIterator<Item = T>,
) -> Vec<u8> {
    use npyz::WriterBuilder as _;
    let mut buf = Vec::new();
    let mut w = npyz::WriteOptions::<T>::new()
        .dtype(npyz::DType::Plain(dtype.parse().expect("a dtype")))
        .shape(&[values.len() as u64])
        .writer(&mut buf)
        .begin_nd()
        .expect("a writer");
    w.extend(values).expect("written");
    w.finish().expect("finished");
    buf
}

/// The archive `bytes` again, each member (by name, with its `.npy`
/// bytes) replaced by what `member` gives, stored uncompressed.
fn rewritten(bytes: &[u8], member: impl Fn(&str, Vec<u8>) -> Vec<u8>) -> Vec<u8> {
    use std::io::Write as _;
    let mut source = zip::ZipArchive::new(Cursor::new(bytes)).expect("an archive");
    let mut out = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let stored =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for k in 0..source.len() {
        let mut file = source.by_index(k).expect("a member");
        let name = file.name().to_string();
        let mut raw = Vec::new();
        std::io::Read::read_to_end(&mut file, &mut raw).expect("read");
        let data = member(&name, raw);
        out.start_file(name, stored).expect("started");
        out.write_all(&data).expect("written");
    }
    out.finish().expect("done").into_inner()
}

/// Every way a member is read checks its checksum: a flipped bit in
/// float32 values (read through npyz), in int64 indices (read as they lie)
/// and in int32 indices is refused; unflipped, the archive reads.
#[test]
fn a_flipped_bit_is_refused_whatever_the_dtype() {
    let d = format("csr");
    let inst = wide_csr(50);
    let (bytes, _) = write(&d, &inst);
    // The archive again with `data` as float32 and `indptr` as int64.
    let rewritten = rewritten(&bytes, |name, raw| {
        let npy = npyz::NpyFile::new(&raw[..]).expect("an .npy");
        match name {
            "data.npy" => {
                let v: Vec<f64> = npy.into_vec().expect("reals");
                npy_of("<f4", v.iter().map(|&x| x as f32))
            }
            "indptr.npy" => {
                let v: Vec<i32> = npy.into_vec().expect("int32");
                npy_of("<i8", v.iter().map(|&x| i64::from(x)))
            }
            _ => raw,
        }
    });
    let back = read(&rewritten, &d).expect("unflipped, it reads");
    assert_eq!(back.arrays["rowptr"], inst.arrays["rowptr"]);
    // float32 values stay float32 (halves are exact in it).
    assert_eq!(back.value_type, ValueType::F32);
    assert!(matches!(back.arrays["A"], Values::Real32(_)));
    assert_eq!(
        back.arrays["A"].to_reals(),
        inst.arrays["A"].to_reals(),
        "halves are exact in f32"
    );
    let mut archive = zip::ZipArchive::new(Cursor::new(&rewritten)).expect("an archive");
    for name in ["data.npy", "indptr.npy", "indices.npy"] {
        let member = archive.by_name(name).expect("a member");
        let end = (member.data_start().expect("read") + member.size()) as usize;
        drop(member);
        // The last byte of the member: a value's.
        let mut bad = rewritten.clone();
        bad[end - 1] ^= 0x01;
        let e = read(&bad, &d).expect_err("a flipped bit").to_string();
        assert!(e.contains("checksum"), "{name}: {e}");
    }
}

/// A sink that keeps what is written and the largest single write.
#[derive(Default)]
struct Recorder {
    bytes: std::io::Cursor<Vec<u8>>,
    largest: usize,
}

impl std::io::Write for Recorder {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.largest = self.largest.max(buf.len());
        self.bytes.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl std::io::Seek for Recorder {
    fn seek(&mut self, pos: std::io::SeekFrom) -> std::io::Result<u64> {
        self.bytes.seek(pos)
    }
}

/// Large arrays reach the file in pieces of at most `WRITE_PIECE` bytes
/// (the page cache then takes small folios), whether written as they lie
/// (`A`'s float64) or encoded (`col` narrowed to int32), and read back
/// the same.
#[test]
fn large_members_are_written_in_pieces() {
    use synth::npz::arrays::WRITE_PIECE;
    let d = format("csr");
    let inst = wide_csr(300_000);
    let mut out = Recorder::default();
    write_npz(&d, &inst, &mut out).expect("written");
    assert!(out.largest <= WRITE_PIECE, "{} bytes at once", out.largest);
    let bytes = out.bytes.into_inner();
    // 4.8 MB of values alone: many pieces.
    assert!(bytes.len() > 20 * WRITE_PIECE, "{}", bytes.len());
    let back = read(&bytes, &d).expect("reads");
    assert_eq!(nonzeros(&d, &back), nonzeros(&d, &inst));
}

/// `wide_csr`'s archive with its `data` member replaced by `data`.
fn with_data(data: Vec<u8>) -> Vec<u8> {
    let (bytes, _) = write(&format("csr"), &wide_csr(2));
    rewritten(&bytes, |name, raw| {
        if name == "data.npy" {
            data.clone()
        } else {
            raw
        }
    })
}

/// Integer values are values: int64 ones are read as int64 values,
/// exactly, beyond 2^53 too; other integer dtypes become the doubles equal
/// to them, uint64 ones above 2^63 included, and one that no double
/// equals is refused naming it, never rounded.
#[test]
fn integer_values_are_read_exactly_or_refused() {
    let d = format("csr");
    let n = wide_csr(2).arrays["A"].len();
    let exact: Vec<u64> = (0..n).map(|k| (1u64 << 63) + ((k as u64) << 11)).collect();
    let back = read(&with_data(npy_of("<u8", exact.iter().copied())), &d).expect("exact values");
    let want: Vec<f64> = exact.iter().map(|&v| v as f64).collect();
    assert_eq!(back.arrays["A"], Values::Real(want.into()));
    let big: Vec<i64> = (0..n).map(|k| (1i64 << 53) + 1 + k as i64).collect();
    let back = read(&with_data(npy_of("<i8", big.iter().copied())), &d).expect("int64");
    assert_eq!(back.value_type, ValueType::I64);
    assert_eq!(back.arrays["A"], Values::Int(big.into()));
    let bytes = npy_of("<u8", (0..n).map(|k| (1u64 << 63) + 5 + k as u64));
    let e = read(&with_data(bytes), &d).expect_err("<u8").to_string();
    assert!(
        e.contains("holds the value 9223372036854775813 (element 0), which no double equals"),
        "{e}"
    );
}

/// A `dia` archive whose data is wider than the matrix (scipy allows it and
/// ignores the columns past the last) reads as scipy reads it: the same
/// instance as the fixture, the extra columns ignored whatever they hold.
#[test]
fn dia_data_wider_than_the_matrix_is_read_as_scipy_reads_it() {
    let d = format("dia");
    let bytes = fixture("dia.npz");
    let want = read(&bytes, &d).expect("the fixture reads");
    let wider = rewritten(&bytes, |name, raw| {
        if name != "data.npy" {
            return raw;
        }
        let npy = npyz::NpyFile::new(&raw[..]).expect("an .npy");
        let shape = npy.shape().to_vec();
        let v: Vec<f64> = npy.into_vec().expect("reals");
        let (rows, cols) = (shape[0] as usize, shape[1] as usize);
        let wider: Vec<f64> = (0..rows)
            .flat_map(|r| {
                v[r * cols..(r + 1) * cols]
                    .iter()
                    .copied()
                    .chain([7.0, -9.5, 3.25])
            })
            .collect();
        use npyz::WriterBuilder as _;
        let mut buf = Vec::new();
        let mut w = npyz::WriteOptions::<f64>::new()
            .default_dtype()
            .shape(&[rows as u64, cols as u64 + 3])
            .writer(&mut buf)
            .begin_nd()
            .expect("a writer");
        w.extend(wider).expect("written");
        w.finish().expect("finished");
        buf
    });
    let back = read(&wider, &d).expect("wider data reads");
    assert_eq!(nonzeros(&d, &back), nonzeros(&d, &want));
    assert_eq!(nonzeros(&d, &back), expected());
}

/// A 3 × 3 scipy bsr (scipy's `tobsr()` of a 3 × 3 matrix takes 3 × 3
/// blocks) reads as BCSR of its block shape, which the name `bcsr` becomes.
#[test]
fn a_bsr_of_any_block_shape_reads_as_bcsr_of_that_shape() {
    let bytes = fixture("bsr3.npz");
    assert_eq!(synth::npz::bsr_block(Cursor::new(&bytes)), Some((3, 3)));
    let derived = synth::npz::block_source(&format("bcsr"), (3, 3)).expect("derived");
    assert_eq!(derived, format("bcsr3x3"));
    assert!(synth::builtin::is_builtin(&derived));
    assert!(synth::npz::block_source(&format("bcsr"), (2, 2)).is_none());
    assert!(synth::npz::block_source(&format("csr"), (3, 3)).is_none());
    let inst = read(&bytes, &derived).expect("reads");
    validate(&derived, &inst).expect("valid");
    let eye: BTreeMap<Vec<i64>, f64> = (0..3).map(|i| (vec![i, i], 1.0)).collect();
    assert_eq!(nonzeros(&derived, &inst), eye);
    // BCSR's text with 2 × 2 blocks is BCSR, but for the name.
    let mut two = format("bcsr2x2");
    two.name = "BCSR".into();
    assert_eq!(two, format("bcsr"));
    // 1 × 1 blocks (what scipy gives a matrix of odd extents) are a csr's
    // arrays; a block of one row or column names what to do instead.
    // The 2 × 2 matrix with 1.0 at (0, 1) and 2.0 at (1, 0), one block
    // per block row.
    let one = |r: i64, c: i64, bcol: Vec<i64>, a: Vec<f64>| {
        let d = format(&format!("bcsr{r}x{c}"));
        let inst = Instance {
            format: d.name.clone(),
            symbols: [("NR", 2), ("NC", 2), ("NNZB", 2)]
                .map(|(k, v)| (k.to_string(), v))
                .into(),
            arrays: [
                ("browptr", Values::Int(vec![0, 1, 2].into())),
                ("bcol", Values::Int(bcol.into())),
                ("A", Values::Real(a.into())),
            ]
            .map(|(k, v)| (k.to_string(), v))
            .into(),
            index_width: None,
            value_type: Default::default(),
        };
        write(&d, &inst).0
    };
    assert_eq!(
        synth::npz::block_source(&format("bcsr"), (1, 1)),
        Some(format("csr"))
    );
    let csr = format("csr");
    let as_csr = read(&one(1, 1, vec![1, 0], vec![1.0, 2.0]), &csr).expect("a csr");
    validate(&csr, &as_csr).expect("valid");
    let want: BTreeMap<Vec<i64>, f64> = [(vec![0, 1], 1.0), (vec![1, 0], 2.0)].into();
    assert_eq!(nonzeros(&csr, &as_csr), want);
    let e = read(
        &one(1, 2, vec![0, 0], vec![0.0, 1.0, 2.0, 0.0]),
        &format("bcsr"),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains(
            "spf's BCSR converts blocks of two rows and two columns or more, and these \
                    are 1 × 2: save it as a csr (`tocsr()`), or save it with blocksize=(2, 2)"
        ),
        "{e}"
    );
    assert!(synth::npz::block_source(&format("bcsr"), (2, 1)).is_none());
    // The derived format writes scipy's layout of its blocks.
    let (again, written) = write(&derived, &inst);
    assert_eq!(written, Written::Scipy("bsr"));
    assert_eq!(read(&again, &derived).expect("reads back"), inst);
}

/// An instance whose arrays are written as they are (not validated), as
/// scipy writes a matrix whose indices it has not sorted.
fn unsorted(format: &str, symbols: &[(&str, i64)], arrays: &[(&str, Values)]) -> Vec<u8> {
    let inst = Instance {
        format: format.to_uppercase(),
        symbols: symbols.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        arrays: arrays
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
        index_width: None,
        value_type: Default::default(),
    };
    write(&self::format(format), &inst).0
}

/// scipy's csr, csc and bsr need not be sorted and may repeat an index,
/// and a coo may repeat a coordinate: the reader sorts each row and sums
/// the duplicates, as scipy's `sort_indices()` and `sum_duplicates()` do.
#[test]
fn unsorted_and_repeated_indices_read_as_scipy_means_them() {
    let real = |v: &[f64]| Values::Real(v.to_vec().into());
    let csr = format("csr");
    // Row 0: columns 2, 0, 2 (2 twice); row 2: 1, 0. An explicit zero stays.
    let bytes = unsorted(
        "csr",
        &[("NR", 3), ("NC", 3), ("NNZ", 5)],
        &[
            ("rowptr", Values::Int32(vec![0, 3, 3, 5].into())),
            ("col", Values::Int32(vec![2, 0, 2, 1, 0].into())),
            ("A", real(&[1.0, 2.0, 3.0, 0.0, 5.0])),
        ],
    );
    let inst = read(&bytes, &csr).expect("reads");
    validate(&csr, &inst).expect("sorted and summed");
    assert_eq!(inst.arrays["col"], Values::Int(vec![0, 2, 0, 1].into()));
    assert_eq!(inst.arrays["A"], real(&[2.0, 4.0, 5.0, 0.0]));
    assert_eq!(inst.symbols["NNZ"], 4);
    // csc: the same, by column.
    let csc = format("csc");
    let bytes = unsorted(
        "csc",
        &[("NR", 2), ("NC", 2), ("NNZ", 3)],
        &[
            ("colptr", Values::Int(vec![0, 3, 3].into())),
            ("row", Values::Int(vec![1, 0, 1].into())),
            ("A", real(&[1.0, 2.0, 3.0])),
        ],
    );
    let inst = read(&bytes, &csc).expect("reads");
    validate(&csc, &inst).expect("sorted and summed");
    let want: BTreeMap<Vec<i64>, f64> = [(vec![0, 0], 2.0), (vec![1, 0], 4.0)].into();
    assert_eq!(entries(&csc, &inst).expect("entries"), want);
    // bsr (what `tobsr(blocksize=(2, 2))` writes): block columns 1, 0.
    let bcsr = format("bcsr");
    let bytes = unsorted(
        "bcsr",
        &[("NR", 2), ("NC", 4), ("NNZB", 2)],
        &[
            ("browptr", Values::Int32(vec![0, 2].into())),
            ("bcol", Values::Int32(vec![1, 0].into())),
            ("A", real(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0])),
        ],
    );
    let inst = read(&bytes, &bcsr).expect("reads");
    validate(&bcsr, &inst).expect("sorted");
    assert_eq!(inst.arrays["bcol"], Values::Int32(vec![0, 1].into()));
    assert_eq!(
        inst.arrays["A"],
        real(&[5.0, 6.0, 7.0, 8.0, 1.0, 2.0, 3.0, 4.0])
    );
    // coo: a coordinate twice, summed into its first place.
    let coo = format("coo");
    let bytes = unsorted(
        "coo",
        &[("NR", 2), ("NC", 2), ("NNZ", 3)],
        &[
            ("row", Values::Int32(vec![1, 0, 1].into())),
            ("col", Values::Int32(vec![1, 0, 1].into())),
            ("A", real(&[1.0, 2.0, 3.0])),
        ],
    );
    let inst = read(&bytes, &coo).expect("reads");
    validate(&coo, &inst).expect("summed");
    assert_eq!(inst.arrays["row"], Values::Int32(vec![1, 0].into()));
    assert_eq!(inst.arrays["A"], real(&[4.0, 2.0]));
    // A sum beyond a double is refused, naming the coordinate.
    let bytes = unsorted(
        "csr",
        &[("NR", 1), ("NC", 3), ("NNZ", 2)],
        &[
            ("rowptr", Values::Int32(vec![0, 2].into())),
            ("col", Values::Int32(vec![2, 2].into())),
            ("A", real(&[f64::MAX, f64::MAX])),
        ],
    );
    let e = read(&bytes, &csr).unwrap_err().to_string();
    assert_eq!(
        e,
        "array `data` holds duplicates at (0, 2) (positions 0 and 1 of `indices`) that sum to \
         inf, beyond the range of a double"
    );
}
