//! [`Buffer`]: the elements of one array, owned or shared, copied on
//! write.
//!
//! An array the engine computes owns its elements (a `Vec`). An array it
//! is given may instead be the caller's memory, kept alive by an owner
//! (an `Arc<[T]>`, a numpy array): cloning it clones the owner, not the
//! elements, and reading it reads the caller's memory in place. Only
//! writing one ([`Buffer::to_mut`]) or taking its elements as a vector
//! ([`Buffer::into_vec`]) copies, and only when it is shared.
//!
//! Within one call, the engine also reads a caller's `&[T]` in place
//! ([`Buffer::borrowed`], unsafe: the call drops or detaches every such
//! buffer before it returns); the clone of a borrowed buffer is a copy,
//! so that no clone outlives the borrow.
//!
//! ```
//! use std::sync::Arc;
//! use codegen::buffer::Buffer;
//!
//! let shared: Arc<[i64]> = Arc::from(vec![3, 1, 2]);
//! let mut b = Buffer::from(Arc::clone(&shared));
//! assert!(b.is_shared());
//! assert_eq!(b.as_ptr(), shared.as_ptr()); // read in place
//! b.to_mut().sort(); // copied once, then written
//! assert!(!b.is_shared());
//! assert_eq!(b, [1, 2, 3]);
//! assert_eq!(*shared, [3, 1, 2]);
//! ```

use std::any::Any;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// The elements of an array: a vector, or memory another value owns
/// (module docs).
pub struct Buffer<T> {
    repr: Repr<T>,
}

enum Repr<T> {
    Owned(Vec<T>),
    Shared {
        ptr: *const T,
        len: usize,
        /// Keeps the memory at `ptr` alive and unchanged.
        owner: Arc<dyn Any + Send + Sync>,
    },
}

/// The owner of a borrowed buffer ([`Buffer::borrowed`]): nothing to keep
/// alive, a mark that the buffer must not outlive its borrow.
struct Borrowed;

// SAFETY: an owned buffer is a `Vec<T>`, which is `Send` when `T` is; a
// shared one gives only `&[T]` access to memory its owner (itself `Send +
// Sync`) keeps alive and unchanged, which another thread may read when
// `T` is `Sync`.
unsafe impl<T: Send + Sync> Send for Buffer<T> {}
// SAFETY: as for `Send`: `&Buffer<T>` gives only `&[T]` access.
unsafe impl<T: Send + Sync> Sync for Buffer<T> {}

impl<T> Buffer<T> {
    /// A buffer of `len` elements at `ptr`, which `owner` keeps alive.
    ///
    /// # Safety
    ///
    /// `ptr` must be non-null, aligned and point at `len` initialized
    /// elements that stay valid and are not written while `owner` (or a
    /// clone of it) lives.
    pub unsafe fn from_raw_parts(
        ptr: *const T,
        len: usize,
        owner: Arc<dyn Any + Send + Sync>,
    ) -> Buffer<T> {
        Buffer {
            repr: Repr::Shared { ptr, len, owner },
        }
    }

    /// A buffer reading `slice` in place, with no owner: a borrow that
    /// the type system does not track ([`Buffer::is_borrowed`] tells
    /// it, [`Buffer::detach`] ends it by a copy). Its clones are copies.
    ///
    /// # Safety
    ///
    /// The buffer must be dropped or detached before `slice`'s borrow
    /// ends.
    pub unsafe fn borrowed(slice: &[T]) -> Buffer<T> {
        Buffer {
            repr: Repr::Shared {
                ptr: slice.as_ptr(),
                len: slice.len(),
                owner: Arc::new(Borrowed),
            },
        }
    }

    /// The elements.
    pub fn as_slice(&self) -> &[T] {
        match &self.repr {
            Repr::Owned(v) => v,
            // SAFETY: `from_raw_parts` and `borrowed` require the memory
            // to be valid and unwritten while the owner, which the buffer
            // holds, lives.
            Repr::Shared { ptr, len, .. } => unsafe { std::slice::from_raw_parts(*ptr, *len) },
        }
    }

    /// Whether the elements are another value's memory (writing them
    /// copies them first).
    pub fn is_shared(&self) -> bool {
        matches!(self.repr, Repr::Shared { .. })
    }

    /// Whether the elements are borrowed memory ([`Buffer::borrowed`]).
    pub fn is_borrowed(&self) -> bool {
        match &self.repr {
            Repr::Owned(_) => false,
            Repr::Shared { owner, .. } => owner.is::<Borrowed>(),
        }
    }
}

impl<T: Clone> Buffer<T> {
    /// The elements, writable: a shared buffer's are copied first (once).
    pub fn to_mut(&mut self) -> &mut Vec<T> {
        if let Repr::Shared { .. } = self.repr {
            self.repr = Repr::Owned(self.as_slice().to_vec());
        }
        match &mut self.repr {
            Repr::Owned(v) => v,
            Repr::Shared { .. } => unreachable!("made owned above"),
        }
    }

