// By-value kernel arguments are copied to the GPU byte for byte, so they must be Copy.
use oxide::prelude::*;

pub struct Handle(u32);

#[kernel]
pub fn takes_handle(h: Handle) {
    let _ = h.0;
}

fn main() {}
