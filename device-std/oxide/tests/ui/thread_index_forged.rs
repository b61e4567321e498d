// A ThreadIndex cannot be made by hand: its field is private.
use oxide::prelude::*;

pub fn forged(mut c: DisjointSlice<f32>) {
    let idx = ThreadIndex(5);
    if let Some(out) = c.get_mut(idx) {
        *out = 1.0;
    }
}

fn main() {}
