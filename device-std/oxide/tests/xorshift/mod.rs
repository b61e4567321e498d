//! The MMA tests' inputs: 32-bit xorshift words from a seed (each test file maps them to its
//! element type).

/// `len` words of the xorshift (13, 17, 5) started from `seed` (scrambled, never zero).
pub fn words(len: usize, seed: u32) -> impl Iterator<Item = u32> {
    let mut x = seed.wrapping_mul(2_654_435_761).max(1);
    (0..len).map(move |_| {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    })
}
