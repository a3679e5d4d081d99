//! The runtime objects (`Permutation`, `OrderedSet`, `Scatter`;
//! docs/runtime.md) in every backend.
//!
//! Computations written in the `.comp` format call the objects; each is
//! scanned, run by the interpreter, printed as C and Rust, compiled and run
//! (through the backend harness) on random inputs — empty ones and ones full
//! of duplicate keys included — and all three must agree with a reference
//! written here: a stable sort by key (ties keep insertion order), Morton
//! codes built bit by bit, sets from `BTreeSet`, a scatter's positions from a
//! stable sort by key. The Rust runtime is also
//! checked in-process on many more inputs, the interpreter's typed errors
//! one by one, and the C and Rust runtimes' aborts on misuse.
//!
//! One test binary; this file holds the shared helpers and references, each
//! module one subject.

#[path = "../harness/mod.rs"]
mod harness;

mod errors;
mod generated_code;
mod key_views;
mod ordered_sets;
mod pointers_and_ranks;
mod rust_runtime;
mod scatter;
mod scatter_misuse;
mod sorts;

use codegen::ast::LoopProgram;
use codegen::c::emit_c;
use codegen::emit::EmitError;
use codegen::interp::{run, Array, Memory, RunError, Site};
use codegen::runtime::{CallError, ObjectFault};
use codegen::rust::emit_rust;
use iegen::computation::{parse_computation, Computation};
use iegen::UfEnvironment;

use harness::{Outputs, Rng};

fn computation(text: &str) -> Computation {
    parse_computation(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn scanned(c: &Computation) -> LoopProgram {
    codegen::scan(c, &UfEnvironment::new()).unwrap_or_else(|e| panic!("{e}"))
}

fn program(text: &str) -> LoopProgram {
    scanned(&computation(text))
}

fn ints(v: Vec<i64>) -> Array {
    Array::Int(v.into())
}

fn out_ints(outs: &mut Outputs, name: &str, v: Vec<i64>) {
    outs.insert(name.to_string(), Array::Int(v.into()));
}

// ---------------------------------------------------------------------------
// References

/// The entries `0..n` in stable order of `key`.
fn stable_order<K: Ord>(n: usize, key: impl Fn(usize) -> K) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&e| key(e)); // stable
    order
}

/// `interleave(k1, ..., kK)`: bit `b` of component `d` is bit `b·K + d`.
fn morton(key: &[i64]) -> u128 {
    let k = key.len();
    let mut code = 0u128;
    for (d, &v) in key.iter().enumerate() {
        assert!(v >= 0);
        for b in 0..63 {
            if (v >> b) & 1 == 1 {
                let bit = b * k + d;
                assert!(bit < 128, "the reference needs codes of at most 128 bits");
                code |= 1u128 << bit;
            }
        }
    }
    code
}

/// Random COO entries of an `n × m` matrix (duplicates likely when small).
struct Coo {
    n: usize,
    m: usize,
    row: Vec<i64>,
    col: Vec<i64>,
    val: Vec<f64>,
}

fn coo(n: usize, m: usize, nnz: usize, r: &mut Rng) -> Coo {
    assert!(nnz == 0 || n * m > 0);
    let row = (0..nnz).map(|_| r.below(n as u64) as i64).collect();
    let col = (0..nnz).map(|_| r.below(m as u64) as i64).collect();
    Coo {
        n,
        m,
        row,
        col,
        val: r.reals(nnz),
    }
}

/// Shapes: empty, one entry, tiny with many duplicates, larger.
const SHAPES: &[(usize, usize, usize)] = &[
    (0, 0, 0),
    (3, 4, 0),
    (1, 1, 1),
    (1, 1, 9),
    (2, 3, 25),
    (5, 7, 40),
    (9, 2, 60),
    (40, 33, 500),
];

fn coo_memory(c: &Coo) -> Memory {
    let nnz = c.row.len();
    Memory::new()
        .with_symbol("N", c.n as i64)
        .with_symbol("M", c.m as i64)
        .with_symbol("NNZ", nnz as i64)
        .with_array("row", ints(c.row.clone()))
        .with_array("col", ints(c.col.clone()))
        .with_array("val", Array::Real(c.val.clone().into()))
}

// ---------------------------------------------------------------------------
// Errors: what a call or a run reports (for the modules' error tests)

/// A computation over `x[N]`, `y[N]` and the object `DECL`, whose statement
/// `S0` (over `[i] : 0 <= i < N`) does `BODY`, after a statement `F0` (a
/// loop over `[i]` too) does `FIRST`.
fn with_object(decl: &str, first: &str, body: &str) -> LoopProgram {
    program(&format!(
        "computation e(N) {{
            in  int x[N];
            out int y[N];
            object P : {decl};
            F0: {first} domain {{[i] : 0 <= i < N}} schedule {{[i] -> [0, i, 0]}};
            S0: {body} domain {{[i] : 0 <= i < N}} schedule {{[i] -> [1, i, 0]}};
        }}"
    ))
}

fn run_error(p: &LoopProgram) -> RunError {
    let mut mem = Memory::new()
        .with_symbol("N", 3)
        .with_array("x", ints(vec![2, 0, 1]))
        .with_array("y", ints(vec![0; 3]));
    run(p, &mut mem, None).unwrap_err()
}

/// The error of a call checked before the run: the same in every backend.
fn call_error(p: &LoopProgram) -> CallError {
    let e = run_error(p);
    let RunError::Call { stmt, error } = e else {
        panic!("expected a call error, got {e}")
    };
    assert_eq!(stmt, "S0");
    for emitted in [emit_c(p).unwrap_err(), emit_rust(p).unwrap_err()] {
        assert_eq!(
            emitted,
            EmitError::Call {
                stmt: "S0".into(),
                error: error.clone()
            }
        );
    }
    error
}

/// The fault of a call while running, in `S0` at `[1]`.
fn fault(p: &LoopProgram, call: &str) -> ObjectFault {
    match run_error(p) {
        RunError::ObjectFault {
            site: Site::Statement { name, point },
            call: c,
            fault,
        } => {
            assert_eq!(
                (name.as_str(), point.as_slice(), c.as_str()),
                ("S0", &[1][..], call)
            );
            fault
        }
        e => panic!("expected an object fault, got {e}"),
    }
}
