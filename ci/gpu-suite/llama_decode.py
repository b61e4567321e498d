"""Issue 22's decode half, ON the GPU machine (run by llama_layer.py after the prefill, or alone):
a Llama-3-8B layer (llama_layer.py's weights and shapes) decoding one token a step against a KV
cache prefilled to --ctx (4096) tokens, at batch 1, 16 and 64, written with oxide kernels
(kernels/llama: batch-1 GEMVs with their fused epilogues, RoPE + cache append, split-key
attention and its combine, RMSNorm) and torch.matmul (cuBLAS) where the GEMV is not used,
against the same step in PyTorch: eager (HF's math, a cache sliced at the step's length) and a
CUDA graph of eager's step (HF's static-cache form: the position a device tensor, the cache
masked), in this one process.

    python3 .gpu-suite/llama_decode.py                 # batch 1, 16, 64; 4 steps each
    python3 .gpu-suite/llama_decode.py --batches 1 --steps 8
    python3 llama_decode.py --cpu                      # no GPU: reference and plumbing, small

Every step (--steps of them, positions ctx, ctx + 1, ...) is checked: the oxide step replayed
from its torch.cuda.graph capture (and, at the first step, launched directly) against eager, on
the rotated query, the attention output, the residual, the MLP's product and the layer's
output (relative error ||a - b|| / ||b|| <= 1e-2); the eager graph against eager too. Then each
configuration is timed replaying the last step (median of CUDA events), beside the floor: the
bytes a step must move (every weight once, the cache's K and V up to the length) at the copy
roof of a torch copy measured in the same run; and, at batch 1, each projection as oxide's GEMV
and as torch.matmul. One table; exit 1 on a mismatch, 2 when a configuration could not run.

The oxide step takes the sequence lengths from a device tensor (`lens`, int32), so one capture
replays at every position; its kernels launch on torch's current stream (so the capture takes
them) with the grids given as grid=."""

import argparse
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

# llama_layer installs the wheel (not with --cpu), imports torch, and parses --cpu, --seed and
# --samples from this command line (it ignores the options below).
import llama_layer as L  # noqa: E402

torch, F = L.torch, L.F
HIDDEN, HEADS, KV_HEADS, HEAD_DIM, INTERMEDIATE = L.HIDDEN, L.HEADS, L.KV_HEADS, L.HEAD_DIM, L.INTERMEDIATE
QKV_WIDTH, EPS, SCALE, BF16, DEV, TOLERANCE = L.QKV_WIDTH, L.EPS, L.SCALE, L.BF16, L.DEV, L.TOLERANCE
# kernels/llama/src/decode_attn.rs: `PARTIAL`, a partial row of f32 (4 heads' outputs, maxima,
# sums); `STEP_KEYS`, what `split` must be a multiple of.
PARTIAL, STEP_KEYS = 4 * HEAD_DIM + 8, 8
# kernels/llama/src/matvec.rs `STEP`: the GEMVs' K must be a multiple of it.
GEMV_STEP = 2048


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--batches", default=None, help="comma-separated (default 1,16,64; --cpu: 1,2)")
    p.add_argument("--ctx", type=int, default=None, help="tokens in the cache before the first step (default 4096; --cpu: 40)")
    p.add_argument("--steps", type=int, default=4, help="decode steps checked a batch")
    p.add_argument("--gemv-max-batch", type=int, default=1, help="the largest batch whose projections are oxide's GEMVs (the kernels are batch-1)")
    p.add_argument("--seed", type=int, default=22)
    p.add_argument("--samples", type=int, default=15)
    p.add_argument("--cpu", action="store_true")
    return p.parse_known_args()[0]


ARGS = parse_args()


def split_for(batch):
    """Keys a warp of attn_decode_partial: short at batch 1, so that 8 KV heads still give
    thousands of warps; longer at larger batches, fewer partial rows to combine."""
    return 32 if batch == 1 else 128


def max_seq_for(ctx, steps):
    """The cache's positions: every step's, rounded up to a multiple of every split."""
    need = ctx + steps
    return (need + 127) // 128 * 128


def row_grid(rows):
    return L.row_grid(rows)


def attention_decode_torch(q, k, v, mask=None):
    """One query a sequence over all its keys (no causal mask: the query is the last token)."""
    try:
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True)
    except (TypeError, RuntimeError):
        rep = HEADS // KV_HEADS
        return F.scaled_dot_product_attention(q, k.repeat_interleave(rep, 1), v.repeat_interleave(rep, 1), attn_mask=mask)


