//! How much memory a check may ask for. Every buffer is held several times over: the GPU holds
//! one copy per kernel; the harness holds one copy of every buffer on the host (its inputs read
//! from the files check-port writes, its outputs copied back); check-port generates each input
//! in memory before writing it, and reads both kernels' copies of a compared buffer to compare
//! them. A size that no machine can hold is refused before anything is allocated, with the
//! buffers' sizes and what to change, rather than ending in an allocator's abort.

use super::spec::Plan;

/// The most bytes all the buffers of one check may have together: 64 GiB. The GPU holds two
/// copies of each (one per kernel), 128 GiB, which an H200 (141 GB) holds with room for the
/// runtime and the kernels' own allocations; no GPU oxide targets holds twice that.
pub const MAX_BUFFER_BYTES: u64 = 64 << 30;

/// `bytes` for a message: exact, and in GiB when that large.
pub fn size_text(bytes: u64) -> String {
    if bytes >= 1 << 30 {
        format!(
            "{bytes} bytes ({:.1} GiB)",
            bytes as f64 / (1u64 << 30) as f64
        )
    } else {
        format!("{bytes} bytes")
    }
}

/// Each buffer's name and bytes at the plan's `n`, or why a byte count does not fit in `u64`.
fn buffer_bytes(plan: &Plan) -> Result<Vec<(&str, u64)>, String> {
    plan.buffers
        .iter()
        .map(|(b, len)| {
            let bytes = len.checked_mul(b.elem.size() as u64).ok_or_else(|| {
                format!(
                    "buffer `{}`: {len} elements of {} overflow a byte count",
                    b.name, b.elem
                )
            })?;
            Ok((b.name.as_str(), bytes))
        })
        .collect()
}

/// Refuses buffers whose bytes, all together, are more than [`MAX_BUFFER_BYTES`].
pub fn check_buffers(plan: &Plan) -> Result<(), String> {
    let sizes = buffer_bytes(plan)?;
    // Saturating: a sum past u64 is past the limit too, and is reported as such.
    let total = sizes.iter().fold(0u64, |t, (_, b)| t.saturating_add(*b));
    if total <= MAX_BUFFER_BYTES {
        return Ok(());
    }
    let each: Vec<String> = sizes
        .iter()
        .map(|(name, bytes)| format!("`{name}` {}", size_text(*bytes)))
        .collect();
    Err(format!(
        "the buffers need {} in all at n = {} ({}), more than check-port's limit of {} (the GPU \
         holds two copies of each, one per kernel): give a smaller --n or shorter buffers",
        size_text(total),
        plan.n,
        each.join(", "),
        size_text(MAX_BUFFER_BYTES)
    ))
}

/// The most host memory the check holds at once, in bytes: the harness holds every buffer once,
/// plus, while it reads a generated buffer into a growing vector, up to that buffer's bytes
/// again; check-port, before and after the harness runs, holds one generated buffer, or both
/// kernels' copies of one compared buffer. Call after [`check_buffers`] (sizes fit in `u64`).
pub fn host_bytes_needed(plan: &Plan) -> Result<u64, String> {
    let sizes = buffer_bytes(plan)?;
    let largest = |keep: fn(&super::spec::Role) -> bool| {
        plan.buffers
            .iter()
            .zip(&sizes)
            .filter(|((b, _), _)| keep(&b.role))
            .map(|(_, (_, bytes))| *bytes)
            .max()
            .unwrap_or(0)
    };
    let total = sizes.iter().fold(0u64, |t, (_, b)| t.saturating_add(*b));
    let harness = total.saturating_add(largest(|r| r.generated()));
    let comparing = largest(|r| r.compared()).saturating_mul(2);
    Ok(harness.max(comparing))
}

