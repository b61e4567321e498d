use oxide::prelude::*;

#[kernel]
pub fn returns(a: &[f32]) -> f32 {
    a[0]
}

fn main() {}
