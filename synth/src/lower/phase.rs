//! The phases of a conversion, in execution order; the statements of one
//! phase that share a context share a loop ([`super::schedule`]). Inserts
//! come first, then the sorts and sizes of what they filled (the phase
//! after), the destination's sizes before the arrays they size (so the
//! dynamic allocation finds them computed), the index arrays with the
//! placing pass and the copy, the fix-ups, and last what reads a fixed-up
//! array or a late profile.

/// Inserts into runtime objects over the source (and reservations);
/// their sorts and sizes come in the next phase.
pub const INSERT: u32 = 0;
/// Inserts whose keys read an ordered set's index, a second pass after
/// the sets' sorts; their sorts, sizes and ranks come in the next phase.
pub const INSERT_AFTER_SETS: u32 = 2;
/// Prefix sums of profiles, whose increments the inserts' pass computed:
/// before the sizes that read them.
pub const PREFIX_SUMS: u32 = 3;
/// Destination sizes.
pub const SIZES: u32 = 4;
/// The starting values of index arrays computed by `min=` (their range's
/// upper bound, which may be a size).
pub const STARTS: u32 = 5;
/// Index arrays, the placing pass and the copy.
pub const ARRAYS: u32 = 6;
/// Fix-ups of monotone index arrays, and the prefix sums of a profile
/// whose increments need sorted positions (they run with the arrays).
pub const FIXUP: u32 = 7;
/// Sizes that read such a profile (JAD's `NNZ_out max= jd(d) + r + 1`),
/// before the arrays they size.
pub const SIZES_AFTER_FIXUP: u32 = 8;
/// A copy or an index array that reads a fixed-up array or such a profile.
pub const AFTER_FIXUP: u32 = 9;
