//! Formatting into a fixed buffer with `core::fmt::Write`: the formatting machinery uses trait
//! objects and is not available on the GPU.

use core::fmt::Write;
use oxide::prelude::*;

struct Bytes {
    len: usize,
}

impl Write for Bytes {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        self.len += s.len();
        Ok(())
    }
}

#[kernel]
pub fn core_format(input: &[u32], mut out: DisjointSlice<u32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        let mut b = Bytes { len: 0 };
        let _ = write!(b, "{}", input[i]);
        *o = b.len as u32;
    }
}

fn main() {}
