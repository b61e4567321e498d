//! The decode step's kernels on the CPU emulator against plain-Rust references in f64: the
//! GEMVs at the model's `K` (4096 and 14336) over a few rows, RoPE and the cache append at two
//! sequences of different lengths, and the split attention at lengths that end inside a split,
//! on a split's edge, and at the cache's end.

use oxide::emulate::{FailureKind, KernelFailure};
use oxide::host::Rows;
use oxide::prelude::*;

use crate::decode_attn::{GROUP, PARTIAL};
use crate::matvec::STEP;
use crate::tests::{
    BadLaunch, assert_refused_lengths, assert_refused_requires, assert_rounded, blocks, per_row,
    rope_table, untouched, values,
};
use crate::*;

/// `W·x` in f64, with each product's size summed (the scale of the f32 sum's error).
fn matvec_reference(w: &[bf16], x: &[bf16]) -> Vec<(f64, f64)> {
    w.chunks(x.len())
        .map(|row| {
            row.iter().zip(x).fold((0.0, 0.0), |(sum, size), (a, b)| {
                let p = a.to_f64() * b.to_f64();
                (sum + p, size + p.abs())
            })
        })
        .collect()
}

/// Rows of one column: the GEMVs' outputs.
fn column(out: &mut [bf16]) -> Rows<&mut [bf16]> {
    let n = out.len();
    Rows::new(out, 1).unwrap_or_else(|_| panic!("a column of {n}"))
}

#[test]
fn gemv_matches_the_reference_at_both_widths() {
    // 11 rows: the second block's last five warps have none.
    for (k, rows, seed) in [(HIDDEN, 11, 20), (INTERMEDIATE, 9, 21)] {
        let (w, x) = (values(rows * k, seed), values(k, seed + 100));
        let mut y = vec![bf16::NAN; rows];
        gemv::emulate(&per_row(rows), &w, &x, column(&mut y)).unwrap();
        let want = matvec_reference(&w, &x);
        let exact: Vec<f64> = want.iter().map(|p| p.0).collect();
        assert_rounded(&y, &exact, |i| want[i].1, "gemv");
    }
}

#[test]
fn gemv_add_rounds_the_product_then_adds_the_residual() {
    let (k, rows) = (INTERMEDIATE, 10);
    let (w, x, residual) = (values(rows * k, 22), values(k, 23), values(rows, 24));
    let mut y = vec![bf16::NAN; rows];
    gemv_add::emulate(&per_row(rows), &w, &x, &residual, column(&mut y)).unwrap();
    let want = matvec_reference(&w, &x);
    let exact: Vec<f64> = want
        .iter()
        .zip(&residual)
        .map(|(p, r)| p.0 + r.to_f64())
        .collect();
    // Two roundings: the product's (half a unit of it) and the sum's; 1000 times the product's
    // size in `scale` is that first half unit in `assert_rounded`'s terms.
    assert_rounded(
        &y,
        &exact,
        |i| 1000.0 * want[i].0.abs() + want[i].1,
        "gemv_add",
    );
}

#[test]
fn gemv_swiglu_takes_the_gate_and_up_rows() {
    let (k, n) = (HIDDEN, 12);
    let (w, x) = (values(2 * n * k, 25), values(k, 26));
    let mut m = vec![bf16::NAN; n];
    gemv_swiglu::emulate(&per_row(n), &w, &x, column(&mut m)).unwrap();
    let products = matvec_reference(&w, &x);
    let (gate, up) = products.split_at(n);
    let silu = |g: f64| g / (1.0 + (-g).exp());
    let exact: Vec<f64> = (0..n).map(|j| silu(gate[j].0) * up[j].0).collect();
    // The gate and up are rounded to bf16 before the product: a unit of each, relative.
    assert_rounded(
        &m,
        &exact,
        |j| 2000.0 * exact[j].abs() + gate[j].1 * up[j].1,
        "gemv_swiglu",
    );
}

