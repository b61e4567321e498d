// The kernel's `Matrix` is made by the launch from a checked `MatrixShape`; building one from
// its parts is `unsafe`, since its loads trust the shape to be within the buffer.
use oxide::Matrix;

fn main() {
    let v = vec![0.0f32; 16];
    let _raw = Matrix::from_raw_parts(v.as_ptr(), 16, 4, 4, 5);
}
