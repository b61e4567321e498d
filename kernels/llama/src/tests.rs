//! Each kernel on the CPU emulator against a plain-Rust reference (in f64 where the kernel
//! rounds, bit for bit where it only moves or adds), at a few tokens: the widths are the
//! model's.

use oxide::emulate::{FailureKind, KernelFailure};
use oxide::host::Rows;
use oxide::prelude::*;

use crate::*;

/// `len` values in about [-2, 2), the same for a `seed` every run.
pub(crate) fn values(len: usize, seed: u64) -> Vec<bf16> {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            bf16::from_f32((state >> 40) as f32 / (1u64 << 22) as f32 - 2.0)
        })
        .collect()
}

pub(crate) fn blocks(threads: usize, block: u32) -> LaunchConfig {
    LaunchConfig {
        grid: (threads.div_ceil(block as usize) as u32, 1, 1),
        block: (block, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// `got` is `want` rounded to bf16: within half a unit of bf16's last place (2^-9 of the
/// value), with room for the kernel's f32 arithmetic (`scale`: the size of the terms, where a
/// sum cancels them).
pub(crate) fn assert_rounded(got: &[bf16], want: &[f64], scale: impl Fn(usize) -> f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let error = (g.to_f64() - w).abs();
        let bound = (w.abs() + 1e-3 * scale(i)) / 256.0 + 1e-30;
        assert!(
            error <= bound,
            "{what} [{i}]: got {g:?} want {w} (error {error:e})"
        );
    }
}

/// HF's RMSNorm of `x` (rows of `HIDDEN`), in f64.
fn rmsnorm_reference(x: &[bf16], weight: &[bf16], eps: f32) -> Vec<f64> {
    let mut out = Vec::with_capacity(x.len());
    for row in x.chunks(HIDDEN) {
        let mean = row.iter().map(|v| v.to_f64().powi(2)).sum::<f64>() / HIDDEN as f64;
        let inv = 1.0 / (mean + f64::from(eps)).sqrt();
        out.extend(
            row.iter()
                .zip(weight)
                .map(|(v, w)| v.to_f64() * inv * w.to_f64()),
        );
    }
    out
}

/// That `refused` is a launch refused by `same_len` before anything ran.
pub(crate) fn assert_refused_lengths(refused: &KernelFailure) {
    assert!(
        matches!(refused.kind, FailureKind::ArgumentLengths(_)),
        "{refused}"
    );
}

/// A launch of a kernel with one argument's length (or a by-value argument) its `requires`
/// refuses: the condition it breaks as written, and the launch on the emulator, which returns
/// whether its outputs are still as they were (nothing ran).
pub(crate) type BadLaunch = (
    &'static str,
    Box<dyn Fn() -> (Result<(), KernelFailure>, bool)>,
);

/// That each launch of `cases` is refused by the `requires` condition it names, before anything
/// ran: from Python, a `ValueError`, not a trap that poisons the process's CUDA context.
pub(crate) fn assert_refused_requires(cases: Vec<BadLaunch>) {
    for (condition, launch) in cases {
        let (result, untouched) = launch();
        let refused = result.expect_err(condition);
        assert!(
            matches!(refused.kind, FailureKind::Requires(_)),
            "{refused}"
        );
        let want = format!("requires `{condition}`");
        assert!(
            refused.to_string().contains(&want),
            "{refused}, want {want}"
        );
        assert!(untouched, "{condition}: nothing ran");
    }
}

/// Whether every element of `out` is still NaN (as the refused launches' outputs start).
pub(crate) fn untouched<T: Copy + Into<f64>>(out: &[T]) -> bool {
    out.iter().all(|&v| v.into().is_nan())
}

/// Warps for `rows` rows, 8 a block: 11 rows leave the second block's last five warps none.
pub(crate) fn per_row(rows: usize) -> LaunchConfig {
    blocks(rows * 32, 256)
}

#[test]
fn rmsnorm_matches_the_reference() {
    let rows = 11;
    let (x, weight) = (values(rows * HIDDEN, 1), values(HIDDEN, 2));
    let mut out = vec![bf16::NAN; rows * HIDDEN];
    let eps = 1e-5;
    rmsnorm::emulate(
        &per_row(rows),
        &x,
        &weight,
        eps,
        Rows::new(&mut out[..], HIDDEN).unwrap(),
    )
    .unwrap();
    assert_rounded(
        &out,
        &rmsnorm_reference(&x, &weight, eps),
        |_| 0.0,
        "rmsnorm",
    );
}

#[test]
fn add_rmsnorm_stores_the_rounded_sum_and_its_norm() {
    let rows = 9;
    let (residual, delta, weight) = (
        values(rows * HIDDEN, 3),
        values(rows * HIDDEN, 4),
        values(HIDDEN, 5),
    );
    let (mut sum, mut normed) = (
        vec![bf16::NAN; rows * HIDDEN],
        vec![bf16::NAN; rows * HIDDEN],
    );
    let eps = 1e-5;
    add_rmsnorm::emulate(
        &per_row(rows),
        &residual,
        &delta,
        &weight,
        eps,
        Rows::new(&mut sum[..], HIDDEN).unwrap(),
        Rows::new(&mut normed[..], HIDDEN).unwrap(),
    )
    .unwrap();
    // As torch's bf16 add: the f32 sum of the two, rounded.
    let want: Vec<bf16> = residual
        .iter()
        .zip(&delta)
        .map(|(r, d)| bf16::from_f32(r.to_f32() + d.to_f32()))
        .collect();
    assert_eq!(sum, want);
    assert_rounded(
        &normed,
        &rmsnorm_reference(&want, &weight, eps),
        |_| 0.0,
        "normed",
    );
}

/// HF Llama's angles for `seq` positions as the kernel takes them: row `p` the cosines of
/// `p · inv_freq`, then their sines, in f32.
pub(crate) fn rope_table(seq: usize) -> Vec<f32> {
    let theta = 500_000f32;
    let inv_freq: Vec<f32> = (0..HEAD_DIM / 2)
        .map(|j| 1.0 / theta.powf((2 * j) as f32 / HEAD_DIM as f32))
        .collect();
    let mut table = Vec::with_capacity(seq * HEAD_DIM);
    for p in 0..seq {
        let angles: Vec<f32> = inv_freq.iter().map(|f| p as f32 * f).collect();
        table.extend(angles.iter().map(|a| a.cos()));
        table.extend(angles.iter().map(|a| a.sin()));
    }
    table
}

/// `[q | k | v]` of `qkv` as HF computes it (`q·cos + rotate_half(q)·sin`), in f64 from the
/// same table, with the size of each output's two terms.
fn rope_reference(qkv: &[bf16], table: &[f32], batch: usize, seq: usize) -> (Vec<f64>, Vec<f64>) {
    let (mut out, mut scale) = (Vec::new(), Vec::new());
    for (heads, first_head, rotated) in [
        (HEADS, 0, true),
        (KV_HEADS, HEADS, true),
        (KV_HEADS, HEADS + KV_HEADS, false),
    ] {
        for b in 0..batch {
            for h in 0..heads {
                for s in 0..seq {
                    let row =
                        &qkv[(b * seq + s) * QKV_WIDTH + (first_head + h) * HEAD_DIM..][..HEAD_DIM];
                    for i in 0..HEAD_DIM {
                        let x = row[i].to_f64();
                        if !rotated {
                            out.push(x);
                            scale.push(0.0);
                            continue;
                        }
                        let j = i % (HEAD_DIM / 2);
                        let (cos, sin) = (
                            f64::from(table[s * HEAD_DIM + j]),
                            f64::from(table[s * HEAD_DIM + HEAD_DIM / 2 + j]),
                        );
                        let half = if i < HEAD_DIM / 2 {
                            -row[i + HEAD_DIM / 2].to_f64()
                        } else {
                            row[i - HEAD_DIM / 2].to_f64()
                        };
                        out.push(x * cos + half * sin);
                        scale.push((x * cos).abs() + (half * sin).abs());
                    }
                }
            }
        }
    }
    (out, scale)
}

#[test]
fn rope_qkv_rotates_q_and_k_and_copies_v_into_head_major_order() {
    let (batch, seq) = (2, 3);
    let qkv = values(batch * seq * QKV_WIDTH, 6);
    // Positions past `seq` in the table are not read.
    let table = rope_table(seq + 2);
    let mut out = vec![bf16::NAN; qkv.len()];
    let rows = out.len() / rope::ROPE_ROW;
    rope_qkv::emulate(
        &per_row(rows),
        &qkv,
        &table,
        seq,
        Rows::new(&mut out[..], rope::ROPE_ROW).unwrap(),
    )
    .unwrap();
    let (want, scale) = rope_reference(&qkv, &table, batch, seq);
    assert_rounded(&out, &want, |i| scale[i], "rope_qkv");
    // The value heads are moved, not rounded.
    let v = batch * seq * (HEADS + KV_HEADS) * HEAD_DIM;
    assert!(
        out[v..]
            .iter()
            .zip(&want[v..])
            .all(|(g, w)| g.to_f64() == *w)
    );
}

#[test]
fn rope_at_position_zero_is_the_identity() {
    let qkv = values(QKV_WIDTH, 7);
    let mut out = vec![bf16::NAN; qkv.len()];
    let rows = out.len() / rope::ROPE_ROW;
    let out_rows = Rows::new(&mut out[..], rope::ROPE_ROW).unwrap();
    rope_qkv::emulate(&per_row(rows), &qkv, &rope_table(1), 1, out_rows).unwrap();
    assert_eq!(out, qkv, "one token: heads in order, cos 1 and sin 0");
}

#[test]
fn heads_to_tokens_moves_every_element() {
    let (batch, seq) = (2, 5);
    let attn = values(batch * HEADS * seq * HEAD_DIM, 8);
    let mut out = vec![bf16::NAN; attn.len()];
    let out_rows = Rows::new(&mut out[..], HEADS * HEAD_DIM).unwrap();
    heads_to_tokens::emulate(&per_row(batch * seq), &attn, seq, out_rows).unwrap();
    for b in 0..batch {
        for h in 0..HEADS {
            for s in 0..seq {
                for d in 0..HEAD_DIM {
                    let from = ((b * HEADS + h) * seq + s) * HEAD_DIM + d;
                    let to = (b * seq + s) * HEADS * HEAD_DIM + h * HEAD_DIM + d;
                    assert_eq!(out[to], attn[from], "b {b} h {h} s {s} d {d}");
                }
            }
        }
    }
}

#[test]
fn swiglu_matches_the_reference() {
    let tokens = 3;
    let mut gate_up = values(tokens * 2 * INTERMEDIATE, 9);
    // Gates far out on both sides, where e^-g is 0 or overflows.
    gate_up[5] = bf16::from_f32(-120.0);
    gate_up[6] = bf16::from_f32(95.0);
    let mut out = vec![bf16::NAN; tokens * INTERMEDIATE];
    let out_rows = Rows::new(&mut out[..], INTERMEDIATE).unwrap();
    swiglu::emulate(&per_row(tokens), &gate_up, out_rows).unwrap();
    let want: Vec<f64> = (0..out.len())
        .map(|e| {
            let (t, j) = (e / INTERMEDIATE, e % INTERMEDIATE);
            let g = gate_up[2 * t * INTERMEDIATE + j].to_f64();
            let u = gate_up[(2 * t + 1) * INTERMEDIATE + j].to_f64();
            g / (1.0 + (-g).exp()) * u
        })
        .collect();
    assert_rounded(&out, &want, |_| 0.0, "swiglu");
}

#[test]
fn residual_add_adds_every_element() {
    let rows = 10;
    let (a, b) = (values(rows * HIDDEN, 10), values(rows * HIDDEN, 11));
    let want: Vec<bf16> = a
        .iter()
        .zip(&b)
        .map(|(x, y)| bf16::from_f32(x.to_f32() + y.to_f32()))
        .collect();
    let mut out = vec![bf16::NAN; rows * HIDDEN];
    residual_add::emulate(
        &per_row(rows),
        &a,
        &b,
        Rows::new(&mut out[..], HIDDEN).unwrap(),
    )
    .unwrap();
    assert_eq!(out, want);
}

/// An output of another width, or of fewer rows than its buffer (a rectangle of it), is refused
/// by the launch's `requires` on the output's shape, before anything runs (from Python, a
/// `ValueError`; on the GPU it was a trap that poisons the process's CUDA context), with the
/// shape named. The second is what makes `x.len() == out.len()` a row of `x` a row of `out`.
#[test]
fn a_row_of_another_width_or_a_part_of_the_buffer_is_refused() {
    let assert_refused_shape = |refused: KernelFailure, shape: &str| {
        assert!(
            matches!(refused.kind, FailureKind::Requires(_)),
            "{refused}"
        );
        assert!(refused.to_string().contains(shape), "{refused}");
    };
    let (a, b) = (values(2 * 2048, 12), values(2 * 2048, 13));
    let mut out = vec![bf16::NAN; 2 * 2048];
    let out_rows = Rows::new(&mut out[..], 2048).unwrap();
    let refused = residual_add::emulate(&per_row(2), &a, &b, out_rows).unwrap_err();
    assert_refused_shape(
        refused,
        "`out` 2 × 2048 (rows × width), pitch 2048, origin (0, 0)",
    );
    assert!(untouched(&out));
    let (x, weight) = (values(2 * HIDDEN, 14), values(HIDDEN, 15));
    let mut out = vec![bf16::NAN; 2 * HIDDEN];
    let first_row = Rows::new(&mut out[..], HIDDEN)
        .unwrap()
        .rect(0..1, 0..HIDDEN)
        .unwrap();
    let refused = rmsnorm::emulate(&per_row(1), &x, &weight, 1e-5, first_row).unwrap_err();
    assert_refused_shape(
        refused,
        "`out` 1 × 4096 (rows × width), pitch 4096, origin (0, 0)",
    );
    assert!(untouched(&out));
}

/// Inputs of two lengths are refused by the launch's `same_len` check before any thread runs
/// (from Python, an exception), not by the kernel's assert (on the GPU, a trap that poisons the
/// process's CUDA context).
#[test]
fn inputs_of_two_lengths_are_refused_before_the_launch() {
    let (a, b) = (values(2 * HIDDEN, 14), values(HIDDEN, 15));
    let mut out = vec![bf16::NAN; 2 * HIDDEN];
    let refused = residual_add::emulate(
        &per_row(2),
        &a,
        &b,
        Rows::new(&mut out[..], HIDDEN).unwrap(),
    )
    .unwrap_err();
    assert_refused_lengths(&refused);
}

/// Each length rule of the row kernels is their launch's `requires`, checked before anything
/// runs: one argument a row (or an element) off at a time, the others right, at 2 rows.
#[test]
fn the_row_kernels_refuse_bad_lengths_before_running() {
    let nan = |len| vec![bf16::NAN; len];
    let eps = 1e-5;
    let rmsnorm_with =
        move |x_rows: usize, weight_len: usize| -> (Result<(), KernelFailure>, bool) {
            let mut out = nan(2 * HIDDEN);
            let (x, weight) = (values(x_rows * HIDDEN, 40), values(weight_len, 41));
            let out_rows = Rows::new(&mut out[..], HIDDEN).unwrap();
            let result = rmsnorm::emulate(&per_row(2), &x, &weight, eps, out_rows);
            (result, untouched(&out))
        };
    let add_rmsnorm_with = move |residual: usize,
                                 delta: usize,
                                 weight: usize,
                                 normed: usize|
          -> (Result<(), KernelFailure>, bool) {
        let (mut sum, mut out) = (nan(2 * HIDDEN), nan(normed * HIDDEN));
        let (r, d, w) = (
            values(residual * HIDDEN, 42),
            values(delta * HIDDEN, 43),
            values(weight, 44),
        );
        let result = add_rmsnorm::emulate(
            &per_row(2),
            &r,
            &d,
            &w,
            eps,
            Rows::new(&mut sum[..], HIDDEN).unwrap(),
            Rows::new(&mut out[..], HIDDEN).unwrap(),
        );
        (result, untouched(&sum) && untouched(&out))
    };
    // batch 1 × seq 2: 2 tokens, `2 · QKV_WIDTH / ROPE_ROW` output rows.
    let rope_with = move |qkv_len: usize,
                          out_len: usize,
                          seq: usize,
                          table_rows: usize|
          -> (Result<(), KernelFailure>, bool) {
        let mut out = nan(out_len);
        let (qkv, table) = (values(qkv_len, 45), rope_table(table_rows));
        let out_rows = Rows::new(&mut out[..], rope::ROPE_ROW).unwrap();
        let rows = out_len / rope::ROPE_ROW;
        let result = rope_qkv::emulate(&per_row(rows), &qkv, &table, seq, out_rows);
        (result, untouched(&out))
    };
    let heads_with = move |attn_rows: usize, seq: usize| -> (Result<(), KernelFailure>, bool) {
        let mut out = nan(2 * HIDDEN);
        let attn = values(attn_rows * HEADS * HEAD_DIM, 46);
        let out_rows = Rows::new(&mut out[..], HEADS * HEAD_DIM).unwrap();
        let result = heads_to_tokens::emulate(&per_row(2), &attn, seq, out_rows);
        (result, untouched(&out))
    };
    let qkv = 2 * QKV_WIDTH;
    let cases: Vec<BadLaunch> = vec![
        (
            "x.len() == out.len()",
            Box::new(move || rmsnorm_with(3, HIDDEN)),
        ),
        (
            "weight.len() == HIDDEN",
            Box::new(move || rmsnorm_with(2, HIDDEN - 8)),
        ),
        (
            "residual.len() == sum.len() && delta.len() == sum.len() && normed.len() == sum.len()",
            Box::new(move || add_rmsnorm_with(1, 2, HIDDEN, 2)),
        ),
        (
            "residual.len() == sum.len() && delta.len() == sum.len() && normed.len() == sum.len()",
            Box::new(move || add_rmsnorm_with(2, 3, HIDDEN, 2)),
        ),
        (
            "residual.len() == sum.len() && delta.len() == sum.len() && normed.len() == sum.len()",
            Box::new(move || add_rmsnorm_with(2, 2, HIDDEN, 1)),
        ),
        (
            "weight.len() == HIDDEN",
            Box::new(move || add_rmsnorm_with(2, 2, 2 * HIDDEN, 2)),
        ),
        (
            "qkv.len() == out.len()",
            Box::new(move || rope_with(qkv, qkv - rope::ROPE_ROW, 2, 2)),
        ),
        (
            "seq > 0 && qkv.len().is_multiple_of(QKV_WIDTH) && (qkv.len() / QKV_WIDTH).is_multiple_of(seq)",
            Box::new(move || rope_with(qkv, qkv, 0, 2)),
        ),
        (
            "seq > 0 && qkv.len().is_multiple_of(QKV_WIDTH) && (qkv.len() / QKV_WIDTH).is_multiple_of(seq)",
            Box::new(move || rope_with(qkv, qkv, 3, 3)),
        ),
        (
            "seq > 0 && qkv.len().is_multiple_of(QKV_WIDTH) && (qkv.len() / QKV_WIDTH).is_multiple_of(seq)",
            Box::new(move || rope_with(qkv + rope::ROPE_ROW, qkv + rope::ROPE_ROW, 1, 3)),
        ),
        // A `seq` whose product with QKV_WIDTH would wrap: refused, not a panic.
        (
            "seq > 0 && qkv.len().is_multiple_of(QKV_WIDTH) && (qkv.len() / QKV_WIDTH).is_multiple_of(seq)",
            Box::new(move || rope_with(qkv, qkv, 1 << 63, 2)),
        ),
        (
            "table.len() / HEAD_DIM >= seq",
            Box::new(move || rope_with(qkv, qkv, 2, 1)),
        ),
        (
            "attn.len() == out.len()",
            Box::new(move || heads_with(1, 2)),
        ),
        (
            "seq > 0 && (out.len() / ROW).is_multiple_of(seq)",
            Box::new(move || heads_with(2, 0)),
        ),
        (
            "seq > 0 && (out.len() / ROW).is_multiple_of(seq)",
            Box::new(move || heads_with(2, 3)),
        ),
        (
            "gate_up.len() == 2 * out.len()",
            Box::new(move || {
                let mut out = nan(2 * INTERMEDIATE);
                let gate_up = values(3 * INTERMEDIATE, 47);
                let out_rows = Rows::new(&mut out[..], INTERMEDIATE).unwrap();
                (
                    swiglu::emulate(&per_row(2), &gate_up, out_rows),
                    untouched(&out),
                )
            }),
        ),
        (
            "a.len() == out.len()",
            Box::new(move || {
                let mut out = nan(2 * HIDDEN);
                let (a, b) = (values(3 * HIDDEN, 48), values(3 * HIDDEN, 49));
                let out_rows = Rows::new(&mut out[..], HIDDEN).unwrap();
                (
                    residual_add::emulate(&per_row(2), &a, &b, out_rows),
                    untouched(&out),
                )
            }),
        ),
    ];
    assert_refused_requires(cases);
}
