"""Where an oxide call from Python spends its host time, ON the GPU machine, after
python_boundary.py has unpacked the pyops wheel into .gpu-suite/pylib: the host time of a call
of pyops.vecadd on 1024 floats (three tensors), plain tensors and Parameters (which take
DLPack), next to each piece of Python-side work the call
does or could do instead, and torch's own `torch.add(a, b, out=c)`. Each row is the median of
7 samples of 2000 calls, in microseconds a call; the GPU work is tiny and queued, so this is
host time (the queue never fills: a sync every sample).

    python3 .gpu-suite/experiments/call-cost.py
"""

import os
import sys
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(HERE, "pylib"))

import torch  # noqa: E402

import pyops  # noqa: E402

CALLS, SAMPLES = 2000, 7


def us(fn):
    for _ in range(200):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(SAMPLES):
        t0 = time.perf_counter()
        for _ in range(CALLS):
            fn()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1e6 / CALLS)
    times.sort()
    return times[SAMPLES // 2]


a = torch.randn(1024, device="cuda")
b = torch.randn(1024, device="cuda")
c = torch.empty_like(a)
# Parameters (a subclass) take the DLPack path: the call before torch_tensor.rs.
pa, pb, pc = (torch.nn.Parameter(t, requires_grad=False) for t in (a, b, c))
stream = torch.cuda.current_stream(0).cuda_stream
rows = [
    ("pyops.vecadd(a, b, c)", lambda: pyops.vecadd(a, b, c)),
    ("pyops.vecadd on Parameters (DLPack)", lambda: pyops.vecadd(pa, pb, pc)),
    ("torch.add(a, b, out=c)", lambda: torch.add(a, b, out=c)),
    ("torch.cuda.current_stream(0).cuda_stream", lambda: torch.cuda.current_stream(0).cuda_stream),
    ("torch._C._cuda_getCurrentRawStream(0)", lambda: torch._C._cuda_getCurrentRawStream(0)),
    ("3x t.__dlpack_device__()", lambda: (a.__dlpack_device__(), b.__dlpack_device__(), c.__dlpack_device__())),
    ("3x t.__dlpack__(stream=current)", lambda: (a.__dlpack__(stream=stream), b.__dlpack__(stream=stream), c.__dlpack__(stream=stream))),
    ("3x t.data_ptr()", lambda: (a.data_ptr(), b.data_ptr(), c.data_ptr())),
    ("3x (t.dtype, t.shape, t.stride())", lambda: [(t.dtype, t.shape, t.stride()) for t in (a, b, c)]),
    ("3x (t.is_cuda, t.get_device(), t.requires_grad)", lambda: [(t.is_cuda, t.get_device(), t.requires_grad) for t in (a, b, c)]),
    ("3x (t.is_neg(), t.layout)", lambda: [(t.is_neg(), t.layout) for t in (a, b, c)]),
    ("3x t.untyped_storage() range", lambda: [(s.data_ptr(), s.nbytes()) for s in (t.untyped_storage() for t in (a, b, c))]),
]
width = max(len(name) for name, _ in rows)
print(f"{'what':{width}s}  us a call")
for name, fn in rows:
    print(f"{name:{width}s}  {us(fn):8.2f}", flush=True)
