// A DisjointSlice cannot be cloned or copied, nor sent to another host thread.
use oxide::prelude::*;

pub fn cloned(c: DisjointSlice<f32>) {
    let _twin = c.clone();
}

pub fn copied(c: DisjointSlice<f32>) {
    let moved = c;
    let _ = (c.len(), moved.len());
}

pub fn sent(c: DisjointSlice<f32>) {
    std::thread::spawn(move || c.len());
}

fn main() {}
