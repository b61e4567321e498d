use oxide::prelude::*;

#[kernel(fast_math)]
pub fn unknown() {}

#[kernel(grid = "2d")]
pub fn two_d() {}

#[kernel(strict_float, strict_float)]
pub fn twice() {}

#[kernel(strict_float = true, grid(1))]
pub fn malformed() {}

fn main() {}
