//@ build-pass
//@ compile-flags: -O
//@ ptx-not: st.local
//@ ptx-not: ld.local
//@ ptx-not: __oxide_unroll_hint
//! An `unroll` loop whose body holds `unroll` loops and is over LLVM's own threshold once they
//! are unrolled (flash_attn's loop over a warp's two MMA tiles, around its softmax) is unrolled
//! too, so the arrays indexed by its step stay in registers. Its mark was lost before: LLVM
//! folded its empty latch into the inner loop's `switch` on `next`'s `Option` and dropped the
//! mark where it rewrote that `switch` (now a conditional branch, as rustc emits it), and a mark
//! made after O3 took its hint call, whose argument LLVM knew was `true` in the body, for a copy
//! in an unrolled loop.
use oxide::prelude::*;

const TILES: usize = 2;
const KEYS: usize = 32;

#[kernel(block = "128")]
pub fn rows(x: f32, mut out: DisjointSlice<f32>) {
    let mut m = [f32::NEG_INFINITY; TILES];
    let mut l = [0.0f32; TILES];
    let mut s = [[0.0f32; KEYS]; TILES];
    for i in unroll(0..TILES) {
        for j in unroll(0..KEYS) {
            s[i][j] = x * (i * KEYS + j) as f32;
        }
        for j in unroll(0..KEYS) {
            m[i] = m[i].max(s[i][j]);
        }
        for j in unroll(0..KEYS) {
            s[i][j] = (s[i][j] - m[i]).fast_exp2();
            l[i] += s[i][j];
        }
    }
    if let Some(slot) = out.get_mut(ThreadIndex::linear()) {
        *slot = s[0][3] / l[0] + s[1][5] / l[1];
    }
}

fn main() {}
