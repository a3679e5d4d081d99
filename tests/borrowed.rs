//! Instances of the caller's memory: an [`InstanceView`] of slices, and
//! instances of shared `Arc<[T]>` arrays, read in place by the checks and
//! the conversions (compiled and interpreted), which never write them,
//! and whose results own their arrays. A counting allocator (this binary's
//! own) shows that a conversion copies no input array.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::Arc;

use spf::{ArrayRef, Converter, Engine, Format, Instance, InstanceView, Options};

mod common;

/// The system allocator, counting on each thread the allocations of the
/// size that thread watches ([`watching`]).
struct Counting;

thread_local! {
    /// The size watched (0: none) and how many allocations of it were made.
    static WATCH: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
}

// SAFETY: every call is the system allocator's; the count touches only a
// thread-local `Cell` without a destructor (no allocation, no reentry).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size);
        // SAFETY: the caller's contract, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn count(size: usize) {
    let _ = WATCH.try_with(|w| {
        let (watched, n) = w.get();
        if watched != 0 && size == watched {
            w.set((watched, n + 1));
        }
    });
}

/// How many allocations of `size` bytes `f` makes on this thread.
fn watching<T>(size: usize, f: impl FnOnce() -> T) -> (T, usize) {
    WATCH.with(|w| w.set((size, 0)));
    let out = f();
    let (_, n) = WATCH.with(|w| w.replace((0, 0)));
    (out, n)
}

fn format(name: &str) -> Format {
    Format::builtin(name).expect("a built-in format")
}

/// The engines to try: the interpreter, and the compiled engine when a C
/// compiler works (under CI it must).
fn engines(test: &str) -> Vec<Options> {
    let interp = Options {
        engine: Engine::Interp,
        ..Options::default()
    };
    let cc = std::process::Command::new("cc").arg("--version").output();
    let missing = (!cc.is_ok_and(|o| o.status.success())).then(|| "a C compiler (cc)".to_string());
    let mut all = vec![interp];
    if common::report::require("the compiled engine", missing) {
        all.push(Options {
            engine: Engine::Native,
            cache_dir: Some(common::temp("borrowed", test).join("cache")),
            ..Options::default()
        });
    }
    all
}

/// A CSR matrix of `nr` rows and `nc` columns, row `r` holding the columns
/// `(r * 7 + j * 3) % nc` for `j < r % 5` (sorted, distinct): rowptr, col
/// and values.
fn csr_arrays(nr: i32, nc: i32) -> (Vec<i32>, Vec<i32>, Vec<f64>) {
    let mut rowptr = vec![0];
    let mut col = Vec::new();
    for r in 0..nr {
        let mut cols: Vec<i32> = (0..r % 5).map(|j| (r * 7 + j * 3) % nc).collect();
        cols.sort_unstable();
        cols.dedup();
        col.extend(cols);
        rowptr.push(i32::try_from(col.len()).expect("fits"));
    }
    let values = (1..=col.len()).map(|v| v as f64 * 0.5).collect();
    (rowptr, col, values)
}

/// Whether any array of `out` lies at one of `inputs`' addresses.
fn aliases(out: &Instance, inputs: &[*const u8]) -> bool {
    out.arrays().any(|(_, a)| {
        let p = match a {
            ArrayRef::I32(s) => s.as_ptr().cast::<u8>(),
            ArrayRef::I64(s) => s.as_ptr().cast(),
            ArrayRef::F32(s) => s.as_ptr().cast(),
            ArrayRef::F64(s) => s.as_ptr().cast(),
        };
        !a.is_empty() && inputs.contains(&p)
    })
}

#[test]
fn a_view_reads_the_callers_slices_and_converts_as_an_owned_instance() {
    let (csr, coo, csc) = (format("csr"), format("coo"), format("csc"));
    let (nr, nc) = (211, 97);
    let (rowptr, col, values) = csr_arrays(nr, nc);
    let before = (rowptr.clone(), col.clone(), values.clone());
    let nnz = i64::try_from(col.len()).expect("fits");
    let view = InstanceView::builder(&csr)
        .symbol("NR", nr.into())
        .symbol("NC", nc.into())
        .symbol("NNZ", nnz)
        .array("rowptr", &rowptr)
        .array("col", col.as_slice())
        .array("A", &values)
        .build()
        .expect("a valid CSR matrix");
    let owned = view.to_instance();
    // The view's arrays are the caller's; the owned copy's are its own.
    for (name, p) in [
        ("rowptr", rowptr.as_ptr().cast::<u8>()),
        ("col", col.as_ptr().cast()),
        ("A", values.as_ptr().cast()),
    ] {
        let at = |i: &Instance| match i.array(name).expect("present") {
            ArrayRef::I32(s) => s.as_ptr().cast::<u8>(),
            ArrayRef::F64(s) => s.as_ptr().cast(),
            other => panic!("{name} held as {other:?}"),
        };
        assert_eq!(at(&view), p, "{name}");
        assert_ne!(at(&owned), p, "{name}");
    }
    assert_eq!(*view, owned);
    let inputs = [
        rowptr.as_ptr().cast(),
        col.as_ptr().cast(),
        values.as_ptr().cast(),
    ];
    for options in engines("view") {
        for dst in [&coo, &csc] {
            let to = Converter::new(&csr, dst, &options).expect("a conversion");
            let from_view = to.convert(&view).expect("converted");
            assert_eq!(from_view, to.convert(&owned).expect("converted"));
            assert_eq!(from_view.entries().unwrap(), owned.entries().unwrap());
            assert!(!aliases(&from_view, &inputs), "{:?}", options.engine);
            // The result outlives nothing it borrowed: a clone is equal.
            assert_eq!(from_view.clone(), from_view);
        }
    }
    drop(view);
    assert_eq!((rowptr, col, values), before);
}

