"""Issue 22's first slice, ON the GPU machine (Python 3.12, torch 2.11+cu130, no Rust, no
network): a Llama-3-8B decoder layer's prefill (hidden 4096, 32 query and 8 KV heads of 128,
MLP 14336, RMSNorm eps 1e-5, RoPE theta 500000, bf16, weights from a fixed seed) written with
oxide kernels (kernels/llama: RMSNorm, RoPE, FlashAttention-2, SwiGLU, residual adds) and
torch.matmul (cuBLAS) for the GEMMs, against the same layer in PyTorch: eager, torch.compile
and a CUDA graph of eager, in this one process.

    python3 .gpu-suite/llama_layer.py            # B=1 x S=4096 and B=8 x S=2048
    python3 .gpu-suite/llama_layer.py --shapes 1x4096
    python3 llama_layer.py --cpu                 # no GPU: the reference path and the oxide
                                                 # layer's plumbing, small, kernels stood in
                                                 # for by torch (checks this script only)

It installs the `llama` wheel (.gpu-suite/wheels/llama-*.whl, abi3) as python_boundary.py
installs pyops's, checks the oxide layer against eager (every intermediate and the output:
relative error ||a - b|| / ||b|| over the tensor, <= 1e-2, max |a - b| printed; the errors of
both against an fp32 layer beside them), times each configuration (CUDA events, warm-up, the
median of several samples), each step of the oxide layer alone (its provenance, its GPU time:
repeated calls replayed as one CUDA graph, `kernel_ms`; for the memory-bound kernels GB/s and
the fraction of a torch copy of the same bytes timed the same way, the copy roof) and prints
one table. Exits 1 when a check fails, 2 when a torch configuration could not
run (the table is printed either way), else 0."""

import argparse
import glob
import math
import os
import subprocess
import sys

