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

// An output is not a by-value argument: the launcher cannot take it as the kernel's own type.
#[kernel(requires = "out.len() > 0")]
pub fn names_an_output(mut out: DisjointSlice<f32>) {
    if let Some(o) = out.get_mut(ThreadIndex::linear()) {
        *o = 1.0;
    }
}

fn main() {}
