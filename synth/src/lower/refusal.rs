//! Why the lowering refuses a plan ([`Refusal`]), and which item of which
//! descriptor the refusal is about, so that the error names the construct
//! and its line.

use crate::descriptor::Construct;
use crate::synthesized::Side;

/// A plan the lowering cannot turn into a computation.
#[derive(Clone, Debug)]
pub(crate) struct Refusal {
    /// What is missing.
    pub message: String,
    /// The descriptor item it is about, when one is.
    pub at: Option<(Side, Construct)>,
}

impl Refusal {
    /// A refusal about `construct` of the `side` format.
    pub fn about(side: Side, construct: Construct, message: impl Into<String>) -> Refusal {
        Refusal {
            message: message.into(),
            at: Some((side, construct)),
        }
    }
}

impl From<String> for Refusal {
    fn from(message: String) -> Refusal {
        Refusal { message, at: None }
    }
}

impl From<&str> for Refusal {
    fn from(message: &str) -> Refusal {
        Refusal::from(message.to_string())
    }
}
