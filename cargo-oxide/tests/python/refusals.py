"""The wheel `cargo oxide python kernels/pyops` writes, imported without a GPU or torch: the
functions are there with their signatures, and every refusal happens before anything reaches
the GPU, with fake tensors that expose `__cuda_array_interface__` (and `__dlpack_device__`).
Run by cargo-oxide's test `python_wheel` in a fresh venv; exits non-zero on the first failure."""

import inspect

import pyops

BASE = 0x7F00_0000_0000


class Fake:
    """A CUDA array as `__cuda_array_interface__` v3 describes it; `device` adds
    `__dlpack_device__` (DLPack device type, id)."""

    def __init__(self, ptr, shape, typestr="<f4", strides=None, readonly=False, device=None):
        self.__cuda_array_interface__ = {
            "shape": tuple(shape),
            "typestr": typestr,
            "data": (ptr, readonly),
            "strides": strides,
            "version": 3,
        }
        if device is not None:
            self.__dlpack_device__ = lambda: device


class HostArray:
    """What numpy offers: `__array_interface__` only."""

    __array_interface__ = {"shape": (4,), "typestr": "<f4", "data": (0x1000, False), "version": 3}


def refused(exception, words, f, *args, **kwargs):
    try:
        f(*args, **kwargs)
    except exception as e:
        message = str(e)
        for word in words:
            assert word in message, f"{word!r} not in {message!r}"
        return message
    raise AssertionError(f"{f.__name__}{args} was not refused with {exception.__name__}")


# The functions, their signatures and docstrings.
for name in ["vecadd", "scale_bf16", "histogram", "row_sums"]:
    assert callable(getattr(pyops, name)), name
assert str(inspect.signature(pyops.vecadd)) == "(a, b, c, *, grid=None, block=None, stream=None)"
assert str(inspect.signature(pyops.scale_bf16)).startswith("(alpha, x, y, *")
assert "c: DisjointSlice<f32>" in pyops.vecadd.__doc__
assert "block = (128, 1, 1)" in pyops.scale_bf16.__doc__
assert issubclass(pyops.DeviceError, ValueError)

n = 64
a = Fake(BASE, (n,))
b = Fake(BASE + 0x1000, (n,))
c = Fake(BASE + 0x2000, (n,))

# The same tensor as input and output.
refused(ValueError, ["`c`", "is the same memory as argument `a`"], pyops.vecadd, a, b, a)
# Overlapping views of one storage: `x[4:]` written, `x[:-4]` read.
refused(ValueError, ["`c`", "overlaps argument `a`"], pyops.vecadd, a, b, Fake(BASE + 16, (n,)))
# Inputs may overlap each other: `a` twice passes every check (then needs the GPU).
# A non-contiguous view (`x.t()` of an 8 x 8 matrix).
refused(ValueError, ["`b`", "b.contiguous()"], pyops.vecadd, a, Fake(BASE + 0x1000, (8, 8), strides=(4, 32)), c)
# A wrong dtype.
refused(TypeError, ["`b`", "float16", "float32"], pyops.vecadd, a, Fake(BASE + 0x1000, (n,), "<f2"), c)
refused(TypeError, ["`x`", "bfloat16"], pyops.scale_bf16, 2.0, Fake(BASE, (n,), "<f4"), c)
# Host memory: a numpy-like array, a list, a CPU tensor's DLPack device.
refused(TypeError, ["`a`", "host array", ".cuda()"], pyops.vecadd, HostArray(), b, c)
refused(TypeError, ["`a`", "list"], pyops.vecadd, [1.0] * n, b, c)
refused(pyops.DeviceError, ["`b`", "the CPU"], pyops.vecadd, a, Fake(0x1000, (n,), device=(1, 0)), c)
# Two devices.
refused(
    pyops.DeviceError,
    ["`b` is on cuda:1", "`a` on cuda:0"],
    pyops.vecadd,
    Fake(BASE, (n,), device=(2, 0)),
    Fake(BASE + 0x1000, (n,), device=(2, 1)),
    c,
)
# A read-only output, a misaligned view (`x[1:]`), a matrix that is not 2-D.
refused(ValueError, ["`c`", "read-only"], pyops.vecadd, a, b, Fake(BASE + 0x2000, (n,), readonly=True))
refused(ValueError, ["`b`", "16-byte aligned", "b.clone()"], pyops.vecadd, a, Fake(BASE + 0x1004, (n,)), c)
refused(ValueError, ["`m`", "2-D tensor"], pyops.row_sums, Fake(BASE, (n,)), c)
# Scalars, arguments and launch shapes.
refused(TypeError, ["`alpha`", "float"], pyops.scale_bf16, "2", Fake(BASE, (n,), "<f2"), c)
refused(TypeError, ["missing argument `c`"], pyops.vecadd, a, b)
refused(TypeError, ["no argument `d`"], pyops.vecadd, a, b, c, d=c)
refused(TypeError, ["`grid`"], pyops.vecadd, a, b, c, grid="x")
refused(TypeError, ["`stream`"], pyops.vecadd, a, b, c, stream="x")

# A call that passes every check reaches the GPU: here, none (or, on a machine with one, the
# driver does not know these fake addresses).
try:
    pyops.vecadd(a, a, c)
except RuntimeError as e:
    assert "driver" in str(e) or "device" in str(e), e
except pyops.DeviceError as e:
    assert "not device memory" in str(e), e
else:
    raise AssertionError("a launch with fake addresses succeeded")

print("python boundary: all refusals raised")
