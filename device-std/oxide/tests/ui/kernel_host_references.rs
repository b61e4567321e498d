// Hole 2 of issue 7: host references that the attribute cannot see in the syntax (behind a type
// alias, in a struct field, in an `Option`) are not plain device data.
use oxide::prelude::*;

type HostRef = &'static u32;

#[derive(Clone, Copy)]
pub struct Table {
    pub data: &'static [u32],
    pub scale: u32,
}

#[kernel]
pub fn alias(r: HostRef, mut out: DisjointSlice<u32>) {
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = *r;
    }
}

#[kernel]
pub fn field(t: Table, mut out: DisjointSlice<u32>) {
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = t.data[0] * t.scale;
    }
}

#[kernel]
pub fn option(r: Option<&'static u32>, mut out: DisjointSlice<u32>) {
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = r.copied().unwrap_or(0);
    }
}

fn main() {}
