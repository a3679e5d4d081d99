//! Polyhedra scanning and code generation (C, Rust, interpreter). Not yet implemented: see issue 3.
