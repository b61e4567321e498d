// A `Rows` (and the rectangle it lends) comes only from `Rows::new`, `Rows::with_pitch` and
// `Rows::rect`, which check the shape against the buffer: its fields are private, so safe code
// cannot give a launch words that reach past the buffer or outside the rectangle. (A
// `RowShape` can be made from any words, `RowShape::from_words`: it is what a `requires`
// condition reads, and no launch takes one.)
use oxide::host::{RowShape, Rows};

fn main() {
    let mut v = vec![0.0f32; 16];
    let _forged = Rows {
        buf: &mut v[..],
        shape: RowShape::from_words(&[4usize, 4, 5, 0, 0]),
        words: [4, 4, 5, 0, 0],
    };
}
