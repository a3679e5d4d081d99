//! Errors of the set and relation operations.

pub use crate::syntax::SyntaxError;

/// What can go wrong in an `iegen` operation.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Two operands whose tuple arities do not fit the operation.
    #[error("{operation}: arities do not match ({left} vs {right})")]
    Arity {
        /// The operation that was attempted.
        operation: &'static str,
        /// The arity of the left operand (or the one that must match).
        left: usize,
        /// The arity of the right operand.
        right: usize,
    },
    /// A tuple position beyond the tuple.
    #[error("tuple position {position} is out of range (arity {arity})")]
    Position {
        /// The position asked for.
        position: usize,
        /// The tuple's arity.
        arity: usize,
    },
    /// The text could not be parsed or does not describe a set or relation.
    #[error(transparent)]
    Syntax(#[from] SyntaxError),
}

pub(crate) fn check_arity(operation: &'static str, left: usize, right: usize) -> Result<(), Error> {
    if left == right {
        Ok(())
    } else {
        Err(Error::Arity {
            operation,
            left,
            right,
        })
    }
}

pub(crate) fn check_position(position: usize, arity: usize) -> Result<(), Error> {
    if position < arity {
        Ok(())
    } else {
        Err(Error::Position { position, arity })
    }
}
