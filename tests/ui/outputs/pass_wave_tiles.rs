//@ build-pass
//@ ptx: .param .u64 wave_step_param_3
//! `WaveTiles<T, R, C>` passes four words (pointer, length, row width, wave); a wave's kernel
//! reads the tiles of earlier waves and writes its own.
use oxide::prelude::*;

#[kernel]
pub fn wave_step(mut out: WaveTiles<u64, 4, 4>) {
    for i in 0..2 {
        for j in 0..2 {
            let Some(((row, col), _)) = out.own_mut((i, j)) else {
                continue;
            };
            let above = row.checked_sub(4).and_then(|r| out.earlier(r, col));
            let left = col.checked_sub(4).and_then(|c| out.earlier(row, c));
            if let Some((_, o)) = out.own_mut((i, j)) {
                *o = above.unwrap_or(0) + left.unwrap_or(0) + 1;
            }
        }
    }
}

fn main() {}
