"""PyTorch's scaled_dot_product_attention on kernels/flash_attn's problems: the roof for the
oxide kernel (issue 21's bar is >= 1.0x the FlashAttention-2 backend on every row).

For `n` and head dimension 64 and 128 (as the oxide binary: batch*seq = 16384, heads*d = 2048
and a quarter as many K/V heads at 2^28; one batch of 2 heads and 1 K/V head of seq n/2^10 below
2^25), bf16 inputs of the same values, causal 0 and 1, it times SDPA with the FLASH_ATTENTION and the CUDNN_ATTENTION backends (K and V
repeated to the query heads, so every backend takes the problem), CUDA events around batches,
the median batch, and prints per backend
`flash_attn-torch-<backend> n=<n> d <d> causal <c> (...) <TFLOP/s> TFLOP/s <ms> ms error <e>`, the error
being torch's own largest absolute error against an fp32 SDPA of the same inputs over the rows
the oxide binary checks (FlashAttention's rule: the oxide kernel's error may be at most twice
this). A backend that cannot run says so and is skipped.
"""
import sys

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

# A block's query rows, as kernels/flash_attn's `BQ` (the small problems' seq is a multiple of it).
BQ = 128


def problem(n, d):
    if n >= 1 << 25:
        seq = next((s for s in (16384, 8192, 2048) if s <= n >> 14), 2048)
        heads = 2048 // d
        return 16384 // seq, heads, heads // 4, seq
    return 1, 2, 1, max((n >> 10) // BQ * BQ, BQ)


def inputs(shape, seed):
    count = 1
    for s in shape:
        count *= s
    i = torch.arange(count, dtype=torch.int64, device="cuda")
    x = ((i * (2 * seed + 7) + seed) % 1013).to(torch.float32) / 506.5 - 1.0
    return x.reshape(shape).to(torch.bfloat16)


def time_ms(fn, min_ms=2.0, batches=7):
    fn()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    def batch(reps):
        start.record()
        for _ in range(reps):
            fn()
        stop.record()
        stop.synchronize()
        return start.elapsed_time(stop) / reps

    reps = max(10, min(1000, int(min_ms / max(batch(10), 1e-6)) + 1))
    times = sorted(batch(reps) for _ in range(batches))
    return times[batches // 2]


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 28
    for d in (64, 128):
        attend(n, d)


def attend(n, d):
    batch, heads, kv_heads, seq = problem(n, d)
    q = inputs((batch, heads, seq, d), 1)
    k = inputs((batch, kv_heads, seq, d), 2).repeat_interleave(heads // kv_heads, dim=1)
    v = inputs((batch, kv_heads, seq, d), 3).repeat_interleave(heads // kv_heads, dim=1)
    # The rows kernels/flash_attn checks (`checked_rows`): 33 spread over the sequence in each of
    # three heads. Three rows alone made the rule a coin toss (2026-12-07, perf-notes).
    rows = [(b, h, j * (seq - 1) // 32) for b, h in ((0, 0), (0, 1 % heads), (batch - 1, heads - 1)) for j in range(33)]
    for causal in (0, 1):
        reference = torch.nn.functional.scaled_dot_product_attention(
            q.float(), k.float(), v.float(), is_causal=bool(causal)
        )
        flops = 4 * batch * heads * seq * seq * d / (2 if causal else 1)
        for name, backend in (("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION)):
            try:
                with sdpa_kernel(backend):
                    run = lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=bool(causal))
                    out = run()
                    error = max(
                        (out[b, h, r].float() - reference[b, h, r]).abs().max().item() for b, h, r in rows
                    )
                    ms = time_ms(run)
            except RuntimeError as e:
                print(f"flash_attn-torch-{name} n={n} d {d} causal {causal} unavailable: {str(e).splitlines()[0]}")
                continue
            print(
                f"flash_attn-torch-{name} n={n} d {d} causal {causal} (b {batch} h {heads}/{kv_heads} s {seq}) "
                f"{flops / (ms * 1e-3) / 1e12:.1f} TFLOP/s {ms:.4f} ms error {error:.1e}"
            )


if __name__ == "__main__":
    main()
