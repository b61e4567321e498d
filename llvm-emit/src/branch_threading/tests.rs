use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;

use super::*;

fn threaded(ir: &str) -> (usize, String) {
    let ll = Context::create();
    let buffer = MemoryBuffer::create_from_memory_range_copy(ir.as_bytes(), "test");
    let module = ll.create_module_from_ir(buffer).expect("test IR parses");
    module.verify().expect("test IR is valid");
    let n = thread_known_branches(&module);
    module
        .verify()
        .unwrap_or_else(|e| panic!("{e}\n{}", module.print_to_string()));
    (n, module.print_to_string().to_string())
}

/// `for x in iter`'s loop after `next` is inlined: the block merging `next`'s two paths
/// branches again on the test the header made.
const NEXT_MERGE: &str = r#"
define void @f(ptr %out, i64 %n) {
entry:
  br label %head
head:
  %i = phi i64 [ 0, %entry ], [ %merged, %body ]
  %more = icmp ne i64 %i, %n
  br i1 %more, label %some, label %merge
some:
  %next = add i64 %i, 1
  br label %merge
merge:
  %merged = phi i64 [ %next, %some ], [ %i, %head ]
  %item = phi i64 [ %i, %some ], [ 0, %head ]
  br i1 %more, label %body, label %exit
body:
  %p = getelementptr i64, ptr %out, i64 %item
  store i64 %item, ptr %p
  br label %head
exit:
  ret void
}
"#;

#[test]
fn threads_the_merge_after_next() {
    let (n, out) = threaded(NEXT_MERGE);
    assert_eq!(n, 1, "{out}");
    assert!(!out.contains("merge:"), "{out}");
    // The header exits straight out; `some` goes straight to the body, whose values are
    // merged again there (one incoming edge each).
    assert!(
        out.contains("br i1 %more, label %some, label %exit"),
        "{out}"
    );
    assert!(out.contains("some:                                             ; preds = %head\n  %next = add i64 %i, 1\n  br label %body"), "{out}");
}

#[test]
fn leaves_a_merge_whose_values_are_used_after_both_paths() {
    // `%v` is used in `join`, which both successors reach: nowhere to merge it again.
    let ir = r#"
define void @f(i1 %more, ptr %out) {
entry:
  br i1 %more, label %a, label %merge
a:
  br label %merge
merge:
  %v = phi i64 [ 1, %a ], [ 2, %entry ]
  br i1 %more, label %yes, label %no
yes:
  br label %join
no:
  br label %join
join:
  store i64 %v, ptr %out
  ret void
}
"#;
    let (n, out) = threaded(ir);
    assert_eq!(n, 0, "{out}");
}

#[test]
fn leaves_a_merge_a_predecessor_does_not_decide() {
    // `other` reaches the merge without a branch on `%more` above it.
    let ir = r#"
define void @f(i1 %c, i1 %more, ptr %out) {
entry:
  br i1 %c, label %test, label %other
test:
  br i1 %more, label %merge, label %merge2
merge2:
  br label %merge
other:
  br label %merge
merge:
  %v = phi i64 [ 1, %test ], [ 2, %merge2 ], [ 3, %other ]
  br i1 %more, label %yes, label %no
yes:
  store i64 %v, ptr %out
  ret void
no:
  ret void
}
"#;
    let (n, out) = threaded(ir);
    assert_eq!(n, 0, "{out}");
}

#[test]
fn leaves_a_merge_that_computes() {
    // A block with more than phis would have to be copied: it is not threaded.
    let ir = NEXT_MERGE.replace(
        "  %item = phi i64 [ %i, %some ], [ 0, %head ]\n",
        "  %item = phi i64 [ %i, %some ], [ 0, %head ]\n  store i64 0, ptr %out\n",
    );
    let (n, out) = threaded(&ir);
    assert_eq!(n, 0, "{out}");
}

