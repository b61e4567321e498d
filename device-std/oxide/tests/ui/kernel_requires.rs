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

fn main() {}