HIDDEN, HEADS, KV_HEADS, HEAD_DIM, INTERMEDIATE = 4096, 32, 8, 128, 14336
QKV_WIDTH = (HEADS + 2 * KV_HEADS) * HEAD_DIM
EPS, THETA = 1e-5, 500000.0
SCALE = 1.0 / math.sqrt(HEAD_DIM)
# kernels/llama/src/rope.rs `ROPE_ROW`: rope_qkv's output is rows of two head rows.
ROPE_ROW = 2 * HEAD_DIM
# The row kernels take a warp a row, 8 warps a block (`block = "256"`).
ROWS_PER_BLOCK = 8
# kernels/flash_attn: 128 query rows a block of 128 threads, and its dynamic shared memory at
# head dimension 128 in 16-byte chunks, `chunks(128)`: 2 stages x (K, V) x 64 keys x 16 chunks.
FLASH_BQ, FLASH_CHUNKS = 128, 2 * 2 * 64 * (HEAD_DIM // 8)
TOLERANCE = 1e-2

HERE = os.path.dirname(os.path.abspath(__file__))


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--shapes", default=None, help="BxS,... (default 1x4096,8x2048; --cpu: 1x128,2x128)")
    p.add_argument("--seed", type=int, default=22)
    p.add_argument("--samples", type=int, default=15, help="timed samples a configuration")
    p.add_argument("--cpu", action="store_true", help="no GPU: reference and plumbing only, small")
    p.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    p.add_argument("--no-decode", action="store_true", help="skip llama_decode.py (run after the prefill)")
    # Known arguments only: llama_decode.py imports this module under its own command line.
    args, unknown = p.parse_known_args()
    if unknown and __name__ == "__main__":
        p.error(f"unrecognized arguments: {' '.join(unknown)}")
    return args


ARGS = parse_args()

if not ARGS.cpu:
    LIB = os.path.join(HERE, "pylib")
    wheels = glob.glob(os.path.join(HERE, "wheels", "llama-*.whl"))
    assert len(wheels) == 1, f"expected one llama wheel in {HERE}/wheels, found {wheels}"
    subprocess.check_call([sys.executable, "-m", "pip", "install", "--no-index", "--no-deps", "--upgrade", "--quiet", "--target", LIB, wheels[0]])
    sys.path.insert(0, LIB)

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

DEV = torch.device("cpu" if ARGS.cpu else "cuda:0")
BF16 = torch.bfloat16


# ---------------------------------------------------------------------------------------------
# Weights and the torch layer (HF Llama's operations, with the q/k/v and gate/up projections
# fused into one weight each, as the oxide layer has them: the same GEMMs for both).


class Weights:
    """The layer's weights from `seed`: projections N(0, 1/in) so that activations stay O(1),
    norm weights 1 + N(0, 0.1^2) so that the multiply by them is tested; HF's layout (rows of
    `in`). `qkv` is cat(W_q, W_k, W_v), `gate_up` cat(W_gate, W_up)."""

    def __init__(self, seed):
        g = torch.Generator(device=DEV).manual_seed(seed)

        def proj(out_features, in_features):
            w = torch.randn(out_features, in_features, generator=g, device=DEV) / math.sqrt(in_features)
            return w.to(BF16)

        def norm():
            return (1.0 + 0.1 * torch.randn(HIDDEN, generator=g, device=DEV)).to(BF16)

        self.attn_norm = norm()
        self.qkv = proj(QKV_WIDTH, HIDDEN)
        self.o = proj(HIDDEN, HEADS * HEAD_DIM)
        self.mlp_norm = norm()
        self.gate_up = proj(2 * INTERMEDIATE, HIDDEN)
        self.down = proj(HIDDEN, INTERMEDIATE)

    def to(self, dtype):
        other = object.__new__(Weights)
        for name, value in vars(self).items():
            setattr(other, name, value.to(dtype))
        return other


def rope_angles(seq):
    """HF's LlamaRotaryEmbedding at positions 0..seq, in f32: `p * inv_freq`."""
    inv_freq = 1.0 / (THETA ** (torch.arange(0, HEAD_DIM, 2, dtype=torch.int64, device=DEV).float() / HEAD_DIM))
    positions = torch.arange(seq, device=DEV).float()
    return torch.outer(positions, inv_freq)


def rope_table(seq):
    """The oxide kernel's table: row p = [cos(p f_0) .. cos(p f_63), sin(p f_0) .. sin(p f_63)], f32."""
    freqs = rope_angles(seq)
    return torch.cat([freqs.cos(), freqs.sin()], dim=-1).contiguous()


def rope_cos_sin(seq, dtype):
    """HF's cos and sin, [seq, 128], cast to the activations' dtype as HF casts them."""
    emb = torch.cat([rope_angles(seq)] * 2, dim=-1)
    return emb.cos().to(dtype), emb.sin().to(dtype)


def rmsnorm_torch(x, w):
    xf = x.float()
    variance = xf.pow(2).mean(-1, keepdim=True)
    return w * (xf * torch.rsqrt(variance + EPS)).to(x.dtype)


def rotate_half(x):
    x1, x2 = x[..., : HEAD_DIM // 2], x[..., HEAD_DIM // 2:]
    return torch.cat((-x2, x1), dim=-1)


def attention_torch(q, k, v):
    try:
        return F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
    except (TypeError, RuntimeError):
        rep = HEADS // KV_HEADS
        return F.scaled_dot_product_attention(q, k.repeat_interleave(rep, 1), v.repeat_interleave(rep, 1), is_causal=True)


def torch_layer(x, w, cos, sin, trace=None):
    """The layer as HF Llama computes it (eager, in x's dtype). `trace`, a dict, gets the
    intermediates under the oxide layer's names and layouts."""
    b, s, _ = x.shape
    xn = rmsnorm_torch(x, w.attn_norm)
    qkv = torch.matmul(xn, w.qkv.t())
    q, k, v = qkv.split([HEADS * HEAD_DIM, KV_HEADS * HEAD_DIM, KV_HEADS * HEAD_DIM], dim=-1)
    q = q.view(b, s, HEADS, HEAD_DIM).transpose(1, 2)
    k = k.view(b, s, KV_HEADS, HEAD_DIM).transpose(1, 2)
    v = v.view(b, s, KV_HEADS, HEAD_DIM).transpose(1, 2)
    q = q * cos + rotate_half(q) * sin
    k = k * cos + rotate_half(k) * sin
    attn = attention_torch(q, k, v)
    attn_tokens = attn.transpose(1, 2).reshape(b, s, HEADS * HEAD_DIM)
    o = torch.matmul(attn_tokens, w.o.t())
    h = x + o
    hn = rmsnorm_torch(h, w.mlp_norm)
    gate, up = torch.matmul(hn, w.gate_up.t()).split(INTERMEDIATE, dim=-1)
    m = F.silu(gate) * up
    out = h + torch.matmul(m, w.down.t())
    if trace is not None:
        t = b * s
        trace.update(
            xn=xn.reshape(t, HIDDEN), q=q.reshape(-1, HEAD_DIM), k=k.reshape(-1, HEAD_DIM), v=v.reshape(-1, HEAD_DIM),
            attn=attn.reshape(-1, HEAD_DIM), attn_tokens=attn_tokens.reshape(t, HIDDEN), o=o.reshape(t, HIDDEN),
            h=h.reshape(t, HIDDEN), hn=hn.reshape(t, HIDDEN), m=m.reshape(t, INTERMEDIATE), out=out.reshape(t, HIDDEN),
        )
    return out


# ---------------------------------------------------------------------------------------------
# The oxide layer.


def row_grid(rows):
    """A warp a row, 8 rows a block of 256."""
    return (rows + ROWS_PER_BLOCK - 1) // ROWS_PER_BLOCK


class OxideLayer:
    """The layer for one (batch, seq): oxide kernels (module `kernels`) between torch.matmul's
    GEMMs, every buffer allocated once (so the layer can be captured in a CUDA graph)."""

    def __init__(self, kernels, w, batch, seq):
        assert seq % FLASH_BQ == 0, f"flash_attn takes sequences of whole {FLASH_BQ}-row blocks: {seq}"
        self.k_, self.w, self.batch, self.seq = kernels, w, batch, seq
        t = self.tokens = batch * seq
        e = lambda *shape, dtype=BF16: torch.empty(*shape, dtype=dtype, device=DEV)  # noqa: E731
        self.table = rope_table(seq)
        self.xn, self.qkv = e(t, HIDDEN), e(t, QKV_WIDTH)
        self.heads = e(t * QKV_WIDTH // ROPE_ROW, ROPE_ROW)
        nq, nk = t * HEADS * HEAD_DIM, t * KV_HEADS * HEAD_DIM
        flat = self.heads.view(-1)
        self.q = flat[:nq].view(-1, HEAD_DIM)
        self.k = flat[nq:nq + nk].view(-1, HEAD_DIM)
        self.v = flat[nq + nk:].view(-1, HEAD_DIM)
        self.attn = e(batch * HEADS * seq, HEAD_DIM)
        self.attn_tokens, self.o, self.h, self.hn = e(t, HIDDEN), e(t, HIDDEN), e(t, HIDDEN), e(t, HIDDEN)
        self.gate_up, self.m = e(t, 2 * INTERMEDIATE), e(t, INTERMEDIATE)
        self.d, self.out = e(t, HIDDEN), e(t, HIDDEN)
        self.wt = {name: getattr(w, name).t() for name in ("qkv", "o", "gate_up", "down")}

    def steps(self, x):
        """The layer's steps in order, `(name, provenance, callable)`, on input `x` [B, S, 4096]."""
        k, w, t, s = self.k_, self.w, self.tokens, self.seq
        x2 = x.view(t, HIDDEN)
        rows = row_grid(t)
        return [
            ("rmsnorm", "oxide", lambda: k.rmsnorm(x2, w.attn_norm, EPS, self.xn, grid=rows)),
            ("qkv GEMM", "cuBLAS (torch.matmul)", lambda: torch.matmul(self.xn, self.wt["qkv"], out=self.qkv)),
            ("rope_qkv", "oxide", lambda: k.rope_qkv(self.qkv, self.table, s, self.heads, grid=row_grid(self.heads.shape[0]))),
            ("flash_attn_128", "oxide", lambda: k.flash_attn_128(
                self.q, self.k, self.v, (HEADS, KV_HEADS, s, 1), SCALE, self.attn, FLASH_CHUNKS,
                grid=(1, self.batch * HEADS * s // FLASH_BQ, 1))),
            ("heads_to_tokens", "oxide", lambda: k.heads_to_tokens(self.attn, s, self.attn_tokens, grid=rows)),
            ("o GEMM", "cuBLAS (torch.matmul)", lambda: torch.matmul(self.attn_tokens, self.wt["o"], out=self.o)),
            ("add_rmsnorm", "oxide", lambda: k.add_rmsnorm(x2, self.o, w.mlp_norm, EPS, self.h, self.hn, grid=rows)),
            ("gate_up GEMM", "cuBLAS (torch.matmul)", lambda: torch.matmul(self.hn, self.wt["gate_up"], out=self.gate_up)),
            ("swiglu", "oxide", lambda: k.swiglu(self.gate_up, self.m, grid=rows)),
            ("down GEMM", "cuBLAS (torch.matmul)", lambda: torch.matmul(self.m, self.wt["down"], out=self.d)),
            ("residual_add", "oxide", lambda: k.residual_add(self.h, self.d, self.out, grid=rows)),
        ]

    def __call__(self, x):
        for _, _, step in self.steps(x):
            step()
        return self.out.view(self.batch, self.seq, HIDDEN)

    def trace(self):
        return dict(xn=self.xn, q=self.q, k=self.k, v=self.v, attn=self.attn, attn_tokens=self.attn_tokens,
                    o=self.o, h=self.h, hn=self.hn, m=self.m, out=self.out)

    def traffic(self):
        """Bytes each memory-bound step reads and writes (inputs once each), and each GEMM's and
        the attention's FLOPs: `name -> ("bytes" | "flop", count)`."""
        t, b, s = self.tokens, 2, self.seq
        causal_flop = 4 * self.batch * HEADS * s * s * HEAD_DIM / 2
        return {
            "rmsnorm": ("bytes", b * (2 * t * HIDDEN + HIDDEN)),
            "rope_qkv": ("bytes", b * 2 * t * QKV_WIDTH + 4 * s * HEAD_DIM),
            "heads_to_tokens": ("bytes", b * 2 * t * HIDDEN),
            "add_rmsnorm": ("bytes", b * (4 * t * HIDDEN + HIDDEN)),
            "swiglu": ("bytes", b * (t * 2 * INTERMEDIATE + t * INTERMEDIATE)),
            "residual_add": ("bytes", b * 3 * t * HIDDEN),
            "qkv GEMM": ("flop", 2 * t * HIDDEN * QKV_WIDTH),
            "o GEMM": ("flop", 2 * t * HIDDEN * HIDDEN),
            "gate_up GEMM": ("flop", 2 * t * HIDDEN * 2 * INTERMEDIATE),
            "down GEMM": ("flop", 2 * t * INTERMEDIATE * HIDDEN),
            "flash_attn_128": ("flop", causal_flop),
        }


class TorchStandIns:
    """--cpu only: the llama module's functions written in torch, with the same arguments and
    the grids the kernels' contracts take checked, so that the oxide layer's plumbing (views,
    layouts, grids) is tested without a GPU. It says nothing of the Rust kernels themselves
    (their emulator tests do: `cargo test -p llama --release`)."""

    @staticmethod
    def _rows(out, width, grid):
        assert out.dim() == 2 and out.shape[1] == width and out.is_contiguous(), (tuple(out.shape), width)
        assert grid == row_grid(out.shape[0]), (grid, out.shape)

    def rmsnorm(self, x, weight, eps, out, grid):
        self._rows(out, HIDDEN, grid)
        out.copy_(rmsnorm_torch(x, weight))

    def add_rmsnorm(self, residual, delta, weight, eps, sum_, normed, grid):
        self._rows(sum_, HIDDEN, grid)
        self._rows(normed, HIDDEN, grid)
        sum_.copy_(residual + delta)
        normed.copy_(rmsnorm_torch(sum_, weight))

    def rope_qkv(self, qkv, table, seq, out, grid):
        self._rows(out, ROPE_ROW, grid)
        t = qkv.shape[0]
        b = t // seq
        cos, sin = table[:seq, : HEAD_DIM // 2], table[:seq, HEAD_DIM // 2:]
        cos, sin = torch.cat([cos, cos], -1), torch.cat([sin, sin], -1)
        parts = []
        for heads, first, rotated in ((HEADS, 0, True), (KV_HEADS, HEADS, True), (KV_HEADS, HEADS + KV_HEADS, False)):
            x = qkv[:, first * HEAD_DIM:(first + heads) * HEAD_DIM].reshape(b, seq, heads, HEAD_DIM).transpose(1, 2).float()
            if rotated:
                x = x * cos + rotate_half(x) * sin
            parts.append(x.to(BF16).reshape(-1))
        out.view(-1).copy_(torch.cat(parts))

    def flash_attn_128(self, q, k, v, shape, scale, out, chunks, grid):
        heads, kv_heads, seq, causal = shape
        assert (heads, kv_heads, causal) == (HEADS, KV_HEADS, 1) and chunks == FLASH_CHUNKS and scale == SCALE
        assert grid == (1, q.shape[0] // FLASH_BQ, 1), grid
        b = q.shape[0] // (heads * seq)
        qq = q.view(b, heads, seq, HEAD_DIM)
        kk, vv = k.view(b, kv_heads, seq, HEAD_DIM), v.view(b, kv_heads, seq, HEAD_DIM)
        out.copy_(attention_torch(qq, kk, vv).reshape(-1, HEAD_DIM))

    def heads_to_tokens(self, attn, seq, out, grid):
        self._rows(out, HEADS * HEAD_DIM, grid)
        b = attn.shape[0] // (HEADS * seq)
        out.copy_(attn.view(b, HEADS, seq, HEAD_DIM).transpose(1, 2).reshape(-1, HEADS * HEAD_DIM))

    def swiglu(self, gate_up, out, grid):
        self._rows(out, INTERMEDIATE, grid)
        gate, up = gate_up.float().split(INTERMEDIATE, dim=-1)
        out.copy_(F.silu(gate) * up)

    def residual_add(self, a, b, out, grid):
        self._rows(out, HIDDEN, grid)
        out.copy_(a + b)


# ---------------------------------------------------------------------------------------------
# Checks and timing.


def rel(a, b):
    """||a - b|| / ||b|| over every element (in f64), and max |a - b|."""
    a, b = a.double(), b.double()
    return ((a - b).norm() / b.norm()).item(), (a - b).abs().max().item()


def sync():
    if DEV.type == "cuda":
        torch.cuda.synchronize()


def median_ms(fn, samples, inner=1):
    """The median over `samples` of the time of `inner` calls of `fn`, divided by `inner`,
    after a warm-up (CUDA events; on the CPU, wall time)."""
    for _ in range(3):
        fn()
    sync()
    times = []
    for _ in range(samples):
        if DEV.type == "cuda":
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(inner):
                fn()
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop) / inner)
        else:
            import time

            t0 = time.perf_counter()
            for _ in range(inner):
                fn()
            times.append((time.perf_counter() - t0) * 1e3 / inner)
    times.sort()
    return times[len(times) // 2]


def inner_for(fn, target_ms=2.0):
    """How many calls a sample takes so that it lasts about `target_ms` (at least 1)."""
    one = median_ms(fn, 3)
    return max(1, min(200, int(target_ms / max(one, 1e-4))))


def kernel_ms(fn, samples, target_ms=2.0):
    """The GPU time of one call of `fn`, without the host's cost of a call: on the GPU, enough
    calls for about `target_ms` captured in one CUDA graph, the median replay divided by their
    number (a kernel shorter than a Python call is otherwise timed as the call); on the CPU,
    `median_ms`."""
    if DEV.type != "cuda":
        return median_ms(fn, samples, inner_for(fn, target_ms))
    one = median_ms(graphed(fn), 3)
    calls = max(1, min(500, int(target_ms / max(one, 1e-4))))
    return median_ms(graphed(lambda: [fn() for _ in range(calls)]), samples) / calls


def graphed(fn):
    """`fn` captured in a CUDA graph (after a warm-up on a side stream, as torch's docs do);
    returns the replay."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn()
    return graph.replay


class Table:
    """The rows of the one table a run prints, under HEADER."""

    HEADER = ["shape", "what", "provenance", "ms", "rate", "of copy roof", "vs eager"]

    def __init__(self):
        self.rows = []

    def add(self, *cells):
        self.rows.append([str(c) for c in cells])

    def print(self):
        header = self.HEADER
        widths = [max(len(r[i]) for r in self.rows + [header]) for i in range(len(header))]
        line = lambda r: "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()  # noqa: E731
        print(line(header))
        print(line(["-" * w for w in widths]))
        for r in self.rows:
            print(line(r))


def copy_roof_ms(nbytes, samples):
    """A torch copy of `nbytes` in all (half read, half written): the memory roof of a kernel
    that moves as many bytes."""
    n = max(1, nbytes // 4)  # bf16 elements each way
    src, dst = torch.empty(n, dtype=BF16, device=DEV), torch.empty(n, dtype=BF16, device=DEV)
    return kernel_ms(lambda: dst.copy_(src), samples)


def run_shape(batch, seq, kernels, w, w32, table, failures):
    shape = f"B={batch} S={seq}"
    print(f"== {shape}", flush=True)
    g = torch.Generator(device=DEV).manual_seed(ARGS.seed + 1000 * batch + seq)
    x = torch.randn(batch, seq, HIDDEN, generator=g, device=DEV).to(BF16)
    cos, sin = rope_cos_sin(seq, BF16)
    layer = OxideLayer(kernels, w, batch, seq)

    # Correctness: every intermediate and the output against eager; both against fp32.
    trace = {}
    eager_out = torch_layer(x, w, cos, sin, trace)
    ox_out = layer(x).clone()
    sync()
    for name, got in layer.trace().items():
        err, worst = rel(got, trace[name])
        ok = err <= TOLERANCE and math.isfinite(err)
        print(f"   {'ok  ' if ok else 'FAIL'} {name:12s} rel {err:.2e}  max|d| {worst:.3e}", flush=True)
        if not ok:
            failures.append(f"{shape} {name}: rel {err:.2e} > {TOLERANCE}")
    del trace
    cos32, sin32 = rope_cos_sin(seq, torch.float32)
    fp32_out = torch_layer(x.float(), w32, cos32, sin32)
    update = lambda out: out.float() - x.float()  # noqa: E731
    for who, out in (("eager", eager_out), ("oxide", ox_out)):
        e_out, _ = rel(out, fp32_out)
        e_upd, _ = rel(update(out), update(fp32_out))
        print(f"   {who} vs fp32: output rel {e_out:.2e}, the layer's update (out - x) rel {e_upd:.2e}")
    err, worst = rel(ox_out, eager_out)
    del fp32_out, cos32, sin32
    table.add(shape, f"check: oxide vs eager output, rel {err:.2e} (<= {TOLERANCE}), max|d| {worst:.2e}",
              "", "", "", "", "PASS" if err <= TOLERANCE else "FAIL")

    # Whole-layer timings.
    # On the CPU the times say nothing (and each layer takes seconds): two samples.
    n = 2 if ARGS.cpu else ARGS.samples
    eager = lambda: torch_layer(x, w, cos, sin)  # noqa: E731
    eager_ms = median_ms(eager, n)
    table.add(shape, "layer: torch eager", "torch (cuBLAS, SDPA)", f"{eager_ms:.3f}", "", "", "1.00x")
    configs = []
    if DEV.type == "cuda":
        if not ARGS.no_compile:
            configs.append(("layer: torch.compile", "torch (inductor)", lambda: torch.compile(eager)))
        configs.append(("layer: torch eager, CUDA graph", "torch (cuBLAS, SDPA)", lambda: graphed(eager)))
    configs.append(("layer: oxide + cuBLAS", "oxide kernels + cuBLAS", lambda: (lambda: layer(x))))
    if DEV.type == "cuda":
        configs.append(("layer: oxide + cuBLAS, CUDA graph", "oxide kernels + cuBLAS", lambda: graphed(lambda: layer(x))))
    for name, provenance, make in configs:
        try:
            fn = make()
            ms = median_ms(fn, n)
            table.add(shape, name, provenance, f"{ms:.3f}", "", "", f"{eager_ms / ms:.2f}x")
        except Exception as e:  # noqa: BLE001 - a configuration that cannot run is reported
            failures.append(f"{shape} {name}: could not run: {type(e).__name__}: {e}")
            table.add(shape, name, provenance, "failed", f"{type(e).__name__}", "", "")
            print(f"   {name}: {type(e).__name__}: {e}", flush=True)

    # Each step of the oxide layer alone, and the memory-bound kernels against the copy roof.
    traffic = layer.traffic()
    total = 0.0
    for name, provenance, step in layer.steps(x):
        ms = kernel_ms(step, n)
        total += ms
        kind, count = traffic[name]
        if kind == "bytes":
            roof = copy_roof_ms(count, n)
            rate, of_roof = f"{count / ms / 1e6:.0f} GB/s", f"{roof / ms:.2f}" + (" (<0.90)" if roof / ms < 0.90 else "")
        else:
            rate, of_roof = f"{count / ms / 1e9:.1f} TFLOP/s", ""
        table.add(shape, f"  step: {name}", provenance, f"{ms:.3f}", rate, of_roof, "")
    table.add(shape, "  steps' sum", "", f"{total:.3f}", "", "", "")


def kernels_or(stand_ins):
    """The llama wheel's kernels on a GPU; on the CPU (--cpu), `stand_ins()`, torch doing their work."""
    if DEV.type == "cuda":
        import llama

        print(f"device: {torch.cuda.get_device_name(0)}, torch {torch.__version__}, llama wheel from {llama.__file__}")
        return llama
    print(f"--cpu: torch {torch.__version__}, the llama kernels stood in for by torch")
    return stand_ins()


def main():
    kernels = kernels_or(TorchStandIns)
    shapes = ARGS.shapes or ("1x128,2x128" if ARGS.cpu else "1x4096,8x2048")
    w = Weights(ARGS.seed)
    w32 = w.to(torch.float32)
    table, failures = Table(), []
    for spec in shapes.split(","):
        batch, seq = (int(v) for v in spec.lower().split("x"))
        run_shape(batch, seq, kernels, w, w32, table, failures)
    print()
    table.print()
    print()
    mismatches = [f for f in failures if "could not run" not in f]
    for f in failures:
        print(("MISMATCH " if f in mismatches else "NOT RUN  ") + f)
    code = 1 if mismatches else 2 if failures else 0
    if code == 0:
        print("llama layer: every check passed")
    if not ARGS.no_decode:
        # The decode half (issue 22), in a process of its own: its own memory, its own table.
        print(flush=True)
        command = [sys.executable, os.path.join(HERE, "llama_decode.py"), "--seed", str(ARGS.seed), "--samples", str(ARGS.samples)]
        decode = subprocess.call(command + (["--cpu"] if ARGS.cpu else []))
        # A decode killed by a signal (a crash, the OOM killer) returns -N, which max() would
        # have taken for a pass: it is a failure.
        code = 1 if 1 in (code, decode) or decode < 0 else max(code, decode)
    sys.exit(code)


if __name__ == "__main__":
    main()
