//@ build-pass
//@ ptx: ld.cs.v4.b32
//@ ptx: st.cs.v4.b32
//@ ptx: ld.lu.b32
//@ ptx: st.cs.b64
//! Cache hints (`oxide::cache`): CUDA's `__ldcs`/`__stcs`/`__ldlu` in one instruction each,
//! the 16-byte forms as one vector access (inline PTX with four outputs) when the reference is
//! 16-byte aligned, as a `DisjointChunks` chunk of `[f32; 4]` is.
use oxide::cache;
use oxide::prelude::*;

#[kernel]
pub fn streaming_scale(input: &[[f32; 4]], scale: &[f32], mut out: DisjointChunks<f32, 4>) {
    let idx = ThreadIndex::linear();
    let s = scale.first().map_or(1.0, cache::load_last_use);
    for (first, chunk) in &mut out.grid_stride(&idx) {
        if let Some(x) = input.get(first / 4) {
            cache::store_streaming(chunk, cache::load_streaming(x).map(|v| v * s));
        }
    }
}

#[kernel]
pub fn streaming_words(input: &[u64], mut out: DisjointSlice<u64>) {
    let idx = ThreadIndex::linear();
    if let (Some(x), Some(o)) = (input.get(idx.get()), out.get_mut(idx)) {
        cache::store_streaming(o, cache::load_streaming(x).rotate_left(7));
    }
}

fn main() {}
