// Other signatures a kernel cannot have.
use oxide::prelude::*;

#[kernel]
pub async fn asynchronous() {}

#[kernel]
pub unsafe fn not_safe() {}

#[kernel]
pub const fn constant() {}

#[kernel]
pub extern "C" fn foreign() {}

#[kernel]
pub fn patterns((a, b): (u32, u32), _: u32, ref r: u32) {
    let _ = (a, b, r);
}

#[kernel(grid = 4)]
pub fn with_arguments() {}

#[kernel]
pub struct NotAFunction;

fn main() {}
