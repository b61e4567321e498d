// A `MatrixShape` comes only from `MatrixShape::new` and `::with_pitch`, which check the shape
// against the buffer: its fields are private, so safe code cannot give a launch rows that reach
// past the buffer.
use oxide::host::MatrixShape;

fn main() {
    let v = vec![0.0f32; 16];
    let _forged = MatrixShape {
        buf: &v[..],
        rows: 5,
        cols: 4,
        pitch: 4,
        words: [4, 4, 5],
    };
}
