"""oxide kernels called from PyTorch, ON the GPU machine (Python 3.12, torch 2.11+cu130, no
Rust): the wheel ci/build-gpu-suite.sh built (.gpu-suite/wheels/pyops-*.whl, abi3) unpacked by
pip into .gpu-suite/pylib (no network, no venv: the machine's torch lives in a venv of its own,
/opt/torch/.venv, which a venv made with --system-site-packages does not see) and put first on
sys.path, then each kernel against torch's result on torch's current stream, on a non-default
stream and inside `torch.cuda.graph` capture, and every refusal with real tensors; then
python_torch_ops.py (the kernels as torch custom ops, torch.compile, the autograd example).

    python3 .gpu-suite/python_boundary.py

Exits 0 and prints `python boundary: N passed`, then python_torch_ops.py's
`python torch ops: N passed, M failed`, when every check passes."""

import glob
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LIB = os.path.join(HERE, "pylib")

wheels = glob.glob(os.path.join(HERE, "wheels", "pyops-*.whl"))
assert len(wheels) == 1, f"expected one pyops wheel in {HERE}/wheels, found {wheels}"
subprocess.check_call([sys.executable, "-m", "pip", "install", "--no-index", "--no-deps", "--upgrade", "--quiet", "--target", LIB, wheels[0]])
sys.path.insert(0, LIB)

import torch  # noqa: E402

import pyops  # noqa: E402

passed = 0


def check(name, ok, detail=""):
    global passed
    if not ok:
        print(f"FAIL {name} {detail}")
        sys.exit(1)
    passed += 1
    print(f"ok   {name}")


def refused(name, exception, words, f, *args, **kwargs):
    try:
        f(*args, **kwargs)
    except exception as e:
        missing = [w for w in words if w not in str(e)]
        check(name, not missing, f"{missing} not in {e!r}")
        return
    except Exception as e:  # noqa: BLE001
        check(name, False, f"raised {type(e).__name__}: {e}")
    check(name, False, "was not refused")


dev = torch.device("cuda:0")
n = (1 << 20) + 3
a = torch.randn(n, device=dev)
b = torch.randn(n, device=dev)

# On torch's current (default) stream: torch's own ops before and after are ordered with it.
c = torch.empty_like(a)
pyops.vecadd(a, b, c)
check("vecadd on the current stream", torch.equal(c, a + b))

# On a non-default stream, as torch's current stream; the inputs are made on it too.
s = torch.cuda.Stream()
with torch.cuda.stream(s):
    x = torch.randn(n, device=dev)
    y = torch.randn(n, device=dev)
    z = torch.empty_like(x)
    pyops.vecadd(x, y, z)
    expected = x + y
s.synchronize()
check("vecadd on a side stream", torch.equal(z, expected))

# An explicit stream=, the same side stream.
with torch.cuda.stream(s):
    z2 = torch.empty_like(x)
pyops.vecadd(x, y, z2, stream=s)
s.synchronize()
check("vecadd with stream=", torch.equal(z2, expected))

# A plain torch.Tensor on the launch's stream is read from its attributes, not DLPack
# (device-std/python/src/torch_tensor.rs); what is not plain takes DLPack, with its checks.
# A view with the negative bit (its elements the negation of its memory): either refused or
# added as the negation, never its memory read as its values.
neg = torch._neg_view(a)
c.zero_()
try:
    pyops.vecadd(neg, b, c)
    check("a negative-bit view", torch.equal(c, -a + b))
except Exception as e:  # noqa: BLE001
    check("a negative-bit view is refused", "neg" in str(e).lower(), repr(e))
# A tensor that requires grad: refused as DLPack refuses it (it names `detach`).
refused("a tensor that requires grad", TypeError, ["`a`", "detach"], pyops.vecadd, a.clone().requires_grad_(), b, c)
# A subclass (a Parameter without grad): through DLPack.
c.zero_()
pyops.vecadd(torch.nn.Parameter(a, requires_grad=False), b, c)
check("an nn.Parameter", torch.equal(c, a + b))
# A storage offset: the view's first element, not its storage's.
c2 = torch.empty(n - 4, device=dev)
pyops.vecadd(a[4:], b[4:], c2)
check("views at an offset", torch.equal(c2, a[4:] + b[4:]))

# Inside torch.cuda.graph capture (after a warm-up launch, which loads the module), replayed.
g_a = torch.randn(4096, device=dev)
g_b = torch.randn(4096, device=dev)
g_c = torch.empty_like(g_a)
side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    pyops.vecadd(g_a, g_b, g_c)
torch.cuda.current_stream().wait_stream(side)
graph = torch.cuda.CUDAGraph()
with torch.cuda.graph(graph):
    pyops.vecadd(g_a, g_b, g_c)
g_a.copy_(torch.randn(4096, device=dev))
g_c.zero_()
graph.replay()
torch.cuda.synchronize()
check("vecadd captured in a CUDA graph", torch.equal(g_c, g_a + g_b))

