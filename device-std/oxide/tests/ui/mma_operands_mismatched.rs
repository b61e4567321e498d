// Fragments carry their operand role and element type: a B fragment is not an A operand, and
// bf16 and f16 operands do not mix.
use oxide::mma::{FragA, FragB, FragC, mma};
use oxide::prelude::*;

pub fn swapped(a: FragA<bf16>, b: FragB<bf16>) -> FragC {
    mma(&b, &a, FragC::zero())
}

pub fn mixed(a: FragA<bf16>, b: FragB<oxide::f16>) -> FragC {
    mma(&a, &b, FragC::zero())
}

fn main() {}