/// The GEMVs' length rules are their launches' `requires`, checked before anything runs: `x` of
/// whole steps, `w` `[N, K]` (`[2N, K]` for `gemv_swiglu`) and the residual `[N]`, at `N` = 4.
#[test]
fn the_gemvs_refuse_bad_lengths_before_running() {
    const X: &str = "x.len() > 0 && x.len().is_multiple_of(STEP)";
    let n = 4;
    // `(w, x, residual)` lengths; `gemv_swiglu`'s `w` is twice as long.
    let gemv_with = move |w: usize, x: usize| -> (Result<(), KernelFailure>, bool) {
        let mut y = vec![bf16::NAN; n];
        let result = gemv::emulate(&per_row(n), &values(w, 50), &values(x, 51), column(&mut y));
        (result, untouched(&y))
    };
    let gemv_add_with = move |w: usize, x: usize, r: usize| -> (Result<(), KernelFailure>, bool) {
        let mut y = vec![bf16::NAN; n];
        let (w, x, r) = (values(w, 52), values(x, 53), values(r, 54));
        let result = gemv_add::emulate(&per_row(n), &w, &x, &r, column(&mut y));
        (result, untouched(&y))
    };
    let gemv_swiglu_with = move |w: usize, x: usize| -> (Result<(), KernelFailure>, bool) {
        let mut m = vec![bf16::NAN; n];
        let (w, x) = (values(w, 55), values(x, 56));
        let result = gemv_swiglu::emulate(&per_row(n), &w, &x, column(&mut m));
        (result, untouched(&m))
    };
    let k = HIDDEN;
    let cases: Vec<BadLaunch> = vec![
        (X, Box::new(move || gemv_with(0, 0))),
        (X, Box::new(move || gemv_with(n * (k + 8), k + 8))),
        (X, Box::new(move || gemv_with(n * STEP / 2, STEP / 2))),
        (
            "w.len() == y.len() * x.len()",
            Box::new(move || gemv_with((n - 1) * k, k)),
        ),
        (
            "w.len() == y.len() * x.len()",
            Box::new(move || gemv_with(n * k + 8, k)),
        ),
        (X, Box::new(move || gemv_add_with(n * (k - 8), k - 8, n))),
        (
            "w.len() == y.len() * x.len() && residual.len() == y.len()",
            Box::new(move || gemv_add_with((n + 1) * k, k, n)),
        ),
        (
            "w.len() == y.len() * x.len() && residual.len() == y.len()",
            Box::new(move || gemv_add_with(n * k, k, n - 1)),
        ),
        (X, Box::new(move || gemv_swiglu_with(2 * n * 8, 8))),
        // `[N, K]`, not `[2N, K]`: the up rows missing.
        (
            "w.len() == 2 * m.len() * x.len()",
            Box::new(move || gemv_swiglu_with(n * k, k)),
        ),
    ];
    assert_refused_requires(cases);
}

/// bf16 values of `x` as the caches' words (two a word, the first the low half).
fn as_words(x: &[bf16]) -> Vec<i32> {
    x.chunks(2)
        .map(|p| (u32::from(p[0].to_bits()) | (u32::from(p[1].to_bits()) << 16)) as i32)
        .collect()
}

fn from_words(words: &[i32]) -> Vec<bf16> {
    words
        .iter()
        .flat_map(|&w| {
            let w = w as u32;
            [bf16::from_bits(w as u16), bf16::from_bits((w >> 16) as u16)]
        })
        .collect()
}

/// Head row `x` (128 elements) rotated at `position` by HF's rule, in f64, with each output's
/// terms' size.
fn rotated(x: &[bf16], table: &[f32], position: usize) -> (Vec<f64>, Vec<f64>) {
    let half = HEAD_DIM / 2;
    (0..HEAD_DIM)
        .map(|i| {
            let j = i % half;
            let cos = f64::from(table[position * HEAD_DIM + j]);
            let sin = f64::from(table[position * HEAD_DIM + half + j]);
            let pair = if i < half {
                -x[i + half].to_f64()
            } else {
                x[i - half].to_f64()
            };
            let a = x[i].to_f64() * cos;
            (a + pair * sin, a.abs() + (pair * sin).abs())
        })
        .unzip()
}

