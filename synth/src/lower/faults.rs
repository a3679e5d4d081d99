//! Deliberate lowering bugs, injected by tests to prove that validation
//! rejects what they break (`validate`'s tests). Test builds only.

use std::cell::Cell;

use iegen::computation::{BinOp, Body, ValueExpr};

/// A bug to inject.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fault {
    /// A permutation's sort key loses its least significant component
    /// (CSR from COO sorts by row only).
    DropLastKeyComponent,
    /// A pointer fix-up carries `f(x) + 1` instead of `f(x)` (wrong
    /// where rows are empty).
    FixupOffByOne,
}

thread_local! {
    static FAULT: Cell<Option<Fault>> = const { Cell::new(None) };
}

/// Injects `fault` into lowerings on this thread until reset with `None`.
pub(crate) fn inject(fault: Option<Fault>) {
    FAULT.with(|f| f.set(fault));
}

pub(super) fn injected(fault: Fault) -> bool {
    FAULT.with(|f| f.get()) == Some(fault)
}

/// The fault injected on this thread now.
pub(crate) fn injected_now() -> Option<Fault> {
    FAULT.with(|f| f.get())
}

/// `t max= v` becomes `t max= v + 1`.
pub(super) fn off_by_one(body: Body) -> Body {
    match body {
        Body::Update { target, op, value } => Body::Update {
            target,
            op,
            value: ValueExpr::Binary(BinOp::Add, Box::new(value), Box::new(ValueExpr::Int(1))),
        },
        other => other,
    }
}
