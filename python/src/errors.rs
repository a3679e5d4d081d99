//! spf's errors as Python exceptions: `spf.Error` (a `ValueError`) and a
//! subclass for each kind a caller handles differently. The message is
//! the command's.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

create_exception!(
    spf,
    Error,
    PyValueError,
    "Every error spf raises: its message is what the `spf` command prints."
);
create_exception!(
    spf,
    InputError,
    Error,
    "Bad input: a malformed or missing file, an array that breaks its format, an entry the \
     destination cannot store, a descriptor that is not well-formed."
);
create_exception!(
    spf,
    UnsupportedConversion,
    Error,
    "A pair of formats spf cannot synthesize a conversion between (the message says why)."
);
create_exception!(
    spf,
    ValidationError,
    Error,
    "A synthesized conversion that translation validation refused: `.counterexample` is the \
     smallest tensor it gets wrong, as a Matrix Market (or FROSTT) file's text."
);
create_exception!(
    spf,
    TooLarge,
    Error,
    "An input or a result too large for this machine or for the index width asked for."
);

/// The exception for an engine error.
pub fn to_py(e: engine::Error) -> PyErr {
    use engine::Error as E;
    let message = e.to_string();
    match e {
        E::Read { .. }
        | E::Located { .. }
        | E::Input { .. }
        | E::Invalid { .. }
        | E::Unstorable(_)
        | E::Format(_) => InputError::new_err(message),
        E::Unsupported { .. } => UnsupportedConversion::new_err(message),
        E::Refused { counterexample, .. } => Python::attach(|py| {
            let err = ValidationError::new_err(message);
            // Setting an attribute on a fresh exception object cannot fail.
            let _ = err.value(py).setattr("counterexample", counterexample);
            err
        }),
        E::TooLarge(_) => TooLarge::new_err(message),
        _ => Error::new_err(message),
    }
}

/// Adds the exception classes to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("InputError", py.get_type::<InputError>())?;
    m.add(
        "UnsupportedConversion",
        py.get_type::<UnsupportedConversion>(),
    )?;
    m.add("ValidationError", py.get_type::<ValidationError>())?;
    m.add("TooLarge", py.get_type::<TooLarge>())?;
    Ok(())
}