#[test]
fn rope_append_rotates_q_and_k_at_each_sequence_length_and_appends_k_and_v() {
    let (batch, max_seq) = (2, 8);
    let lens = [3i32, 8];
    let qkv = values(batch * QKV_WIDTH, 27);
    let table = rope_table(max_seq);
    let cache_len = batch * KV_HEADS * max_seq * HEAD_DIM;
    let (k_before, v_before) = (values(cache_len, 28), values(cache_len, 29));
    let (mut k_words, mut v_words) = (as_words(&k_before), as_words(&v_before));
    let mut q = vec![bf16::NAN; batch * HEADS * HEAD_DIM];
    rope_append::emulate(
        &per_row(batch * HEADS),
        &qkv,
        &table,
        &lens,
        &mut k_words[..],
        &mut v_words[..],
        Rows::new(&mut q[..], HEAD_DIM).unwrap(),
    )
    .unwrap();
    let (k_after, v_after) = (from_words(&k_words), from_words(&v_words));
    let (mut k_want, mut v_want) = (k_before.clone(), v_before.clone());
    for b in 0..batch {
        let p = lens[b] as usize - 1;
        let token = &qkv[b * QKV_WIDTH..(b + 1) * QKV_WIDTH];
        for h in 0..HEADS {
            let (want, size) = rotated(&token[h * HEAD_DIM..][..HEAD_DIM], &table, p);
            let got = &q[(b * HEADS + h) * HEAD_DIM..][..HEAD_DIM];
            assert_rounded(got, &want, |i| size[i], "rope_append q");
        }
        for kv in 0..KV_HEADS {
            let at = ((b * KV_HEADS + kv) * max_seq + p) * HEAD_DIM;
            let k = &token[(HEADS + kv) * HEAD_DIM..][..HEAD_DIM];
            let (want, size) = rotated(k, &table, p);
            assert_rounded(&k_after[at..at + HEAD_DIM], &want, |i| size[i], "k");
            k_want[at..at + HEAD_DIM].copy_from_slice(&k_after[at..at + HEAD_DIM]);
            let v = &token[(HEADS + KV_HEADS + kv) * HEAD_DIM..][..HEAD_DIM];
            v_want[at..at + HEAD_DIM].copy_from_slice(v);
        }
    }
    // Nothing but the new positions changed, and the values were moved as they were.
    assert_eq!(k_after, k_want, "k cache outside the new positions");
    assert_eq!(v_after, v_want, "v cache");
}

/// Attention of each query head over the first `lens[b]` keys of its KV head, in f64:
/// `[batch · HEADS · HEAD_DIM]`, token-major.
fn attention_reference(
    q: &[bf16],
    k: &[bf16],
    v: &[bf16],
    lens: &[i32],
    max_seq: usize,
    scale: f64,
) -> Vec<f64> {
    let mut out = Vec::new();
    for (b, &len) in lens.iter().enumerate() {
        for h in 0..HEADS {
            let kv = h / GROUP;
            let qh = &q[(b * HEADS + h) * HEAD_DIM..][..HEAD_DIM];
            let row = |cache: &[bf16], j: usize| {
                cache[((b * KV_HEADS + kv) * max_seq + j) * HEAD_DIM..][..HEAD_DIM].to_vec()
            };
            let scores: Vec<f64> = (0..len as usize)
                .map(|j| {
                    let kj = row(k, j);
                    scale
                        * qh.iter()
                            .zip(&kj)
                            .map(|(a, b)| a.to_f64() * b.to_f64())
                            .sum::<f64>()
                })
                .collect();
            let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let weights: Vec<f64> = scores.iter().map(|s| (s - max).exp()).collect();
            let total: f64 = weights.iter().sum();
            let mut o = vec![0.0; HEAD_DIM];
            for (j, w) in weights.iter().enumerate() {
                for (o, x) in o.iter_mut().zip(row(v, j)) {
                    *o += w / total * x.to_f64();
                }
            }
            out.extend(o);
        }
    }
    out
}

/// Both kernels at `split` keys a warp; the scores are made large (q scaled up) so that the
/// softmax is peaked and a wrong maximum or a key past the end would show.
fn check_attention(lens: &[i32], max_seq: usize, split: usize, seed: u64) {
    let batch = lens.len();
    let q: Vec<bf16> = values(batch * HEADS * HEAD_DIM, seed)
        .iter()
        .map(|x| bf16::from_f32(x.to_f32() * 3.0))
        .collect();
    let cache_len = batch * KV_HEADS * max_seq * HEAD_DIM;
    let (k, v) = (values(cache_len, seed + 1), values(cache_len, seed + 2));
    let scale = 1.0 / (HEAD_DIM as f32).sqrt();
    let rows = batch * KV_HEADS * (max_seq / split);
    let mut partial = vec![f32::NAN; rows * PARTIAL];
    attn_decode_partial::emulate(
        &per_row(rows),
        &q,
        &k,
        &v,
        lens,
        split,
        scale,
        Rows::new(&mut partial[..], PARTIAL).unwrap(),
    )
    .unwrap();
    let mut out = vec![bf16::NAN; batch * HEADS * HEAD_DIM];
    let out_rows = out.len() / CHUNK;
    attn_decode_combine::emulate(
        &per_row(out_rows),
        &partial,
        lens,
        split,
        Rows::new(&mut out[..], CHUNK).unwrap(),
    )
    .unwrap();
    let want = attention_reference(&q, &k, &v, lens, max_seq, f64::from(scale));
    // A weighted mean of values in [-2, 2): the f32 sums' and ex2.approx's errors are far below
    // 1e-3 of that range.
    assert_rounded(
        &out,
        &want,
        |_| 2.0,
        &format!("attention at lens {lens:?}, split {split}"),
    );
}

