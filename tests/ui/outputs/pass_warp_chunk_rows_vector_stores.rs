//@ build-pass
//@ ptx(warp_chunk_rows): ld.global.nc.v4.b32
//@ ptx(warp_chunk_rows): st.global.v4.b32
//! `WarpChunkRows<f32, 4>`: a lane's whole chunks are the buffer's 16-byte chunks, so each one
//! is stored as one vector (CUDA's "a warp per row, each lane a `float4`"), whatever the rows'
//! pitch; the elements of a row outside its whole chunks go one at a time. The input, a buffer
//! of the same layout, is read through the same chunks.
use oxide::prelude::*;

#[kernel]
pub fn warp_chunk_rows(input: &[[f32; 4]], scale: f32, mut out: WarpChunkRows<f32, 4>) {
    let (pitch, (top, left)) = (out.pitch(), out.origin());
    let Some(mut row) = out.row_mut() else {
        return;
    };
    let first = (top + row.row()) * pitch + left;
    row.for_each_chunk(|col, chunk| {
        if let Some(v) = input.get((first + col) / 4) {
            *chunk = v.map(|x| x * scale);
        }
    });
    row.for_each_partial(|col, o| *o = col as f32 * scale);
}

fn main() {}
