//! Every safety rule of the kernel API is a compile error (the expected messages are in
//! tests/ui/*.stderr; regenerate them with `TRYBUILD=overwrite` after a toolchain change).

#[test]
fn compile_fail() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
