//! [`Format`]: a sparse format, built in or described by a descriptor.

use std::path::Path;
use std::sync::Arc;

use synth::builtin::LoadError;
use synth::Descriptor;

use crate::Error;

/// A sparse tensor format: a descriptor (its sparse-to-dense map, index
/// arrays and rules), shared cheaply between converters and instances.
///
/// ```
/// let csr = engine::Format::builtin("csr")?;
/// assert_eq!(csr.name(), "CSR");
/// assert_eq!(csr.order(), 2);
/// assert_eq!(csr.index_arrays().collect::<Vec<_>>(), ["rowptr", "col"]);
/// assert_eq!(csr.value_array(), "A");
/// # Ok::<(), engine::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Format {
    descriptor: Arc<Descriptor>,
}

impl PartialEq for Format {
    /// Two formats are equal when their descriptors are: at once when
    /// they are one descriptor (clones of one `Format`, as a converter
    /// and the instances it makes share).
    fn eq(&self, other: &Format) -> bool {
        Arc::ptr_eq(&self.descriptor, &other.descriptor) || self.descriptor == other.descriptor
    }
}

impl Format {
    /// The built-in format `name` (case-insensitive: `csr`, `dia`, …;
    /// [`synth::builtin::builtin_names`] lists them).
    ///
    /// # Errors
    ///
    /// [`Error::Format`] for a name that is no built-in format (with the
    /// nearest name when it looks misspelled).
    ///
    /// ```
    /// let e = engine::Format::builtin("csx").unwrap_err();
    /// assert!(e.to_string().contains("did you mean `csr`"), "{e}");
    /// ```
    pub fn builtin(name: &str) -> Result<Format, Error> {
        if synth::builtin::builtin(name).is_none() {
            let guess = synth::builtin::nearest_name(name)
                .map(|n| format!("; did you mean `{n}`?"))
                .unwrap_or_default();
            return Err(Error::Format(format!(
                "{name}: not a built-in format ({}){guess}",
                synth::builtin::builtin_names().join(", ")
            )));
        }
        Format::load(name)
    }

    /// The format described by the descriptor file at `path`.
    ///
    /// # Errors
    ///
    /// [`Error::Read`] when the file cannot be read, [`Error::Located`]
    /// (file, line, column) when its text is not a valid descriptor.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Format, Error> {
        let path = path.as_ref();
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| Error::Read {
            path: file.clone(),
            source,
        })?;
        Format::parse_named(&text, &file)
    }

    /// The format described by the descriptor `text` (errors are located
    /// in `<descriptor>`).
    ///
    /// # Errors
    ///
    /// [`Error::Located`] when the text is not a valid descriptor.
    ///
    /// ```
    /// let e = engine::Format::parse("format X {").unwrap_err();
    /// assert!(e.to_string().starts_with("<descriptor>:1:"), "{e}");
    /// ```
    pub fn parse(text: &str) -> Result<Format, Error> {
        Format::parse_named(text, "<descriptor>")
    }

    fn parse_named(text: &str, file: &str) -> Result<Format, Error> {
        synth::descriptor_file::parse_descriptor(text)
            .map(Format::from_descriptor)
            .map_err(|error| Error::Located {
                file: file.to_string(),
                error,
            })
    }

    /// A built-in name or a descriptor path, as the `spf` command takes
    /// formats (a name that is both means the built-in format).
    ///
    /// # Errors
    ///
    /// As [`Format::from_file`]; for a missing file whose name looks like
    /// a format's, the message lists the built-in names.
    pub fn load(name_or_path: &str) -> Result<Format, Error> {
        synth::builtin::load_format(name_or_path)
            .map(Format::from_descriptor)
            .map_err(|e| match e {
                LoadError::Syntax { file, error } => Error::Located { file, error },
                other => Error::Format(other.to_string()),
            })
    }

    /// The format of a descriptor already parsed.
    pub fn from_descriptor(descriptor: Descriptor) -> Format {
        Format {
            descriptor: Arc::new(descriptor),
        }
    }

    /// The format's name (`CSR`).
    pub fn name(&self) -> &str {
        &self.descriptor.name
    }

    /// The number of dense dimensions (2 for a matrix).
    pub fn order(&self) -> usize {
        self.descriptor.dense.len()
    }

    /// The symbols of the dense extents, in order (`NR`, `NC`).
    pub fn dims(&self) -> &[String] {
        &self.descriptor.dense
    }

    /// Every symbol an instance gives a value for (the extents and the
    /// counts such as `NNZ`).
    pub fn symbols(&self) -> &[String] {
        &self.descriptor.symbols
    }

    /// The names of the index arrays (the descriptor's uninterpreted
    /// functions), in the descriptor's order.
    pub fn index_arrays(&self) -> impl Iterator<Item = &str> + '_ {
        self.descriptor.ufs.iter().map(|u| u.name.as_str())
    }

    /// The name of the value array.
    pub fn value_array(&self) -> &str {
        &self.descriptor.data_name
    }

    /// The descriptor, for the lower layers (synthesis, code generation).
    pub fn descriptor(&self) -> &Descriptor {
        &self.descriptor
    }

    /// scipy's name of the layout the format has (`csr`, `csc`, `coo`,
    /// `bsr`, `dia`), decided by its map and arrays, not its name (a
    /// UCSR has csr's); `None` for a format scipy has no layout of.
    pub fn scipy_format(&self) -> Option<&'static str> {
        synth::npz::layout::layout_of(&self.descriptor).map(|(l, _)| l.format)
    }

    /// The built-in formats' names (lower case, as [`Format::builtin`]
    /// takes them), each with what it is in a line.
    ///
    /// ```
    /// let all = engine::Format::builtins();
    /// assert!(all.contains(&("csc", "compressed sparse column")));
    /// ```
    pub fn builtins() -> Vec<(&'static str, &'static str)> {
        synth::builtin::builtin_names()
            .iter()
            .map(|&n| (n, synth::builtin::summary(n).unwrap_or_default()))
            .collect()
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
