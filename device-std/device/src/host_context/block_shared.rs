//! Block-shared memory on the host: one block's copies of the shared statics, made on first
//! use and filled with garbage, as the GPU leaves them uninitialised.

use std::alloc::{self, Layout};
use std::collections::HashMap;
use std::ptr::NonNull;

/// The byte a fresh host copy of block-shared memory is filled with. On the GPU the memory is
/// uninitialised; here it is not zero, so that a kernel that reads what its block did not write
/// computes garbage: `0xFF` makes every `f32`/`f64` a NaN and every integer all ones.
pub const SHARED_GARBAGE: u8 = 0xFF;

/// The copies of the block-shared statics of one block (or of one OS thread without a runner),
/// made on first use and freed with the value (or by [`clear`](Self::clear)).
#[derive(Default)]
pub struct BlockShared {
    copies: HashMap<usize, (NonNull<u8>, Layout)>,
}

impl BlockShared {
    /// No copies yet.
    pub fn new() -> BlockShared {
        BlockShared::default()
    }

    /// The copy of the static at address `key` (`size` bytes, aligned to `align`), made and
    /// filled with [`SHARED_GARBAGE`] on first use. Valid until [`clear`](Self::clear) or drop.
    ///
    /// # Panics
    /// When `align` is not a power of two, when the size overflows, or when `key` was asked for
    /// before with another size or alignment (two statics never share an address unless they
    /// are zero-sized, which have no copy).
    pub fn get(&mut self, key: usize, size: usize, align: usize) -> *mut u8 {
        let layout = Layout::from_size_align(size, align).unwrap_or_else(|e| {
            panic!("block-shared memory of {size} bytes aligned to {align}: {e}")
        });
        if size == 0 {
            // Nothing to read or write: any aligned, non-null address will do.
            return std::ptr::without_provenance_mut(align);
        }
        let (copy, known) = *self.copies.entry(key).or_insert_with(|| {
            // SAFETY: `layout` has a non-zero size.
            let raw = unsafe { alloc::alloc(layout) };
            let Some(copy) = NonNull::new(raw) else {
                alloc::handle_alloc_error(layout)
            };
            // SAFETY: `copy` is valid for `size` bytes, just allocated.
            unsafe { copy.write_bytes(SHARED_GARBAGE, size) };
            (copy, layout)
        });
        assert_eq!(
            known, layout,
            "block-shared memory at {key:#x} asked for with two layouts"
        );
        copy.as_ptr()
    }

    /// Frees every copy (the block ended): the next [`get`](Self::get) makes a fresh one.
    pub fn clear(&mut self) {
        for (_, (copy, layout)) in self.copies.drain() {
            // SAFETY: allocated by `get` with this layout, and freed once (drained).
            unsafe { alloc::dealloc(copy.as_ptr(), layout) };
        }
    }
}

impl Drop for BlockShared {
    fn drop(&mut self) {
        self.clear();
    }
}

// SAFETY: a `BlockShared` owns its allocations (as a `Vec<Box<[u8]>>` would); the pointers it
// hands out are used under the contract of `SharedArray::as_mut_ptr`.
unsafe impl Send for BlockShared {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_shared_copies_are_fresh_garbage_until_cleared() {
        let mut block = BlockShared::new();
        let a = block.get(0x1000, 24, 8);
        assert!(a.cast::<u64>().is_aligned());
        assert_eq!(block.get(0x1000, 24, 8), a, "one copy per key");
        let b = block.get(0x2000, 1, 1);
        assert_ne!(a, b);
        // SAFETY: `a` is 24 bytes, valid until `clear`.
        unsafe {
            assert!((0..24).all(|i| a.add(i).read() == SHARED_GARBAGE));
            a.write_bytes(0, 24);
        }
        block.clear();
        let again = block.get(0x1000, 24, 8);
        // SAFETY: as above, a fresh copy.
        assert!((0..24).all(|i| unsafe { again.add(i).read() } == SHARED_GARBAGE));
        assert!(block.get(0x3000, 0, 16).cast::<u128>().is_aligned());
        let two_layouts =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| block.get(0x1000, 16, 8)));
        assert!(two_layouts.is_err());
    }
}