def rope_heads(x, cos, sin):
    return x * cos + L.rotate_half(x) * sin


def qkv_heads(xn, w, b):
    qkv = torch.matmul(xn, w.qkv.t())
    q, k, v = qkv.split([HEADS * HEAD_DIM, KV_HEADS * HEAD_DIM, KV_HEADS * HEAD_DIM], dim=-1)
    s = xn.shape[1]
    return (q.view(b, s, HEADS, HEAD_DIM).transpose(1, 2), k.view(b, s, KV_HEADS, HEAD_DIM).transpose(1, 2),
            v.view(b, s, KV_HEADS, HEAD_DIM).transpose(1, 2))


def mlp_half(x, o, w):
    h = x + o
    hn = L.rmsnorm_torch(h, w.mlp_norm)
    gate, up = torch.matmul(hn, w.gate_up.t()).split(INTERMEDIATE, dim=-1)
    m = F.silu(gate) * up
    return h, m, h + torch.matmul(m, w.down.t())


def eager_step(x, w, kc, vc, pos, cos_all, sin_all, trace=None):
    """HF Llama's decode step in eager mode (a DynamicCache's math): the new token's k and v
    written at `pos`, attention over the cache's first pos + 1 keys. x [B, 1, HIDDEN]."""
    b = x.shape[0]
    xn = L.rmsnorm_torch(x, w.attn_norm)
    q, k, v = qkv_heads(xn, w, b)
    cos, sin = cos_all[pos:pos + 1], sin_all[pos:pos + 1]
    q, k = rope_heads(q, cos, sin), rope_heads(k, cos, sin)
    kc[:, :, pos:pos + 1] = k
    vc[:, :, pos:pos + 1] = v
    attn = attention_decode_torch(q, kc[:, :, :pos + 1], vc[:, :, :pos + 1])
    attn_tokens = attn.transpose(1, 2).reshape(b, 1, HEADS * HEAD_DIM)
    o = torch.matmul(attn_tokens, w.o.t())
    h, m, out = mlp_half(x, o, w)
    if trace is not None:
        trace.update(q=q.reshape(-1, HEAD_DIM), attn=attn_tokens.reshape(b, -1), h=h.reshape(b, -1),
                     m=m.reshape(b, -1), out=out.reshape(b, -1))
    return out


class StaticEager:
    """Eager's step as HF's StaticCache runs it, capturable: the position is the device tensor
    `pos` (int64 [1]), the cache is written by index_copy_ and masked past the position."""

    def __init__(self, w, kc, vc, cos_all, sin_all, batch):
        self.w, self.kc, self.vc, self.cos_all, self.sin_all = w, kc, vc, cos_all, sin_all
        self.x = torch.zeros(batch, 1, HIDDEN, dtype=BF16, device=DEV)
        self.pos = torch.zeros(1, dtype=torch.int64, device=DEV)
        self.keys = torch.arange(kc.shape[2], device=DEV)
        self.out = None

    def __call__(self):
        w, b = self.w, self.x.shape[0]
        xn = L.rmsnorm_torch(self.x, w.attn_norm)
        q, k, v = qkv_heads(xn, w, b)
        cos, sin = self.cos_all.index_select(0, self.pos), self.sin_all.index_select(0, self.pos)
        q, k = rope_heads(q, cos, sin), rope_heads(k, cos, sin)
        self.kc.index_copy_(2, self.pos, k)
        self.vc.index_copy_(2, self.pos, v)
        mask = (self.keys <= self.pos).view(1, 1, 1, -1)
        attn = attention_decode_torch(q, self.kc, self.vc, mask)
        o = torch.matmul(attn.transpose(1, 2).reshape(b, 1, HEADS * HEAD_DIM), w.o.t())
        self.out = mlp_half(self.x, o, w)[2]
        return self.out


