// The raw `mma.sync` is not reachable through a generic `E: MmaInput` either: a type
// parameter offers its bounds' supertraits' methods, so they live on a trait of their own that
// `MmaInput` does not extend.
use oxide::mma::MmaInput;

/// Nor through a generic bound, whose supertraits' methods a type parameter would offer.
pub fn generic<E: MmaInput>() -> [f32; 4] {
    E::mma_m16n8k16([0; 4], [0; 2], [0.0; 4])
}

fn main() {}
