"""oxide kernels as torch custom ops, ON the GPU machine (torch 2.11+, a CUDA device), from the
wheel ci/build-gpu-suite.sh built (.gpu-suite/wheels/pyops-*.whl, unpacked into .gpu-suite/pylib
as python_boundary.py does, which runs this script last):

- `pyops.register_torch()` registers every kernel as `torch.ops.pyops.<kernel>`, with the schema
  `pyops.torch_schemas` states;
- `torch.library.opcheck` passes for every op (schema, autograd registration, fake tensors,
  AOT dispatch with dynamic shapes);
- `torch.compile(fullgraph=True)` of functions calling the ops compiles with no graph break and
  equals eager, and the boundary's refusals still happen through the op;
- the autograd example (`SwiGLU`, kernels/pyops's `swiglu` and `swiglu_backward` as a
  `torch.autograd.Function`, docs/python.md) gives torch autograd's gradients of
  `silu(g) * u`, eager and compiled.

    python3 .gpu-suite/python_torch_ops.py           # on the GPU machine
    python3 ci/gpu-suite/python_torch_ops.py --meta  # without a GPU: what meta tensors can show

`--meta` (torch importable, pyops importable: installed or on PYTHONPATH) runs what needs no
values: registration, schemas, fake implementations, no graph break, the autograd example's
shapes. Every check runs even when an earlier one failed; each failure prints a `FAIL` line.
Exits 1 on any failure and prints `python torch ops: N passed, M failed` last."""

import glob
import os
import subprocess
import sys
import traceback

META = "--meta" in sys.argv[1:]
HERE = os.path.dirname(os.path.abspath(__file__))

if not META:
    LIB = os.path.join(HERE, "pylib")
    wheels = glob.glob(os.path.join(HERE, "wheels", "pyops-*.whl"))
    assert len(wheels) == 1, f"expected one pyops wheel in {HERE}/wheels, found {wheels}"
    subprocess.check_call([sys.executable, "-m", "pip", "install", "--no-index", "--no-deps", "--upgrade", "--quiet", "--target", LIB, wheels[0]])
    sys.path.insert(0, LIB)

import pyops  # noqa: E402

# Importing the module does not import torch: registration is explicit.
TORCH_BEFORE = "torch" in sys.modules

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

passed = 0
failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {name}")
    else:
        failed += 1
        print(f"FAIL {name} {detail}")


def attempt(name, f):
    """Runs check `name`'s body `f`, which returns (ok, detail); an exception is a failure."""
    try:
        ok, detail = f()
    except Exception as e:  # noqa: BLE001
        ok, detail = False, f"raised {type(e).__name__}: {e}\n{traceback.format_exc()}"
    check(name, ok, detail)


def refused(name, exception, words, f, *args, **kwargs):
    def body():
        try:
            f(*args, **kwargs)
        except exception as e:
            missing = [w for w in words if w not in str(e)]
            return not missing, f"{missing} not in {e!r}"
        return False, "was not refused"
    attempt(name, body)


def close(got, want, rtol, atol):
    """(ok, detail) of `torch.testing.assert_close` with these tolerances."""
    try:
        torch.testing.assert_close(got, want, rtol=rtol, atol=atol)
        return True, ""
    except AssertionError as e:
        return False, str(e)


check("importing pyops does not import torch", not TORCH_BEFORE)

dev = torch.device("meta" if META else "cuda:0")

# Registration: every kernel is an op of the module's namespace, with the stated schema.
ops = None
try:
    ops = pyops.register_torch()
    check("register_torch() returns torch.ops.pyops", ops is torch.ops.pyops, repr(ops))
    check("register_torch() twice is the same namespace", pyops.register_torch() is ops)
except Exception as e:  # noqa: BLE001
    check("register_torch()", False, f"raised {type(e).__name__}: {e}\n{traceback.format_exc()}")
if ops is None:
    print(f"python torch ops: {passed} passed, {failed + 1} failed (nothing registered)")
    sys.exit(1)

KERNELS = ["vecadd", "scale_bf16", "histogram", "row_sums", "ramp_tiles", "swiglu", "swiglu_backward"]
check("a schema for every kernel", sorted(pyops.torch_schemas) == sorted(KERNELS), repr(pyops.torch_schemas))
for name in KERNELS:
    attempt(f"torch.ops.pyops.{name}'s schema is torch_schemas[{name!r}]",
            lambda name=name: (str(getattr(ops, name).default._schema) == pyops.torch_schemas[name],
                               f"{getattr(ops, name).default._schema} vs {pyops.torch_schemas[name]}"))
