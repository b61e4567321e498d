//! Every safety rule of the kernel API is a compile error (the expected messages are in
//! tests/ui/*.stderr). `OXIDE_BLESS=1 cargo test -p oxide --test compile_fail` rewrites them,
//! e.g. after a toolchain change; it is the repository's one bless switch, mapped here to
//! trybuild's own `TRYBUILD=overwrite`.

use std::process::Command;

#[test]
fn compile_fail() {
    let bless = std::env::var_os("OXIDE_BLESS").is_some_and(|v| !v.is_empty() && v != "0");
    if bless && std::env::var_os("TRYBUILD").is_none() {
        // trybuild reads `TRYBUILD` from the environment, and a running test cannot set a
        // variable soundly (other threads may read the environment): run this test again in a
        // child process that has it.
        let exe = std::env::current_exe().expect("the test binary's path");
        let status = Command::new(&exe)
            .args(["compile_fail", "--exact", "--nocapture"])
            .env("TRYBUILD", "overwrite")
            .status()
            .unwrap_or_else(|e| panic!("running {} with TRYBUILD=overwrite: {e}", exe.display()));
        assert!(status.success(), "blessing the trybuild cases failed");
        return;
    }
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
