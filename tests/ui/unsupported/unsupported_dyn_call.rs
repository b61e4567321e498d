//! A kernel that calls a method through `&dyn Trait`: a virtual call has no PTX lowering, so the
//! backend must reject it with an error that points at the call.

use oxide::prelude::*;

trait Shape {
    fn area(&self) -> f32;
}

struct Square(f32);
struct Circle(f32);

impl Shape for Square {
    fn area(&self) -> f32 {
        self.0 * self.0
    }
}

impl Shape for Circle {
    fn area(&self) -> f32 {
        3.0 * self.0 * self.0
    }
}

#[kernel]
pub fn dyn_area(sizes: &[f32], mut areas: DisjointSlice<f32>) {
    let idx = ThreadIndex::linear();
    let i = idx.get();
    if let Some(area) = areas.get_mut(idx) {
        let (square, circle) = (Square(sizes[i]), Circle(sizes[i]));
        let shape: &dyn Shape = if i % 2 == 0 { &square } else { &circle };
        *area = shape.area();
    }
}

fn main() {}