attempt("the ops are pt2-compliant",
        lambda: (all(torch.Tag.pt2_compliant_tag in getattr(ops, k).default.tags for k in KERNELS), ""))

# Sample arguments of every op (small; the same shapes python_boundary.py launches).
n = 4096 + 3
a = torch.randn(n, device=dev)
b = torch.randn(n, device=dev)
g = 3 * torch.randn(n, device=dev)
u = torch.randn(n, device=dev)
xb = torch.randn(n, device=dev, dtype=torch.bfloat16)
m = torch.randn(300, 80, device=dev)
bias = torch.randn(96, device=dev)
if META:
    keys = torch.empty(n, device=dev, dtype=torch.uint32)
else:
    keys = torch.randint(0, 1 << 31, (n,), device=dev, dtype=torch.int32).to(torch.uint32)
SAMPLES = {
    "vecadd": lambda: ((a, b, torch.empty_like(a)), {}),
    "scale_bf16": lambda: ((1.5, xb, torch.empty_like(xb)), {}),
    "histogram": lambda: ((keys, torch.zeros(256, device=dev, dtype=torch.uint32)), {"grid": [(n + 255) // 256]}),
    "row_sums": lambda: ((m, torch.empty(300, device=dev)), {}),
    "ramp_tiles": lambda: (([3, 2], bias, torch.empty(48, 96, device=dev), 16), {"grid": [6, 3]}),
    "swiglu": lambda: ((g, u, torch.empty_like(g)), {}),
    "swiglu_backward": lambda: ((g, u, b, torch.empty_like(g), torch.empty_like(g)), {}),
}

# opcheck: the schema's mutations are the op's, its autograd registration, its fake
# implementation, and AOT dispatch with dynamic shapes against eager. On meta tensors only the
# fake one means anything (meta tensors run the fake implementation everywhere).
UTILS = ("test_faketensor",) if META else ("test_schema", "test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic")
for name in KERNELS:
    def run_opcheck(name=name):
        args, kwargs = SAMPLES[name]()
        result = torch.library.opcheck(getattr(ops, name).default, args, kwargs, test_utils=UTILS, raise_exception=False)
        bad = {k: v for k, v in result.items() if v != "SUCCESS"}
        return not bad, repr(bad)
    attempt(f"opcheck {name}", run_opcheck)

if not META:
    # Eager through the op: the same results as the direct call and as torch.
    def eager(name, output, reference, rtol=0.0, atol=0.0):
        def body():
            args, kwargs = SAMPLES[name]()
            result = getattr(ops, name)(*args, **kwargs)
            if result is not None:
                return False, f"returned {result!r}, not None"
            torch.cuda.synchronize()
            return close(output(args), reference(args), rtol, atol)
        attempt(f"torch.ops.pyops.{name} eager", body)

    eager("vecadd", lambda t: t[2], lambda t: t[0] + t[1])
    eager("scale_bf16", lambda t: t[2], lambda t: (t[1].float() * 1.5).to(torch.bfloat16))
    eager("row_sums", lambda t: t[1], lambda t: t[0].sum(dim=1), rtol=1e-4, atol=1e-4)
    # SwiGLU in f32 against torch's silu: a few ulps of exp and the order of the products.
    eager("swiglu", lambda t: t[2], lambda t: F.silu(t[0]) * t[1], rtol=1e-5, atol=1e-5)

    def direct_returns_none():
        c = torch.empty_like(a)
        result = pyops.vecadd(a, b, c)
        return result is None, repr(result)
    attempt("pyops.vecadd returns None", direct_returns_none)

    # The boundary's refusals, through the op: the same checked call, the same exceptions.
    x = torch.randn(4096, device=dev)
    refused("op: overlapping views x[4:] and x[:-4]", ValueError, ["`c`", "overlaps argument `a`"], ops.vecadd, x[:-4], x[:-4], x[4:])
    refused("op: the same tensor as input and output", ValueError, ["is the same memory as"], ops.vecadd, x, x, x)
    refused("op: a CPU tensor", pyops.DeviceError, ["`a`", "CPU"], ops.vecadd, x.cpu(), x.cpu(), torch.empty(4096))
    refused("op: a wrong dtype", TypeError, ["`b`", "float64"], ops.vecadd, x, x.double(), torch.empty_like(x))
    refused("op: a wrong length", ValueError, ["same_len"], ops.vecadd, x, x[:1024], torch.empty_like(x))
    refused("op: a tuple of the wrong length", TypeError, ["`coeffs`", "tuple of 2"], ops.ramp_tiles, [3, 2, 1], bias, torch.empty(48, 96, device=dev), 16, grid=[6, 3])


# torch.compile(fullgraph=True): the op is traced, not a graph break, and equals eager.
def swiglu_then_more(g, u):
    h = torch.empty_like(g)
    torch.ops.pyops.swiglu(g, u, h)
    return h * 2 + 1


def vecadd_chain(a, b):
    c = torch.empty_like(a)
    torch.ops.pyops.vecadd(a, b, c)
    d = torch.empty_like(a)
    torch.ops.pyops.vecadd(c, a, d)
    return d


BACKEND = "aot_eager" if META else "inductor"
for f, args, rtol, atol in [(swiglu_then_more, (g, u), 1e-5, 1e-5), (vecadd_chain, (a, b), 0.0, 0.0)]:
    def no_graph_break(f=f, args=args):
        torch._dynamo.reset()
        explained = torch._dynamo.explain(f)(*args)
        return explained.graph_break_count == 0 and explained.graph_count == 1, str(explained.break_reasons)
    attempt(f"{f.__name__}: no graph break", no_graph_break)

    def compiled_equals_eager(f=f, args=args, rtol=rtol, atol=atol):
        torch._dynamo.reset()
        got = torch.compile(f, fullgraph=True, backend=BACKEND)(*args)
        want = f(*args)
        if META:
            return got.shape == want.shape and got.device == want.device, f"{got.shape} vs {want.shape}"
        torch.cuda.synchronize()
        return close(got, want, rtol, atol)
    attempt(f"{f.__name__}: torch.compile(fullgraph=True, backend={BACKEND!r}) equals eager", compiled_equals_eager)


if not META:
    # A compiled graph calls the op's implementation, the checked call: a wrong dtype made
    # inside the graph is refused when the graph runs (the fake implementation computes
    # nothing, so tracing does not refuse it).
    def refused_when_compiled():
        torch._dynamo.reset()

        def wrong_dtype(x):
            c = torch.empty_like(x)
            torch.ops.pyops.vecadd(x, x.double(), c)
            return c

        try:
            torch.compile(wrong_dtype, fullgraph=True)(torch.randn(4096, device=dev))
        except Exception as e:  # noqa: BLE001
            return "`b`" in str(e) and "float64" in str(e), repr(e)
        return False, "was not refused"
    attempt("compiled: a wrong dtype is still refused when the graph runs", refused_when_compiled)


# The autograd example of docs/python.md: a kernel and its backward as a torch.autograd.Function.
class SwiGLU(torch.autograd.Function):
    """`silu(g) * u` by kernels/pyops's `swiglu`, its gradients by `swiglu_backward`."""

    @staticmethod
    def forward(ctx, g, u):
        h = torch.empty_like(g)
        torch.ops.pyops.swiglu(g, u, h)
        ctx.save_for_backward(g, u)
        return h

    @staticmethod
    def backward(ctx, dh):
        g, u = ctx.saved_tensors
        dg, du = torch.empty_like(g), torch.empty_like(u)
        torch.ops.pyops.swiglu_backward(g, u, dh.contiguous(), dg, du)
        return dg, du


def swiglu_loss(g, u, w):
    return (SwiGLU.apply(g, u) * w).sum()


def reference_loss(g, u, w):
    return (F.silu(g) * u * w).sum()


def gradients(loss, g, u, w):
    g = g.detach().clone().requires_grad_()
    u = u.detach().clone().requires_grad_()
    value = loss(g, u, w)
    value.backward()
    return value.detach(), g.grad, u.grad


w = torch.randn(n, device=dev)
# f32 end to end; the kernels and torch differ by a few ulps of exp and the order of the
# products, so the gradients agree to rtol 1e-5 (atol 1e-5 near zero) and the loss, a sum of
# 4099 terms, to rtol 1e-4.
for label, loss in [("eager", swiglu_loss), ("compiled", None)]:
    def autograd_example(label=label, loss=loss):
        if loss is None:
            torch._dynamo.reset()
            loss = torch.compile(swiglu_loss, fullgraph=True, backend=BACKEND)
        got = gradients(loss, g, u, w)
        want = gradients(reference_loss, g, u, w)
        if META:
            shapes = [x.shape for x in got] == [x.shape for x in want]
            return shapes, f"{[x.shape for x in got]} vs {[x.shape for x in want]}"
        torch.cuda.synchronize()
        for what, x, y, rtol, atol in zip(["loss", "dg", "du"], got, want, [1e-4, 1e-5, 1e-5], [1e-3, 1e-5, 1e-5]):
            ok, detail = close(x, y, rtol, atol)
            if not ok:
                return False, f"{what}: {detail}"
        return True, ""
    attempt(f"SwiGLU autograd.Function ({label}) against torch's autograd of silu(g) * u", autograd_example)

print(f"python torch ops: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
