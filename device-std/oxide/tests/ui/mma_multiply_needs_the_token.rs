// `Operands::multiply`, the raw `mma.sync` of each shape behind `oxide::mma::mma` (no
// warp-uniformity mark, no whole-warp check), takes a token that only the library can make:
// its type lives in a private module.
use oxide::mma::{FragA, FragB, FragC, Operands};
use oxide::prelude::*;

pub fn unchecked(a: &FragA<bf16>, b: &FragB<bf16>) -> FragC {
    a.multiply(b, FragC::zero(), oxide::mma::private::Token)
}

fn main() {}