    /// The elements as a vector: an owned buffer's taken, a shared one's
    /// copied.
    pub fn into_vec(self) -> Vec<T> {
        match self.repr {
            Repr::Owned(v) => v,
            Repr::Shared { .. } => self.as_slice().to_vec(),
        }
    }

    /// Copies the elements of a borrowed buffer ([`Buffer::borrowed`]), so
    /// that it may outlive the borrow; other buffers are left as they are.
    pub fn detach(&mut self) {
        if self.is_borrowed() {
            self.to_mut();
        }
    }
}

impl<T: Clone> Clone for Buffer<T> {
    /// A shared buffer's owner shared; an owned or borrowed buffer's
    /// elements copied (so that no clone outlives a borrow).
    fn clone(&self) -> Buffer<T> {
        Buffer {
            repr: match &self.repr {
                Repr::Shared { owner, .. } if owner.is::<Borrowed>() => {
                    Repr::Owned(self.as_slice().to_vec())
                }
                Repr::Owned(v) => Repr::Owned(v.clone()),
                Repr::Shared { ptr, len, owner } => Repr::Shared {
                    ptr: *ptr,
                    len: *len,
                    owner: Arc::clone(owner),
                },
            },
        }
    }
}

impl<T> Deref for Buffer<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T> AsRef<[T]> for Buffer<T> {
    fn as_ref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T> Default for Buffer<T> {
    fn default() -> Buffer<T> {
        Buffer::from(Vec::new())
    }
}

impl<T> From<Vec<T>> for Buffer<T> {
    fn from(v: Vec<T>) -> Buffer<T> {
        Buffer {
            repr: Repr::Owned(v),
        }
    }
}

impl<T: Send + Sync + 'static> From<Arc<[T]>> for Buffer<T> {
    /// The elements of `shared`, read in place (`shared` is their owner).
    fn from(shared: Arc<[T]>) -> Buffer<T> {
        let (ptr, len) = (shared.as_ptr(), shared.len());
        // SAFETY: the owner is the `Arc` itself, whose elements stay where
        // they are and, being shared, are never written.
        unsafe { Buffer::from_raw_parts(ptr, len, Arc::new(shared)) }
    }
}

impl<T> FromIterator<T> for Buffer<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Buffer<T> {
        Buffer::from(iter.into_iter().collect::<Vec<T>>())
    }
}

impl<'a, T> IntoIterator for &'a Buffer<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl<T: fmt::Debug> fmt::Debug for Buffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.as_slice().fmt(f)
    }
}

impl<T: PartialEq> PartialEq for Buffer<T> {
    fn eq(&self, other: &Buffer<T>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: PartialEq> PartialEq<Vec<T>> for Buffer<T> {
    fn eq(&self, other: &Vec<T>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: PartialEq> PartialEq<[T]> for Buffer<T> {
    fn eq(&self, other: &[T]) -> bool {
        self.as_slice() == other
    }
}

impl<T: PartialEq, const N: usize> PartialEq<[T; N]> for Buffer<T> {
    fn eq(&self, other: &[T; N]) -> bool {
        self.as_slice() == other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_owned_buffer_is_written_in_place() {
        let mut b = Buffer::from(vec![1, 2]);
        let p = b.as_ptr();
        b.to_mut()[0] = 5;
        assert_eq!(b.as_ptr(), p);
        assert_eq!(b.into_vec(), [5, 2]);
    }

    #[test]
    fn a_shared_buffer_is_copied_on_write_only() {
        let shared: Arc<[i32]> = Arc::from(vec![1, 2, 3]);
        let b = Buffer::from(Arc::clone(&shared));
        let c = b.clone();
        assert_eq!(c.as_ptr(), shared.as_ptr());
        // One clone of `shared` owns the memory for `b` and its clones.
        assert_eq!(Arc::strong_count(&shared), 2);
        let mut d = c.clone();
        d.to_mut().push(4);
        assert_ne!(d.as_ptr(), shared.as_ptr());
        assert_eq!(*shared, [1, 2, 3]);
        assert_eq!(d, [1, 2, 3, 4]);
        drop((b, c));
        assert_eq!(Arc::strong_count(&shared), 1);
    }

    #[test]
    fn a_borrowed_buffer_detaches_by_a_copy() {
        let v = vec![1.5, 2.5];
        // SAFETY: `b` is detached before `v` is dropped.
        let mut b = unsafe { Buffer::borrowed(&v) };
        assert!(b.is_borrowed() && b.as_ptr() == v.as_ptr());
        let c = b.clone();
        assert!(!c.is_shared() && c.as_ptr() != v.as_ptr());
        b.detach();
        assert!(!b.is_shared());
        drop(v);
        assert_eq!(b, [1.5, 2.5]);
    }
}