#[test]
fn shared_arrays_are_read_in_place_and_never_written() {
    let (csr, csc) = (format("csr"), format("csc"));
    let (rowptr, col, values) = csr_arrays(150, 60);
    let nnz = i64::try_from(col.len()).expect("fits");
    let (rowptr, col): (Arc<[i32]>, Arc<[i32]>) = (rowptr.into(), col.into());
    let values: Arc<[f64]> = values.into();
    let a = Instance::builder(&csr)
        .symbol("NR", 150)
        .symbol("NC", 60)
        .symbol("NNZ", nnz)
        .array("rowptr", Arc::clone(&rowptr))
        .array("col", Arc::clone(&col))
        .array("A", Arc::clone(&values))
        .build()
        .expect("a valid CSR matrix");
    assert_eq!(a.array("col"), Some(ArrayRef::I32(&col)));
    let ArrayRef::I32(held) = a.array("col").unwrap() else {
        panic!("col at 32 bits")
    };
    assert_eq!(held.as_ptr(), col.as_ptr());
    // A clone shares the arrays too.
    let b = a.clone();
    let ArrayRef::F64(held) = b.array("A").unwrap() else {
        panic!("A at f64")
    };
    assert_eq!(held.as_ptr(), values.as_ptr());
    let before = (rowptr.to_vec(), col.to_vec(), values.to_vec());
    for options in engines("shared") {
        let to_csc = Converter::new(&csr, &csc, &options).expect("a conversion");
        let out = to_csc.convert(&a).expect("converted");
        assert_eq!(out.entries().unwrap(), a.entries().unwrap());
        let out = to_csc.convert_owned(b.clone()).expect("converted");
        assert_eq!(out.entries().unwrap(), a.entries().unwrap());
    }
    drop((a, b));
    assert_eq!((rowptr.to_vec(), col.to_vec(), values.to_vec()), before);
    assert_eq!(Arc::strong_count(&rowptr), 1);
}

/// No allocation of an input array's size is made by a conversion of an
/// instance (owned, or a view) whose arrays it reads at their width:
/// neither engine copies them. Of CSR into COO, whose arrays all have
/// `NNZ` entries, the row pointers' size (`NR + 1` entries) is the one no
/// result array has.
#[test]
fn a_conversion_copies_no_input_array() {
    let (csr, coo) = (format("csr"), format("coo"));
    // NR + 1 = 1009 entries (4036 bytes at 32 bits, 8072 at 64), NNZ
    // about 2000.
    let (nr, nc) = (1008, 331);
    let (rowptr, col, values) = csr_arrays(nr, nc);
    let nnz = i64::try_from(col.len()).expect("fits");
    let wide: Vec<i64> = rowptr.iter().map(|&x| i64::from(x)).collect();
    let wide_col: Vec<i64> = col.iter().map(|&x| i64::from(x)).collect();
    let narrow = Instance::builder(&csr)
        .symbol("NR", nr.into())
        .symbol("NC", nc.into())
        .symbol("NNZ", nnz)
        .array("rowptr", rowptr.clone())
        .array("col", col.clone())
        .array("A", values.clone())
        .build()
        .expect("valid");
    let view = InstanceView::builder(&csr)
        .symbol("NR", nr.into())
        .symbol("NC", nc.into())
        .symbol("NNZ", nnz)
        .array("rowptr", &wide)
        .array("col", &wide_col)
        .array("A", &values)
        .build()
        .expect("valid");
    for mut options in engines("copies") {
        for (input, bytes, width) in [
            (
                &narrow,
                4 * rowptr.len(),
                spf::codegen::width::IndexWidth::W32,
            ),
            (&*view, 8 * wide.len(), spf::codegen::width::IndexWidth::W64),
        ] {
            options.widths = spf::codegen::width::WidthChoices::uniform(
                spf::codegen::width::WidthChoice::Fixed(width),
            );
            let to_coo = Converter::new(&csr, &coo, &options).expect("a conversion");
            // The first conversion compiles (or loads) the library.
            let want = to_coo.convert(input).expect("converted");
            let (out, copies) = watching(bytes, || to_coo.convert(input).expect("converted"));
            assert_eq!(out, want);
            assert_eq!(
                copies, 0,
                "{:?} at {width}: {copies} allocations of the row pointers' {bytes} bytes",
                options.engine
            );
        }
    }
}