#[test]
fn attention_decode_matches_the_reference() {
    // Lengths inside a split, on a split's edge, one key, and the whole cache.
    check_attention(&[37, 64], 64, 16, 30);
    check_attention(&[1, 48, 17], 64, 16, 31);
    check_attention(&[40, 64], 64, 8, 32);
}

/// A length read from `lens` past the cache fails the launch: the one rule of the attention no
/// launch can check (it is in device memory), so the kernel's own assert, a trap on the GPU.
#[test]
fn attention_decode_refuses_a_length_past_the_cache() {
    let (max_seq, split) = (16, 8);
    let q = values(HEADS * HEAD_DIM, 33);
    let cache = values(KV_HEADS * max_seq * HEAD_DIM, 34);
    let mut partial = vec![0.0f32; KV_HEADS * 2 * PARTIAL];
    let refused = attn_decode_partial::emulate(
        &blocks(KV_HEADS * 2 * 32, 256),
        &q,
        &cache,
        &cache,
        &[17],
        split,
        0.1,
        Rows::new(&mut partial[..], PARTIAL).unwrap(),
    )
    .unwrap_err();
    assert!(
        matches!(&refused.kind, FailureKind::Panicked { message, .. } if message.contains("lens[b] <= max_seq")),
        "{refused}"
    );
}

/// Caches of two lengths are refused by the launch's `same_len` check, not by a trap.
#[test]
fn caches_of_two_lengths_are_refused_before_the_launch() {
    let (max_seq, split) = (16, 8);
    let q = values(HEADS * HEAD_DIM, 35);
    let (k, v) = (
        values(KV_HEADS * max_seq * HEAD_DIM, 36),
        values(KV_HEADS * 2 * max_seq * HEAD_DIM, 37),
    );
    let mut partial = vec![0.0f32; KV_HEADS * 2 * PARTIAL];
    let refused = attn_decode_partial::emulate(
        &blocks(KV_HEADS * 2 * 32, 256),
        &q,
        &k,
        &v,
        &[16],
        split,
        0.1,
        Rows::new(&mut partial[..], PARTIAL).unwrap(),
    )
    .unwrap_err();
    assert_refused_lengths(&refused);
    let (mut k_words, mut v_words) = (
        vec![0i32; KV_HEADS * max_seq * HEAD_DIM / 2],
        vec![0i32; KV_HEADS * 2 * max_seq * HEAD_DIM / 2],
    );
    let mut q_out = vec![bf16::NAN; HEADS * HEAD_DIM];
    let refused = rope_append::emulate(
        &per_row(HEADS),
        &values(QKV_WIDTH, 38),
        &rope_table(max_seq),
        &[1],
        &mut k_words[..],
        &mut v_words[..],
        Rows::new(&mut q_out[..], HEAD_DIM).unwrap(),
    )
    .unwrap_err();
    assert_refused_lengths(&refused);
}