class OxideDecode:
    """The oxide step for one batch: every buffer allocated once (capturable), the length of
    each sequence in `lens` (int32 [batch], keys once the step's token is appended)."""

    def __init__(self, kernels, w, kc, vc, batch, max_seq):
        self.k_, self.w, self.kc, self.vc, self.batch = kernels, w, kc, vc, batch
        self.split = split_for(batch)
        assert max_seq % self.split == 0 and self.split % STEP_KEYS == 0
        self.splits = max_seq // self.split
        assert HIDDEN % GEMV_STEP == 0 and INTERMEDIATE % GEMV_STEP == 0
        b = batch
        e = lambda *shape, dtype=BF16: torch.zeros(*shape, dtype=dtype, device=DEV)  # noqa: E731
        self.table = L.rope_table(max_seq)
        self.lens = e(b, dtype=torch.int32)
        self.x = e(b, HIDDEN)
        self.xn, self.qkv, self.q = e(b, HIDDEN), e(b, QKV_WIDTH), e(b * HEADS, HEAD_DIM)
        self.partial = e(b * KV_HEADS * self.splits, PARTIAL, dtype=torch.float32)
        self.attn = e(b, HEADS * HEAD_DIM)
        self.o, self.h, self.hn = e(b, HIDDEN), e(b, HIDDEN), e(b, HIDDEN)
        self.gate_up, self.m = e(b, 2 * INTERMEDIATE), e(b, INTERMEDIATE)
        self.d, self.out = e(b, HIDDEN), e(b, HIDDEN)
        self.k_words, self.v_words = kc.view(torch.int32), vc.view(torch.int32)
        self.wt = {name: getattr(w, name).t() for name in ("qkv", "o", "gate_up", "down")}
        self.gemv = batch <= ARGS.gemv_max_batch
        assert not self.gemv or batch == 1, "oxide's GEMVs take one x row"

    def steps(self):
        """`(name, provenance, callable)` in order."""
        k, w, b, s = self.k_, self.w, self.batch, self.split
        col = lambda t: t.view(-1, 1)  # noqa: E731 - a GEMV's output: a one-column row a warp
        out = [("rmsnorm", "oxide", lambda: k.rmsnorm(self.x, w.attn_norm, EPS, self.xn, grid=row_grid(b)))]
        if self.gemv:
            out.append(("qkv GEMV", "oxide gemv", lambda: k.gemv(w.qkv, self.xn, col(self.qkv), grid=row_grid(QKV_WIDTH))))
        else:
            out.append(("qkv GEMM", "cuBLAS (torch.matmul)", lambda: torch.matmul(self.xn, self.wt["qkv"], out=self.qkv)))
        out += [
            ("rope_append", "oxide", lambda: k.rope_append(self.qkv, self.table, self.lens, self.k_words, self.v_words, self.q,
                                                           grid=row_grid(b * HEADS))),
            ("attn_decode_partial", "oxide", lambda: k.attn_decode_partial(self.q, self.kc, self.vc, self.lens, s, SCALE, self.partial,
                                                                           grid=row_grid(self.partial.shape[0]))),
            ("attn_decode_combine", "oxide", lambda: k.attn_decode_combine(self.partial, self.lens, s, self.attn.view(-1, 8),
                                                                           grid=row_grid(b * HEADS * HEAD_DIM // 8))),
        ]
        if self.gemv:
            out += [
                ("o GEMV + residual", "oxide gemv_add", lambda: k.gemv_add(w.o, self.attn, self.x, col(self.h), grid=row_grid(HIDDEN))),
                ("rmsnorm (MLP)", "oxide", lambda: k.rmsnorm(self.h, w.mlp_norm, EPS, self.hn, grid=row_grid(b))),
                ("gate_up GEMV + SwiGLU", "oxide gemv_swiglu", lambda: k.gemv_swiglu(w.gate_up, self.hn, col(self.m), grid=row_grid(INTERMEDIATE))),
                ("down GEMV + residual", "oxide gemv_add", lambda: k.gemv_add(w.down, self.m, self.h, col(self.out), grid=row_grid(HIDDEN))),
            ]
        else:
            out += [
                ("o GEMM", "cuBLAS (torch.matmul)", lambda: torch.matmul(self.attn, self.wt["o"], out=self.o)),
                ("add_rmsnorm", "oxide", lambda: k.add_rmsnorm(self.x, self.o, w.mlp_norm, EPS, self.h, self.hn, grid=row_grid(b))),
                ("gate_up GEMM", "cuBLAS (torch.matmul)", lambda: torch.matmul(self.hn, self.wt["gate_up"], out=self.gate_up)),
                ("swiglu", "oxide", lambda: k.swiglu(self.gate_up, self.m, grid=row_grid(b))),
                ("down GEMM", "cuBLAS (torch.matmul)", lambda: torch.matmul(self.m, self.wt["down"], out=self.d)),
                ("residual_add", "oxide", lambda: k.residual_add(self.h, self.d, self.out, grid=row_grid(b))),
            ]
        return out

    def __call__(self):
        for _, _, step in self.steps():
            step()
        return self.out

    def trace(self):
        return dict(q=self.q, attn=self.attn, h=self.h, m=self.m, out=self.out)


class DecodeStandIns(L.TorchStandIns):
    """--cpu only: the decode kernels in torch, with their arguments' shapes and grids checked
    as the kernels check them (their launches' `requires` and `same_len`, a ValueError on the
    GPU, and their outputs' widths, a device assert; the partial rows in natural order: the
    layout is the kernels' own business, tested by `cargo test -p llama`)."""

    def _gemv_out(self, w, x, y, grid, rows):
        assert y.dim() == 2 and y.shape == (rows, 1) and grid == row_grid(rows), (tuple(y.shape), rows, grid)
        assert x.numel() % GEMV_STEP == 0 and w.numel() == rows * x.numel()

    def gemv(self, w, x, y, grid):
        self._gemv_out(w, x, y, grid, w.shape[0])
        y.copy_(torch.matmul(w, x.reshape(-1)).view(-1, 1))

    def gemv_add(self, w, x, residual, y, grid):
        self._gemv_out(w, x, y, grid, w.shape[0])
        assert residual.numel() == w.shape[0]
        y.copy_((residual.reshape(-1) + torch.matmul(w, x.reshape(-1))).view(-1, 1))

    def gemv_swiglu(self, w, x, y, grid):
        n = w.shape[0] // 2
        assert y.shape == (n, 1) and grid == row_grid(n)
        assert x.numel() % GEMV_STEP == 0 and w.numel() == 2 * n * x.numel()
        gate, up = torch.matmul(w, x.reshape(-1)).split(n)
        y.copy_((F.silu(gate.float()) * up.float()).view(-1, 1))

    def rope_append(self, qkv, table, lens, k_words, v_words, q, grid):
        b = lens.numel()
        assert lens.dtype == torch.int32 and k_words.dtype == torch.int32 and v_words.dtype == torch.int32
        assert q.shape == (b * HEADS, HEAD_DIM) and grid == row_grid(b * HEADS) and qkv.shape == (b, QKV_WIDTH)
        kc, vc = k_words.view(BF16), v_words.view(BF16)
        for i in range(b):
            p = int(lens[i]) - 1
            cos, sin = table[p, :HEAD_DIM // 2], table[p, HEAD_DIM // 2:]
            cos, sin = torch.cat([cos, cos]), torch.cat([sin, sin])
            heads = qkv[i].view(-1, HEAD_DIM).float()
            rot = (heads * cos + L.rotate_half(heads) * sin).to(BF16)
            q[i * HEADS:(i + 1) * HEADS] = rot[:HEADS]
            kc[i, :, p] = rot[HEADS:HEADS + KV_HEADS]
            vc[i, :, p] = heads[HEADS + KV_HEADS:].to(BF16)

    def attn_decode_partial(self, q, kc, vc, lens, split, scale, partial, grid):
        b = lens.numel()
        assert split % STEP_KEYS == 0 and kc.shape[2] % split == 0 and scale == SCALE
        assert partial.shape == (b * KV_HEADS * (kc.shape[2] // split), PARTIAL) and grid == row_grid(partial.shape[0])
        self._q, self._kc, self._vc = q, kc, vc  # the combine below computes the attention itself

    def attn_decode_combine(self, partial, lens, split, out, grid):
        b = lens.numel()
        assert out.shape == (b * HEADS * HEAD_DIM // 8, 8) and grid == row_grid(out.shape[0])
        rows = []
        for i in range(b):
            n = int(lens[i])
            q = self._q[i * HEADS:(i + 1) * HEADS].view(1, HEADS, 1, HEAD_DIM)
            rows.append(attention_decode_torch(q, self._kc[i:i + 1, :, :n], self._vc[i:i + 1, :, :n]).reshape(-1))
        out.view(-1).copy_(torch.cat(rows))


class Table(L.Table):
    """llama_layer's table with this script's columns: times in µs, rates against the floor."""

    HEADER = ["shape", "what", "provenance", "time", "rate", "floor / time", "vs eager"]


def prefill_cache(w, batch, ctx, max_seq, seed):
    """The cache a prefill of `ctx` random tokens leaves: each token's rotated k and its v (what
    the layer's prefill writes; the rest of the prefill does not reach this layer's cache)."""
    kc = torch.zeros(batch, KV_HEADS, max_seq, HEAD_DIM, dtype=BF16, device=DEV)
    vc = torch.zeros_like(kc)
    cos, sin = L.rope_cos_sin(ctx, BF16)
    g = torch.Generator(device=DEV).manual_seed(seed)
    for i in range(batch):
        x = torch.randn(1, ctx, HIDDEN, generator=g, device=DEV).to(BF16)
        _, k, v = qkv_heads(L.rmsnorm_torch(x, w.attn_norm), w, 1)
        kc[i, :, :ctx] = rope_heads(k, cos, sin)[0]
        vc[i, :, :ctx] = v[0]
    return kc, vc


def step_bytes(batch, length):
    """What a step must move: every weight once, each sequence's K and V up to `length`, and the
    activations (small)."""
    weights = 2 * (QKV_WIDTH * HIDDEN + HIDDEN * HIDDEN + 2 * INTERMEDIATE * HIDDEN + INTERMEDIATE * HIDDEN + 2 * HIDDEN)
    cache = 2 * 2 * batch * KV_HEADS * length * HEAD_DIM
    return weights + cache


def run_batch(batch, kernels, w, table, failures):
    ctx = ARGS.ctx or (40 if ARGS.cpu else 4096)
    steps = ARGS.steps
    max_seq = max_seq_for(ctx, steps)
    shape = f"decode B={batch} ctx={ctx}"
    print(f"== {shape} (cache {max_seq} positions, split {split_for(batch)})", flush=True)
    kc0, vc0 = prefill_cache(w, batch, ctx, max_seq, ARGS.seed + 7 * batch)
    cos_all, sin_all = L.rope_cos_sin(max_seq, BF16)
    eager_k, eager_v = kc0.clone(), vc0.clone()
    static = StaticEager(w, kc0.clone(), vc0.clone(), cos_all, sin_all, batch)
    ox = OxideDecode(kernels, w, kc0, vc0, batch, max_seq)
    del kc0, vc0
    print("   provenance: " + "; ".join(f"{n}: {p}" for n, p, _ in ox.steps()), flush=True)

    # Graphs, captured at the first step's position (the warm-up writes that position, which the
    # first checked step then rewrites).
    static.pos.fill_(ctx)
    ox.lens.fill_(ctx + 1)
    replay_static = replay_ox = None
    if DEV.type == "cuda":
        for name, make in (("eager", lambda: L.graphed(static)), ("oxide", lambda: L.graphed(ox))):
            try:
                if name == "eager":
                    replay_static = make()
                else:
                    replay_ox = make()
            except Exception as e:  # noqa: BLE001 - reported, the rest still runs
                failures.append(f"{shape} CUDA graph of the {name} step: could not run: {type(e).__name__}: {e}")
                print(f"   {name} graph: {type(e).__name__}: {e}", flush=True)

    g = torch.Generator(device=DEV).manual_seed(ARGS.seed + 1000 + batch)
    worst = {}
    for t in range(steps):
        pos = ctx + t
        x = torch.randn(batch, 1, HIDDEN, generator=g, device=DEV).to(BF16)
        trace = {}
        want = eager_step(x, w, eager_k, eager_v, pos, cos_all, sin_all, trace)
        static.x.copy_(x)
        static.pos.fill_(pos)
        ox.x.copy_(x.view(batch, HIDDEN))
        ox.lens.fill_(pos + 1)
        runs = []
        if t == 0 or replay_ox is None:
            runs.append(("oxide", ox))
        if replay_ox is not None:
            runs.append(("oxide graph", replay_ox))
        for who, run in runs:
            run()
            L.sync()
            for name, got in ox.trace().items():
                err, dmax = L.rel(got, trace[name].reshape(got.shape))
                ok = err <= TOLERANCE and math.isfinite(err)
                worst[(who, name)] = max(worst.get((who, name), 0.0), err if math.isfinite(err) else float("inf"))
                if not ok or t == 0:
                    print(f"   step {t} {'ok  ' if ok else 'FAIL'} {who:11s} {name:5s} rel {err:.2e}  max|d| {dmax:.3e}", flush=True)
                if not ok:
                    failures.append(f"{shape} step {t} {who} {name}: rel {err:.2e} > {TOLERANCE}")
        # The static-cache step, from its graph (on the CPU called directly: its index_copy_ and
        # mask are then still checked against eager's sliced cache).
        (replay_static or static)()
        L.sync()
        who = "eager graph" if replay_static is not None else "eager static"
        err, _ = L.rel(static.out.view(batch, -1), want.view(batch, -1))
        worst[(who, "out")] = max(worst.get((who, "out"), 0.0), err)
        if not err <= TOLERANCE:
            failures.append(f"{shape} step {t} {who} out: rel {err:.2e} > {TOLERANCE}")
    for (who, name), err in sorted(worst.items()):
        verdict = "PASS" if err <= TOLERANCE else "FAIL"
        table.add(shape, f"check over {steps} steps: {who} {name} vs eager, worst rel {err:.2e}", "", "", "", "", verdict)

    # Timings, replaying the last step (its cache writes rewrite the same position).
    n = 2 if ARGS.cpu else ARGS.samples
    pos = ctx + steps - 1
    length = pos + 1
    eager = lambda: eager_step(x, w, eager_k, eager_v, pos, cos_all, sin_all)  # noqa: E731
    eager_ms = L.median_ms(eager, n)
    nbytes = step_bytes(batch, length)
    floor_ms = L.copy_roof_ms(nbytes, n)
    table.add(shape, f"floor: {nbytes / 1e6:.0f} MB at the copy roof (a torch copy)", "torch copy", f"{floor_ms * 1e3:.1f} us",
              f"{nbytes / floor_ms / 1e6:.0f} GB/s", "1.00", f"{eager_ms / floor_ms:.2f}x")
    configs = [("step: torch eager", "torch (cuBLAS, SDPA)", eager)]
    if replay_static is not None:
        configs.append(("step: torch eager static cache, CUDA graph", "torch (cuBLAS, SDPA)", replay_static))
    configs.append(("step: oxide", "oxide kernels" + (" (GEMVs)" if ox.gemv else " + cuBLAS"), ox))
    if replay_ox is not None:
        configs.append(("step: oxide, CUDA graph", "oxide kernels" + (" (GEMVs)" if ox.gemv else " + cuBLAS"), replay_ox))
    static.pos.fill_(pos)
    ox.lens.fill_(length)
    for name, provenance, fn in configs:
        try:
            ms = L.median_ms(fn, n, L.inner_for(fn))
            table.add(shape, name, provenance, f"{ms * 1e3:.1f} us", f"{nbytes / ms / 1e6:.0f} GB/s", f"{floor_ms / ms:.2f}",
                      f"{eager_ms / ms:.2f}x")
        except Exception as e:  # noqa: BLE001
            failures.append(f"{shape} {name}: could not run: {type(e).__name__}: {e}")
            table.add(shape, name, provenance, "failed", type(e).__name__, "", "")

    # Each oxide step alone; at batch 1 each projection both ways (GEMV and torch.matmul).
    for name, provenance, fn in ox.steps():
        ms = L.kernel_ms(fn, n)
        table.add(shape, f"  {name}", provenance, f"{ms * 1e3:.1f} us", "", "", "")
    if batch == 1:
        xs = {"qkv": ox.xn, "o": ox.attn, "gate_up": ox.hn, "down": ox.m}
        for proj, x_in in xs.items():
            wmat = getattr(w, proj)
            y = torch.empty(wmat.shape[0], dtype=BF16, device=DEV)
            wbytes = wmat.numel() * 2
            roof = L.copy_roof_ms(wbytes, n)
            for who, fn in (("oxide gemv", lambda: kernels.gemv(wmat, x_in, y.view(-1, 1), grid=row_grid(wmat.shape[0]))),
                            ("torch.matmul", lambda: torch.matmul(x_in.view(1, -1), ox.wt[proj], out=y.view(1, -1)))):
                ms = L.kernel_ms(fn, n)
                table.add(shape, f"  {proj} projection alone ({wbytes / 1e6:.0f} MB)", who, f"{ms * 1e3:.1f} us",
                          f"{wbytes / ms / 1e6:.0f} GB/s", f"{roof / ms:.2f}", "")


def main():
    kernels = L.kernels_or(DecodeStandIns)
    batches = ARGS.batches or ("1,2" if ARGS.cpu else "1,16,64")
    w = L.Weights(ARGS.seed)
    table, failures = Table(), []
    for spec in batches.split(","):
        run_batch(int(spec), kernels, w, table, failures)
        if DEV.type == "cuda":
            torch.cuda.empty_cache()
    print()
    print("'floor / time': the floor's time over the row's (the fraction of the copy roof); 'vs eager': eager's time over the row's")
    table.print()
    print()
    mismatches = [f for f in failures if "could not run" not in f]
    for f in failures:
        print(("MISMATCH " if f in mismatches else "NOT RUN  ") + f)
    if mismatches:
        sys.exit(1)
    if failures:
        sys.exit(2)
    print("llama decode: every check passed")


if __name__ == "__main__":
    main()
