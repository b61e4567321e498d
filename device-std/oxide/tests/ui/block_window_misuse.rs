// A block's window of an output is one view per thread, taken once: `window` consumes the
// parameter, so a thread cannot make a second view that skips the phases its block is in; a
// read phase cannot be written, and a write phase reaches only the thread's own slots.
use oxide::prelude::*;

#[kernel]
pub fn twice(out: BlockWindows<u32, 256>) {
    let first = out.window();
    let second = out.window();
    let _ = (first, second);
}

#[kernel]
pub fn write_while_reading(out: BlockWindows<u32, 256>) {
    if let Some((_, mut read)) = out.window() {
        read[3] = 1;
    }
}

fn main() {}