/// Review of 9156baf: a split on `%x` rejoined at `b`; threading sent both of its sides
/// straight to the barrier in `s`, where they would arrive apart. Not threaded.
#[test]
fn leaves_a_merge_where_another_split_reconverges() {
    let ir = r#"
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32) convergent
declare void @g(i64)
define void @f(i1 %c, i1 %x, ptr %o) {
entry:
  br i1 %x, label %q1, label %q2
q1:
  br i1 %c, label %p1, label %p2
q2:
  br i1 %c, label %p3, label %p4
p1:
  store i64 1, ptr %o
  br label %b
p2:
  store i64 2, ptr %o
  br label %b
p3:
  store i64 3, ptr %o
  br label %b
p4:
  store i64 4, ptr %o
  br label %b
b:
  %m = phi i64 [ 1, %p1 ], [ 2, %p2 ], [ 3, %p3 ], [ 4, %p4 ]
  br i1 %c, label %s, label %t
s:
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  call void @g(i64 %m)
  br label %exit
t:
  call void @g(i64 %m)
  br label %exit
exit:
  ret void
}
"#;
    let (n, out) = threaded(ir);
    assert_eq!(n, 0, "{out}");
}

/// Review of 9156baf: switch cases were read as 64 bits, so `1` and `2^64 + 1` looked alike.
/// A switch wider than 64 bits is not threaded.
#[test]
fn leaves_a_switch_wider_than_64_bits() {
    let ir = r#"
declare void @g(i32)
define i32 @f(i128 %v) {
entry:
  switch i128 %v, label %exit [ i128 18446744073709551617, label %p
                            i128 7, label %q ]
p:
  call void @g(i32 1)
  br label %b
q:
  call void @g(i32 2)
  br label %b
b:
  %m = phi i32 [ 10, %p ], [ 20, %q ]
  switch i128 %v, label %d [ i128 1, label %s1
                         i128 18446744073709551617, label %s2
                         i128 7, label %s3 ]
s1:
  ret i32 %m
s2:
  %m2 = add i32 %m, 1000
  ret i32 %m2
s3:
  %m3 = add i32 %m, 2000
  ret i32 %m3
d:
  ret i32 -1
exit:
  ret i32 0
}
"#;
    let (n, out) = threaded(ir);
    assert_eq!(n, 0, "{out}");
}

/// `if let Some((a, b)) = pairs.pair_mut(i)` once inlined: two `None` paths and the `Some` path
/// merge the reference (null for `None`) and test it against null; the exit is shared with the
/// code below. Each path goes straight to its side: the `None` paths to the exit (whose phi
/// takes their values), the `Some` path, an in-bounds address from a `nonnull` parameter, to the
/// body.
const NULL_TEST: &str = r#"
define i32 @f(ptr nonnull %base, i64 %i, i64 %n, i1 %wraps) {
entry:
  br i1 %wraps, label %merge, label %check
check:
  %in = icmp ult i64 %i, %n
  br i1 %in, label %some, label %merge
some:
  %p = getelementptr inbounds i32, ptr %base, i64 %i
  br label %merge
merge:
  %ref = phi ptr [ null, %entry ], [ null, %check ], [ %p, %some ]
  %idx = phi i64 [ undef, %entry ], [ undef, %check ], [ %i, %some ]
  %none = icmp eq ptr %ref, null
  br i1 %none, label %exit, label %body
body:
  %v = load i32, ptr %ref
  %w = trunc i64 %idx to i32
  %s = add i32 %v, %w
  store i32 %s, ptr %ref
  br label %exit
exit:
  %r = phi i32 [ 0, %merge ], [ %s, %body ]
  ret i32 %r
}
"#;

#[test]
fn threads_a_null_test_of_a_merged_reference() {
    let (n, out) = threaded(NULL_TEST);
    assert_eq!(n, 1, "{out}");
    assert!(!out.contains("merge:"), "{out}");
    assert!(!out.contains("icmp eq ptr"), "{out}");
    assert!(
        out.contains("br i1 %wraps, label %exit, label %check"),
        "{out}"
    );
    assert!(out.contains("br i1 %in, label %some, label %exit"), "{out}");
    // The exit's phi takes 0 from both `None` paths.
    assert!(out.contains("[ 0, %entry ], [ 0, %check ]"), "{out}");
}

