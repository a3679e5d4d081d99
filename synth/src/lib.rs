//! Synthesis of format conversions from descriptors. Not yet implemented: see issue 4.
