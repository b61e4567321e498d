//@ build-pass
//@ ptx(interior): interior_param_8
//@ ptx(interior): st.global.b32
//@ ptx-not(interior): div.
//@ ptx-not(interior): rem.
//@ ptx-not(interior): atom.
//! A 2-D output over a rectangle of its buffer (`Rows::rect`): the entry takes the buffer's
//! pointer and length, then five words (width, pitch, rows, origin row and column), so a
//! `DisjointRows` and a `&[f32]` make nine parameters; the element is stored with one plain
//! `st.global` (no atomics), and finding it divides nothing (the rows are a word, not the
//! length over the pitch).
use oxide::prelude::*;

#[kernel]
pub fn interior(input: &[f32], mut out: DisjointRows<f32>) {
    let ((top, left), pitch) = (out.origin(), out.pitch());
    if let Some(((r, c), o)) = out.at_thread() {
        let i = (top + r) * pitch + left + c;
        if let (Some(&n), Some(&s)) = (input.get(i.wrapping_sub(pitch)), input.get(i + pitch)) {
            *o = 0.5 * (n + s);
        }
    }
}

fn main() {}
