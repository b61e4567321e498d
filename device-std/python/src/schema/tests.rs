//! Each parameter kind's schema type, found through the same walk a module's registration
//! makes (a `__foreign`-shaped function run with `Params`), and the kernels no schema can
//! express.

use std::sync::atomic::AtomicU32;

use oxide_device::bf16;
use oxide_device::outputs::{BlockTiles, DisjointRows};
use oxide_device::{DisjointSlice, Matrix};
use oxide_host::{ForeignArg, ForeignCall, ForeignParam, ForeignSignature};

use super::*;
use crate::config::Role;

/// What `#[kernel]` writes as `__foreign` for
/// `k(a: &[f32], bins: &[AtomicU32], c: DisjointSlice<f32>, t: BlockTiles<f32, 16, 16>,
/// rows: DisjointRows<bf16>, m: Matrix<bf16>, n: u32, scale: f64, shape: (usize, usize),
/// coeffs: (f32, f32), stage: DynShared<u32>)`, up to `prepare` (where `Params` stops).
fn every_kind<C>(call: &mut C) -> Result<(), C::Error>
where
    C: ForeignCall
        + ForeignArg<[f32]>
        + ForeignArg<[AtomicU32]>
        + ForeignArg<fn(DisjointSlice<'_, f32>)>
        + ForeignArg<fn(BlockTiles<'_, f32, 16, 16>)>
        + ForeignArg<fn(DisjointRows<'_, bf16>)>
        + ForeignArg<fn(Matrix<'_, bf16>)>
        + ForeignArg<fn(u32)>
        + ForeignArg<fn(f64)>
        + ForeignArg<fn((usize, usize))>
        + ForeignArg<fn((f32, f32))>,
{
    <C as ForeignArg<[f32]>>::describe(call, 0)?;
    <C as ForeignArg<[AtomicU32]>>::describe(call, 1)?;
    <C as ForeignArg<fn(DisjointSlice<'_, f32>)>>::describe(call, 2)?;
    <C as ForeignArg<fn(BlockTiles<'_, f32, 16, 16>)>>::describe(call, 3)?;
    <C as ForeignArg<fn(DisjointRows<'_, bf16>)>>::describe(call, 4)?;
    <C as ForeignArg<fn(Matrix<'_, bf16>)>>::describe(call, 5)?;
    <C as ForeignArg<fn(u32)>>::describe(call, 6)?;
    <C as ForeignArg<fn(f64)>>::describe(call, 7)?;
    <C as ForeignArg<fn((usize, usize))>>::describe(call, 8)?;
    <C as ForeignArg<fn((f32, f32))>>::describe(call, 9)?;
    call.describe_shared_len(10)?;
    call.prepare()
}

const fn param(name: &'static str, ty: &'static str) -> ForeignParam {
    ForeignParam { name, ty }
}

fn signature(name: &'static str, params: &'static [ForeignParam]) -> ForeignSignature {
    ForeignSignature {
        name,
        params,
        options: Default::default(),
        same_len: &[],
    }
}

static EVERY_KIND: &[ForeignParam] = &[
    param("a", "&[f32]"),
    param("bins", "&[AtomicU32]"),
    param("c", "DisjointSlice<f32>"),
    param("t", "BlockTiles<f32, 16, 16>"),
    param("rows", "DisjointRows<bf16>"),
    param("m", "Matrix<bf16>"),
    param("n", "u32"),
    param("scale", "f64"),
    param("shape", "(usize, usize)"),
    param("coeffs", "(f32, f32)"),
    param("stage", "DynShared<u32>"),
];

#[test]
fn every_parameter_kind_has_its_schema_type() {
    let sig = signature("k", EVERY_KIND);
    let params = Params::of(&sig, every_kind::<Params>).unwrap();
    assert_eq!(
        params,
        [
            Param::Tensor(Role::Read),
            Param::Tensor(Role::Atomic),
            Param::Tensor(Role::Elements),
            Param::Tensor(Role::Tiles),
            Param::Tensor(Role::Tiles),
            Param::Tensor(Role::Read),
            Param::Number(Number::Int),
            Param::Number(Number::Float),
            Param::Tuple(&[Number::Int, Number::Int]),
            Param::Tuple(&[Number::Float, Number::Float]),
            Param::Number(Number::Int),
        ]
    );
    let op = op_schema("ops", &sig, &params).unwrap();
    assert_eq!(op.qualname, "ops::k");
    assert_eq!(
        op.schema,
        "(Tensor a, Tensor(a0!) bins, Tensor(a1!) c, Tensor(a2!) t, Tensor(a3!) rows, \
         Tensor m, int n, float scale, int[] shape, float[] coeffs, int stage, *, \
         int[]? grid=None, int[]? block=None) -> ()"
    );
    assert_eq!(op.mutates, ["bins", "c", "t", "rows"]);
}

#[test]
fn a_kernel_that_writes_nothing_mutates_nothing() {
    static PARAMS: &[ForeignParam] = &[param("x", "&[u32]")];
    let sig = signature("reads", PARAMS);
    let op = op_schema("m", &sig, &[Param::Tensor(Role::Read)]).unwrap();
    assert_eq!(
        op.schema,
        "(Tensor x, *, int[]? grid=None, int[]? block=None) -> ()"
    );
    assert!(op.mutates.is_empty());
}

#[test]
fn what_a_schema_cannot_express_is_an_error() {
    static MIXED: &[ForeignParam] = &[param("coeffs", "(u32, f32)")];
    let e = op_schema(
        "m",
        &signature("k", MIXED),
        &[Param::Tuple(&[Number::Int, Number::Float])],
    )
    .unwrap_err();
    assert!(
        e.contains("`coeffs: (u32, f32)` mixes ints and floats"),
        "{e}"
    );

    static GRID: &[ForeignParam] = &[param("grid", "u32")];
    let e = op_schema("m", &signature("k", GRID), &[Param::Number(Number::Int)]).unwrap_err();
    assert!(e.contains("launch argument `grid=`"), "{e}");

    static KEYWORD: &[ForeignParam] = &[param("lambda", "f32")];
    let e = op_schema(
        "m",
        &signature("k", KEYWORD),
        &[Param::Number(Number::Float)],
    )
    .unwrap_err();
    assert!(e.contains("`lambda` is a Python keyword"), "{e}");
}

#[test]
fn a_walk_that_skips_a_parameter_is_an_error_not_a_schema() {
    fn skips<C: ForeignCall + ForeignArg<[f32]>>(call: &mut C) -> Result<(), C::Error> {
        <C as ForeignArg<[f32]>>::describe(call, 0)?;
        call.prepare()
    }
    static TWO: &[ForeignParam] = &[param("a", "&[f32]"), param("b", "&[f32]")];
    let e = Params::of(&signature("k", TWO), skips::<Params>).unwrap_err();
    assert!(e.contains("parameter `b` was not described"), "{e}");
}
