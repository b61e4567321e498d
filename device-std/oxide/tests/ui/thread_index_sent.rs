// A ThreadIndex cannot leave its thread: on the CPU emulator, where every GPU thread is an OS
// thread, two threads would then hold the same index.
use oxide::prelude::*;

pub fn sent() {
    let idx = ThreadIndex::linear();
    std::thread::spawn(move || idx.get());
}

pub fn shared(idx: &ThreadIndex) {
    std::thread::scope(|s| {
        s.spawn(|| idx.get());
    });
}

fn main() {}