# bf16 through DLPack (torch gives bf16 no __cuda_array_interface__), with block = "128".
xb = torch.randn(n, device=dev, dtype=torch.bfloat16)
yb = torch.empty_like(xb)
pyops.scale_bf16(1.5, xb, yb)
check("scale_bf16", torch.equal(yb, (xb.float() * 1.5).to(torch.bfloat16)))

# An atomic histogram.
keys = torch.randint(0, 1 << 31, (n,), device=dev, dtype=torch.int32).to(torch.uint32)
bins = torch.zeros(256, device=dev, dtype=torch.uint32)
# Its only written argument is atomic, so the grid is not implied by it: refused without grid=.
refused("histogram without grid=", TypeError, ["writes only atomic slices", "grid="], pyops.histogram, keys, bins)
pyops.histogram(keys, bins, grid=(n + 255) // 256)
want = torch.bincount((keys.to(torch.int64) & 255), minlength=256)
check("histogram", torch.equal(bins.to(torch.int64), want))

# A matrix input, whole and as a slice of wider rows (a pitch).
m = torch.randn(300, 80, device=dev)
sums = torch.empty(300, device=dev)
pyops.row_sums(m, sums)
check("row_sums", torch.allclose(sums, m.sum(dim=1), rtol=1e-4, atol=1e-4))
sums2 = torch.empty(300, device=dev)
pyops.row_sums(m[:, :48], sums2)
check("row_sums of a pitched slice", torch.allclose(sums2, m[:, :48].sum(dim=1), rtol=1e-4, atol=1e-4))

# A by-value tuple, a 2-D output (BlockTiles, 16 x 16 a block) and a DynShared count.
bias = torch.randn(96, device=dev)
tiles = torch.full((48, 96), float("nan"), device=dev)
pyops.ramp_tiles((3, 2), bias, tiles, 16, grid=(96 // 16, 48 // 16))
r = torch.arange(48, device=dev, dtype=torch.float32)[:, None]
col = torch.arange(96, device=dev, dtype=torch.float32)[None, :]
check("ramp_tiles (tuple, BlockTiles, DynShared)", torch.equal(tiles, r * 3 + col * 2 + bias[None, :]))
refused("a DynShared count over the device's limit", ValueError, ["`stage`", "shared memory"],
        pyops.ramp_tiles, (3, 2), bias, tiles, 1 << 20, grid=(6, 3))
refused("a 2-D output over its input", ValueError, ["`out`", "`bias`"],
        pyops.ramp_tiles, (3, 2), bias, bias.view(1, 96), 16, grid=(6, 1))
refused("a pitched 2-D output", ValueError, ["`out`", "contiguous"],
        pyops.ramp_tiles, (3, 2), bias, tiles[:, :64], 16, grid=(4, 3))

# Refusals with real tensors: nothing is launched.
x = torch.randn(4096, device=dev)
refused("overlapping views x[4:] and x[:-4]", ValueError, ["`c`", "overlaps argument `a`"], pyops.vecadd, x[:-4], x[:-4], x[4:])
refused("overlapping views x[1:] and x[:-1]", ValueError, ["`c`"], pyops.vecadd, x[:-1], x[:-1], x[1:])
refused("the same tensor as input and output", ValueError, ["is the same memory as"], pyops.vecadd, x, x, x)
mm = torch.randn(64, 64, device=dev)
refused("x.t()", ValueError, [".contiguous()"], pyops.vecadd, mm.t(), mm, torch.empty_like(mm))
refused("a CPU tensor", pyops.DeviceError, ["`a`", "CPU"], pyops.vecadd, x.cpu(), x, torch.empty_like(x))
refused("a wrong dtype", TypeError, ["`b`", "float64"], pyops.vecadd, x, x.double(), torch.empty_like(x))
refused("a wrong length", ValueError, ["same_len"], pyops.vecadd, x, x[:1024], torch.empty_like(x))
refused("a misaligned view", ValueError, ["16-byte aligned"], pyops.vecadd, x[1:], x[1:], torch.empty(4095, device=dev))
refused("a wrong block", ValueError, ["block"], pyops.scale_bf16, 1.0, xb, yb, block=256)
if torch.cuda.device_count() > 1:
    other = torch.randn(4096, device="cuda:1")
    refused("a tensor on another device", pyops.DeviceError, ["cuda:1"], pyops.vecadd, x, other, torch.empty_like(x))
    # A stream of device 0 for tensors of device 1.
    o = torch.empty_like(other)
    refused("a stream of another device", pyops.DeviceError, ["stream"], pyops.vecadd, other, other, o, stream=torch.cuda.current_stream(0))
    pyops.vecadd(other, other, o)
    check("vecadd on cuda:1", torch.equal(o, other + other))
    check("the current device is unchanged", torch.cuda.current_device() == 0)
torch.cuda.synchronize()
print(f"python boundary: {passed} passed")
# The kernels as torch custom ops (registration, opcheck, torch.compile, the autograd example):
# a script of its own, which runs every check even after a failure.
sys.exit(subprocess.call([sys.executable, os.path.join(HERE, "python_torch_ops.py")]))