/// The decode step's other length rules (RoPE's append, the split attention and its combine)
/// are their launches' `requires`, checked before anything runs; what is read from `lens` is the
/// kernels' own to check (`attention_decode_refuses_a_length_past_the_cache`). Batch 2,
/// `max_seq` 16, splits of 8, one argument off at a time.
#[test]
fn the_decode_kernels_refuse_bad_lengths_before_running() {
    let (batch, max_seq, split) = (2, 16, 8);
    let cache = batch * KV_HEADS * max_seq * HEAD_DIM;
    let q_len = batch * HEADS * HEAD_DIM;
    let partial_rows = batch * KV_HEADS * max_seq / split;
    // `lens` of `lens` sequences (all at 1 key), the other lengths in elements.
    let append_with = move |lens: usize,
                            qkv: usize,
                            table_rows: usize,
                            cache_words: usize,
                            q: usize|
          -> (Result<(), KernelFailure>, bool) {
        let (mut k, mut v) = (vec![0i32; cache_words], vec![0i32; cache_words]);
        let mut out = vec![bf16::NAN; q];
        let result = rope_append::emulate(
            &per_row(q / HEAD_DIM),
            &values(qkv, 57),
            &rope_table(table_rows),
            &vec![1; lens],
            &mut k[..],
            &mut v[..],
            Rows::new(&mut out[..], HEAD_DIM).unwrap(),
        );
        let caches = k.iter().chain(&v).all(|&w| w == 0);
        (result, untouched(&out) && caches)
    };
    let partial_with = move |lens: usize,
                             q: usize,
                             cache: usize,
                             split: usize,
                             rows: usize|
          -> (Result<(), KernelFailure>, bool) {
        let kv = values(cache, 58);
        let mut partial = vec![f32::NAN; rows * PARTIAL];
        let result = attn_decode_partial::emulate(
            &per_row(rows.max(1)),
            &values(q, 59),
            &kv,
            &kv,
            &vec![1; lens],
            split,
            0.1,
            Rows::new(&mut partial[..], PARTIAL).unwrap(),
        );
        (result, untouched(&partial))
    };
    let combine_with = move |lens: usize,
                             rows: usize,
                             split: usize,
                             out: usize|
          -> (Result<(), KernelFailure>, bool) {
        let partial = vec![0.0f32; rows * PARTIAL];
        let mut o = vec![bf16::NAN; out];
        let result = attn_decode_combine::emulate(
            &per_row(out / CHUNK),
            &partial,
            &vec![1; lens],
            split,
            Rows::new(&mut o[..], CHUNK).unwrap(),
        );
        (result, untouched(&o))
    };
    const APPEND_ROWS: &str = "lens.len() > 0 && qkv.len() == lens.len() * QKV_WIDTH && q.len() == lens.len() * HEADS * HEAD_DIM";
    const APPEND_CACHE: &str = "k_cache.len().is_multiple_of(lens.len() * KV_HEADS * HEAD_WORDS)";
    const CACHE: &str =
        "lens.len() > 0 && k_cache.len().is_multiple_of(lens.len() * KV_HEADS * HEAD_DIM)";
    const SPLIT: &str = "split > 0 && split.is_multiple_of(STEP_KEYS) && (k_cache.len() / (lens.len() * KV_HEADS * HEAD_DIM)).is_multiple_of(split)";
    const PARTIALS: &str =
        "lens.len() > 0 && partial.len().is_multiple_of(lens.len() * KV_HEADS * PARTIAL)";
    let (qkv, words) = (batch * QKV_WIDTH, cache / 2);
    let cases: Vec<BadLaunch> = vec![
        (
            APPEND_ROWS,
            Box::new(move || append_with(0, 0, max_seq, words, HEAD_DIM)),
        ),
        (
            APPEND_ROWS,
            Box::new(move || append_with(batch, qkv - QKV_WIDTH, max_seq, words, q_len)),
        ),
        (
            APPEND_ROWS,
            Box::new(move || append_with(batch, qkv, max_seq, words, q_len - HEAD_DIM)),
        ),
        (
            APPEND_CACHE,
            Box::new(move || append_with(batch, qkv, max_seq, words + 2, q_len)),
        ),
        (
            "table.len() / HEAD_DIM >= k_cache.len() / (lens.len() * KV_HEADS * HEAD_WORDS)",
            Box::new(move || append_with(batch, qkv, max_seq - 1, words, q_len)),
        ),
        (
            CACHE,
            Box::new(move || partial_with(0, 0, cache, split, partial_rows)),
        ),
        (
            CACHE,
            Box::new(move || partial_with(batch, q_len, cache + HEAD_DIM, split, partial_rows)),
        ),
        (
            "q.len() == lens.len() * HEADS * HEAD_DIM",
            Box::new(move || partial_with(batch, q_len + HEAD_DIM, cache, split, partial_rows)),
        ),
        (
            SPLIT,
            Box::new(move || partial_with(batch, q_len, cache, 0, partial_rows)),
        ),
        (
            SPLIT,
            Box::new(move || partial_with(batch, q_len, cache, 4, partial_rows)),
        ),
        // 16 positions in splits of 24.
        (
            SPLIT,
            Box::new(move || partial_with(batch, q_len, cache, 24, partial_rows)),
        ),
        (
            "partial.len() == k_cache.len() / HEAD_DIM / split * PARTIAL",
            Box::new(move || partial_with(batch, q_len, cache, split, partial_rows - 1)),
        ),
        (
            PARTIALS,
            Box::new(move || combine_with(0, partial_rows, split, q_len)),
        ),
        (
            PARTIALS,
            Box::new(move || combine_with(batch, partial_rows + 1, split, q_len)),
        ),
        (
            "out.len() == lens.len() * HEADS * HEAD_DIM",
            Box::new(move || combine_with(batch, partial_rows, split, q_len - CHUNK)),
        ),
        (
            "split > 0",
            Box::new(move || combine_with(batch, partial_rows, 0, q_len)),
        ),
    ];
    assert_refused_requires(cases);
}
