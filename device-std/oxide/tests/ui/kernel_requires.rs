use oxide::prelude::*;

// Not a string.
#[kernel(requires = true)]
pub fn not_a_string(scale: f32) {
    let _ = scale;
}

// Not an expression.
#[kernel(requires = "scale >")]
pub fn not_an_expression(scale: f32) {
    let _ = scale;
}

// Not a condition: the error points at the string.
#[kernel(requires = "scale + 1.0")]
pub fn not_a_condition(scale: f32) {
    let _ = scale;
}

// A buffer is read by its length only (`a.len()`), not as a value.
#[kernel(requires = "a[0] > 0.0")]
pub fn reads_a_buffer(a: &[f32], mut out: DisjointSlice<f32>) {
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = a[0];
    }
}

// A by-value argument has no length to read.
#[kernel(requires = "scale.len() > 0")]
pub fn len_of_a_value(scale: f32, mut out: DisjointSlice<f32>) {
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = scale;
    }
}

// A slice has no rows: its shape is its length.
#[kernel(requires = "a.width() == 4")]
pub fn width_of_a_slice(a: &[f32], mut out: DisjointSlice<f32>) {
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = a[0];
    }
}

fn main() {}