#[test]
fn leaves_a_null_test_of_a_pointer_that_may_be_null() {
    // Without `nonnull` on the base, the `Some` path's pointer could be null.
    let ir = NULL_TEST.replace("ptr nonnull %base", "ptr %base");
    assert_eq!(threaded(&ir).0, 0);
    // Nor when the address computation is not in bounds.
    let ir = NULL_TEST.replace("getelementptr inbounds", "getelementptr");
    assert_eq!(threaded(&ir).0, 0);
}

#[test]
fn leaves_a_test_with_another_use() {
    let ir = NULL_TEST.replace(
        "  %r = phi i32 [ 0, %merge ], [ %s, %body ]\n",
        "  %r0 = phi i32 [ 0, %merge ], [ %s, %body ]\n  %keep = zext i1 %none to i32\n  %r = add i32 %r0, %keep\n",
    );
    assert_eq!(threaded(&ir).0, 0);
}

#[test]
fn leaves_a_null_test_when_a_barrier_follows_and_another_split_rejoins_there() {
    // The split on `%wraps` rejoins at the merge; with a barrier below, where the warp's
    // threads come together matters: not threaded.
    let ir = format!(
        "declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32) convergent\n{}",
        NULL_TEST.replace(
            "  %r = phi i32 [ 0, %merge ], [ %s, %body ]\n",
            "  %r = phi i32 [ 0, %merge ], [ %s, %body ]\n  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)\n",
        )
    );
    assert_eq!(threaded(&ir).0, 0);
}

/// `Zip::next` once inlined: the slice iterator's item (a pointer, null at its end) and the
/// array iterator's are merged as integers (`ptrtoint`), and the merge tests the first against
/// 0. On the path where the slice iterator gave an element, a branch above tested that pointer
/// against null: that decides the test there; the other paths bring constants.
const ZIP_NEXT: &str = r#"
define void @f(ptr nonnull %start, ptr %end, i64 %i) {
entry:
  br label %head
head:
  %p = phi ptr [ %start, %entry ], [ %next, %body ]
  %idx = phi i64 [ 0, %entry ], [ %idx.next, %body ]
  %at_end = icmp eq ptr %p, %end
  %next = getelementptr inbounds i8, ptr %p, i64 4
  %item = select i1 %at_end, ptr null, ptr %p
  %item.int = ptrtoint ptr %item to i64
  %none = icmp eq ptr %item, null
  br i1 %none, label %merge, label %second
second:
  %full = icmp eq i64 %idx, 4
  br i1 %full, label %merge, label %both
both:
  br label %merge
merge:
  %a = phi i64 [ 0, %head ], [ 0, %second ], [ %item.int, %both ]
  %k = phi i64 [ undef, %head ], [ undef, %second ], [ %idx, %both ]
  %stop = icmp eq i64 %a, 0
  br i1 %stop, label %exit, label %body
body:
  %ptr = inttoptr i64 %a to ptr
  %kf = trunc i64 %k to i32
  store i32 %kf, ptr %ptr
  %idx.next = add i64 %k, 1
  br label %head
exit:
  ret void
}
"#;

#[test]
fn threads_a_zero_test_decided_by_a_null_test_above() {
    let (n, out) = threaded(ZIP_NEXT);
    assert_eq!(n, 1, "{out}");
    assert!(!out.contains("merge:"), "{out}");
    assert!(
        out.contains("br i1 %none, label %exit, label %second"),
        "{out}"
    );
    assert!(
        out.contains("br i1 %full, label %exit, label %both"),
        "{out}"
    );
    assert!(out.contains("both:"), "{out}");
    assert!(out.contains("br label %body"), "{out}");
}

#[test]
fn leaves_a_zero_test_no_branch_above_decides() {
    // Without the null test above, `%item.int` on the `both` path could be 0.
    let ir = ZIP_NEXT.replace(
        "  %none = icmp eq ptr %item, null\n  br i1 %none, label %merge, label %second",
        "  %none = icmp eq i64 %idx, 7\n  br i1 %none, label %merge, label %second",
    );
    assert_eq!(threaded(&ir).0, 0);
}
