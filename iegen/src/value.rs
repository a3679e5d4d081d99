//! A set or a relation: the values of the calculator language.

use std::fmt;

use crate::relation::Relation;
use crate::set::Set;

/// Either a [`Set`] or a [`Relation`], as a literal may denote either.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A set of tuples.
    Set(Set),
    /// A relation between tuples.
    Relation(Relation),
}

impl Value {
    /// "set" or "relation", for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Set(_) => "set",
            Value::Relation(_) => "relation",
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Set(s) => s.fmt(f),
            Value::Relation(r) => r.fmt(f),
        }
    }
}
