//! How `mir.copy` lowers: as loads and stores as wide as its alignment allows, or, past the
//! inline limit, an `llvm.memcpy`.

mod common;

use common::{finish, function, ptr_type, push};
use oxide_dialects::{mir::CopyOp, run_pipeline};
use pliron::context::Context;

/// The LLVM dialect of `f(dst, src)` that copies `size` bytes aligned to `align`.
fn lowered(size: u64, align: u32) -> String {
    let ctx = &mut Context::new();
    let (global, local) = (ptr_type(ctx, 1), ptr_type(ctx, 0));
    let f = function(ctx, "f", vec![global, local]);
    push(ctx, f.entry, |ctx| {
        CopyOp::new(ctx, f.args[0], f.args[1], size, align)
    });
    finish(ctx, &f);
    let dumps = run_pipeline(ctx, f.module, true).expect("pipeline");
    dumps.llvm_dialect.expect("dumped")
}

fn count(text: &str, what: &str) -> usize {
    text.matches(what).count()
}

#[test]
fn an_aligned_copy_moves_words() {
    let llvm = lowered(24, 8);
    assert_eq!(count(&llvm, "llvm.load"), 3, "{llvm}");
    assert_eq!(count(&llvm, "llvm.store"), 3, "{llvm}");
    assert_eq!(count(&llvm, "[align : 8]"), 6, "{llvm}");
    assert!(!llvm.contains("memcpy"), "{llvm}");
}

#[test]
fn a_copy_goes_as_wide_as_its_alignment_and_no_wider() {
    // 2-aligned: 2-byte accesses only.
    let llvm = lowered(6, 2);
    assert_eq!(count(&llvm, "llvm.load"), 3, "{llvm}");
    assert_eq!(count(&llvm, "[align : 2]"), 6, "{llvm}");
    // 16-aligned: 8-byte accesses (the vectoriser pairs them).
    let llvm = lowered(32, 16);
    assert_eq!(count(&llvm, "llvm.load"), 4, "{llvm}");
    assert_eq!(count(&llvm, "[align : 8]"), 8, "{llvm}");
    // 1-aligned: bytes.
    let llvm = lowered(3, 1);
    assert_eq!(count(&llvm, "llvm.load"), 3, "{llvm}");
}

#[test]
fn a_large_copy_stays_a_memcpy() {
    let llvm = lowered(4096, 8);
    assert!(llvm.contains("llvm.memcpy.p1.p0.i64"), "{llvm}");
    assert_eq!(count(&llvm, "llvm.load"), 0, "{llvm}");
}
