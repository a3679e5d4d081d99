//! Lowering a [`Plan`] into an SPF [`Computation`] (the inspector and copy).

use iegen::computation::Computation;

use crate::conversion::Conversion;
use crate::plan::Plan;
use crate::synthesize::{Binding, SynthError};

/// Lowers `plan` for `conv` into a computation and the bindings of its names.
pub fn lower(conv: &Conversion, plan: &Plan) -> Result<(Computation, Vec<Binding>), SynthError> {
    let _ = plan;
    Err(SynthError::Lowering {
        src: conv.src.name.clone(),
        dst: conv.dst.name.clone(),
        message: "lowering is not implemented yet".into(),
    })
}