/// Refuses a plan whose host memory ([`host_bytes_needed`]) is more than `available` bytes.
pub fn check_host_memory(plan: &Plan, available: u64) -> Result<(), String> {
    let needed = host_bytes_needed(plan)?;
    if needed <= available {
        return Ok(());
    }
    Err(format!(
        "the buffers at n = {} need about {} of host memory (the harness holds a copy of every \
         buffer, check-port two copies of a compared one), and this machine has {} available: \
         give a smaller --n or shorter buffers, or free memory",
        plan.n,
        size_text(needed),
        size_text(available)
    ))
}

/// The host memory available now (`MemAvailable` in /proc/meminfo), where the system says.
pub fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib: u64 = info
        .lines()
        .find_map(|line| line.strip_prefix("MemAvailable:"))?
        .trim()
        .strip_suffix("kB")?
        .trim()
        .parse()
        .ok()?;
    kib.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check_port::spec::{Buffer, Side, Tolerance, parse_args};

    fn plan(buffers: &[&str], n: u64) -> Plan {
        let buffers = buffers
            .iter()
            .map(|b| {
                let b: Buffer = b.parse().unwrap();
                let len = b.len.eval(n).unwrap();
                (b, len)
            })
            .collect();
        let side = Side {
            kernel: "k".into(),
            args: parse_args("").unwrap(),
            grid: [1; 3],
            block: [1; 3],
            shared_bytes: 0,
        };
        Plan {
            n,
            buffers,
            cuda: side.clone(),
            oxide: side,
            tolerance: Tolerance::Exact,
            reps: 1,
        }
    }

    /// Review of issue 18: `--n 2^60` with a u64 buffer panicked with "capacity overflow" and
    /// `--n 2^44` aborted the process ("memory allocation of 140737488355328 bytes failed"):
    /// only a byte count past u64 was refused.
    #[test]
    fn buffers_past_the_limit_are_refused_with_their_sizes() {
        assert!(check_buffers(&plan(&["a:u64:n:inout"], 1 << 33)).is_ok());
        let e = check_buffers(&plan(&["a:u64:n:inout"], 1 << 44)).unwrap_err();
        assert!(
            e.contains("`a` 140737488355328 bytes (131072.0 GiB)"),
            "{e}"
        );
        assert!(e.contains("give a smaller --n"), "{e}");
        assert!(check_buffers(&plan(&["a:u64:n:inout"], 1 << 60)).is_err());
        // Each fits, the two together do not.
        let two = plan(&["a:f32:n:in", "c:f32:n:out"], 1 << 34);
        let e = check_buffers(&two).unwrap_err();
        assert!(e.contains("137438953472 bytes (128.0 GiB) in all"), "{e}");
        // Past u64 in all: refused, not wrapped into a small total.
        let wraps = plan(&["a:u8:n:in", "b:u8:n:in", "c:u8:n:out"], 1 << 63);
        assert!(check_buffers(&wraps).is_err());
        let e = check_buffers(&plan(&["c:u64:n:out"], 1 << 62)).unwrap_err();
        assert!(e.contains("overflow a byte count"), "{e}");
    }

    #[test]
    fn host_memory_counts_every_copy() {
        // 4 KiB in, 8 KiB out: the harness holds 12 KiB plus 4 KiB while it reads the input;
        // comparing holds 16 KiB.
        let p = plan(&["a:u32:n:in", "c:u64:n:out"], 1024);
        assert_eq!(host_bytes_needed(&p).unwrap(), 16 * 1024);
        assert!(check_host_memory(&p, 16 * 1024).is_ok());
        let e = check_host_memory(&p, 16 * 1024 - 1).unwrap_err();
        assert!(e.contains("about 16384 bytes of host memory"), "{e}");
        assert!(e.contains("16383 bytes available"), "{e}");
        let inout = plan(&["a:u8:n:inout"], 100);
        assert_eq!(host_bytes_needed(&inout).unwrap(), 200);
    }

    #[test]
    fn this_machine_says_how_much_memory_it_has() {
        if std::path::Path::new("/proc/meminfo").exists() {
            assert!(available_memory().is_some_and(|m| m > 0));
        }
    }
}
