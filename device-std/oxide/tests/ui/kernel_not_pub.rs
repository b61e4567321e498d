use oxide::prelude::*;

#[kernel]
fn private(a: &[f32]) {
    let _ = a;
}

#[kernel]
pub(crate) fn crate_only(a: &[f32]) {
    let _ = a;
}

fn main() {}
