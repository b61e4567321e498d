// A 2-D output lent as a rectangle gives a thread only its own element of the rectangle: the
// output cannot be indexed, its rectangle cannot be moved or grown (its words are private), and
// safe code gets one only from the launch, whose `Rows` checked the rectangle (the output's
// `from_raw_parts` is `unsafe`; rows_cannot_be_forged.rs: nor can a `Rows` be built unchecked).
use oxide::prelude::*;

#[kernel]
pub fn border(mut out: DisjointRows<f32>) {
    out[(0, 0)] = 1.0;
    out.top = 0;
    out.rows += 1;
}

fn main() {
    let mut v = vec![0.0f32; 16];
    let _unchecked = DisjointRows::from_raw_parts(v.as_mut_ptr(), 16, 4, 4, 5, (0, 0));
}
