"""The wheel `cargo oxide python kernels/pyops` writes, imported without a GPU or torch: the
functions are there with their signatures, and every refusal happens before anything reaches
the GPU, with fake tensors that expose `__cuda_array_interface__` (and `__dlpack_device__`), and
with a stand-in torch whose plain tensors are read from their attributes.
Run by cargo-oxide's test `python_wheel` in a fresh venv; exits non-zero on the first failure."""

import ctypes
import inspect
import sys
import types

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
KERNELS = ["vecadd", "scale_bf16", "histogram", "row_sums", "ramp_tiles", "swiglu", "swiglu_backward"]
for name in KERNELS:
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


def reaches_gpu(f, *args, **kwargs):
    """A call that passes every check reaches the GPU: here, none (or, on a machine with one,
    the driver does not know these fake addresses)."""
    try:
        f(*args, **kwargs)
    except RuntimeError as e:
        assert "driver" in str(e) or "device" in str(e), e
    except pyops.DeviceError as e:
        assert "not device memory" in str(e), e
    else:
        raise AssertionError("a launch with fake addresses succeeded")


# Layouts a written argument could alias itself or others through.
refused(ValueError, ["`c`", "not contiguous"], pyops.vecadd, a, b, Fake(BASE + 0x2000, (n,), strides=(0,)))
refused(ValueError, ["`c`", "not contiguous"], pyops.vecadd, a, b, Fake(BASE + 0x2000, (n,), strides=(-4,)))
refused(ValueError, ["`c`", "not contiguous"], pyops.vecadd, a, b, Fake(BASE + 0x2000, (4, 16), strides=(0, 4)))
refused(TypeError, ["`b`", "strides"], pyops.vecadd, a, Fake(BASE + 0x1000, (n,), strides=(2,)), c)
refused(TypeError, ["`b`", "strides"], pyops.vecadd, a, Fake(BASE + 0x1000, (n,), strides=(4, 4)), c)
# Sizes and addresses that overflow: a `data` near the top of the address space, a huge shape.
refused(ValueError, ["`c`", "spans more bytes"], pyops.vecadd, a, b, Fake(2**64 - 16, (n,)))
refused(ValueError, ["`c`", "spans more bytes"], pyops.vecadd, a, b, Fake(BASE, (2**62, 8)))
refused(TypeError, ["`a`", "pointer"], pyops.vecadd, Fake(-16, (n,)), b, c)
refused(TypeError, ["`a`", "shape"], pyops.vecadd, Fake(BASE, (-1,)), b, c)
# The same written tensor passed as two parameters: an atomic slice and an output.
refused(ValueError, ["`bins`", "is the same memory as argument `keys`"], pyops.histogram, Fake(BASE, (n,), "<u4"), Fake(BASE, (n,), "<u4"))
# An atomic slice is every thread's, so its length does not size a default grid.
refused(TypeError, ["histogram()", "writes only atomic slices", "pass `grid=`"], pyops.histogram, Fake(BASE, (n,), "<u4"), Fake(BASE + (1 << 30), (256,), "<u4"))


class Masked(Fake):
    def __init__(self):
        super().__init__(BASE + 0x1000, (n,))
        self.__cuda_array_interface__["mask"] = (1,)


refused(ValueError, ["`b`", "masked"], pyops.vecadd, a, Masked(), c)
# CAI v3's `stream` 0 is disallowed by the spec (legacy or per-thread default?).
with_stream = Fake(BASE + 0x1000, (n,))
with_stream.__cuda_array_interface__["stream"] = 0
refused(TypeError, ["`b`", "`stream` 0"], pyops.vecadd, a, with_stream, c)
# A DLPack device that is not CUDA (kDLCUDAManaged, 13).
refused(pyops.DeviceError, ["`b`", "DLPack device type 13"], pyops.vecadd, a, Fake(BASE + 0x1000, (n,), device=(13, 0)), c)


class Changing:
    """`__cuda_array_interface__` as a property that describes other memory on each read: the
    boundary reads it once, so the output it checked is the output it launches on."""

    def __init__(self):
        self.reads = 0

    @property
    def __cuda_array_interface__(self):
        self.reads += 1
        ptr = BASE + 0x2000 if self.reads == 1 else BASE
        return {"shape": (n,), "typestr": "<f4", "data": (ptr, False), "version": 3}


changing = Changing()
reaches_gpu(pyops.vecadd, a, b, changing)
assert changing.reads == 1, changing.reads
# An empty output overlaps nothing, even at an input's address.
reaches_gpu(pyops.vecadd, a, b, Fake(BASE, (0,)))

# DLPack capsules, made with ctypes: a `DLManagedTensor` in a capsule named `dltensor`.
DLTENSOR = b"dltensor"
USED = b"used_dltensor"


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


capsule_new = ctypes.pythonapi.PyCapsule_New
capsule_new.restype = ctypes.py_object
capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
capsule_valid = ctypes.pythonapi.PyCapsule_IsValid
capsule_valid.restype = ctypes.c_int
capsule_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]


class FakeDL:
    """A CUDA tensor as DLPack describes it: `__dlpack_device__`, and `__dlpack__(stream=)`
    returning a fresh capsule (no destructor: this object owns the memory), recording the
    stream each call was given."""

    def __init__(self, ptr, shape, code=2, bits=32, lanes=1, byte_offset=0, device=(2, 0),
                 capsule_device=None, name=DLTENSOR, strides=None):
        self.device = device
        self.name = name
        self.shape = (ctypes.c_int64 * len(shape))(*shape)
        self.strides = None if strides is None else (ctypes.c_int64 * len(strides))(*strides)
        kind, id_ = capsule_device or device
        self.managed = DLManagedTensor()
        t = self.managed.dl_tensor
        t.data, t.device, t.ndim = ptr, DLDevice(kind, id_), len(shape)
        t.dtype = DLDataType(code, bits, lanes)
        t.shape = self.shape
        t.strides = self.strides
        t.byte_offset = byte_offset
        self.streams = []
        self.capsules = []

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None):
        self.streams.append(stream)
        capsule = capsule_new(ctypes.addressof(self.managed), self.name, None)
        self.capsules.append(capsule)
        return capsule


da, db, dc = FakeDL(BASE, (n,)), FakeDL(BASE + 0x1000, (n,)), FakeDL(BASE + 0x2000, (n,))
# Without torch, the launch goes to the legacy default stream, which DLPack spells 1 (0 is
# disallowed); the capsules are borrowed, not consumed (their name stays `dltensor`).
reaches_gpu(pyops.vecadd, da, db, dc)
assert da.streams == db.streams == dc.streams == [1], (da.streams, db.streams, dc.streams)
assert all(capsule_valid(c, DLTENSOR) for c in da.capsules + dc.capsules)
# `stream=` is what the producer is told.
reaches_gpu(pyops.vecadd, da, db, dc, stream=2)
assert da.streams[-1] == db.streams[-1] == dc.streams[-1] == 2
# `byte_offset` counts: here it makes the start misaligned.
refused(ValueError, ["`b`", "16-byte aligned"], pyops.vecadd, da, FakeDL(BASE + 0x1000, (n,), byte_offset=4), dc)
# ... and overlapping: the output at the input's address through its offset.
refused(ValueError, ["`c`", "overlaps argument `a`"], pyops.vecadd, da, db, FakeDL(BASE - 0x100, (n,), byte_offset=0x110))
refused(TypeError, ["`b`", "4 lanes"], pyops.vecadd, da, FakeDL(BASE + 0x1000, (n,), lanes=4), dc)
refused(TypeError, ["`b`", "float16"], pyops.vecadd, da, FakeDL(BASE + 0x1000, (n,), bits=16), dc)
refused(pyops.DeviceError, ["`b`", "the CPU"], pyops.vecadd, da, FakeDL(BASE + 0x1000, (n,), capsule_device=(1, 0)), dc)
refused(pyops.DeviceError, ["`b` is on cuda:1"], pyops.vecadd, da, FakeDL(BASE + 0x1000, (n,), device=(2, 1)), dc)
refused(TypeError, ["`b`", "unconsumed `dltensor`"], pyops.vecadd, da, FakeDL(BASE + 0x1000, (n,), name=USED), dc)
refused(ValueError, ["`c`", "not contiguous"], pyops.vecadd, da, db, FakeDL(BASE + 0x2000, (n,), strides=(0,)))
refused(TypeError, ["`b`", "negative size"], pyops.vecadd, da, FakeDL(BASE + 0x1000, (-1,)), dc)


class NotACapsule(FakeDL):
    def __dlpack__(self, stream=None):
        return object()


refused(TypeError, ["`b`", "no capsule"], pyops.vecadd, da, NotACapsule(BASE + 0x1000, (n,)), dc)

# With torch loaded, the launch goes to its current stream, read once per call: a current
# stream that changes while the arguments are read (here, on every read) does not split the
# producers' streams from the launch's. (A stand-in torch; 2 and 1 are the driver's special
# stream handles, so a machine with a GPU never sees a made-up one.)
current = iter([2, 1, 1, 1, 1, 1])
sys.modules["torch"] = types.SimpleNamespace(
    cuda=types.SimpleNamespace(
        current_stream=lambda device: types.SimpleNamespace(cuda_stream=next(current)),
        current_device=lambda: 0,
    )
)
try:
    da.streams, db.streams, dc.streams = [], [], []
    reaches_gpu(pyops.vecadd, da, db, dc)
    assert da.streams == db.streams == dc.streams == [2], (da.streams, db.streams, dc.streams)
finally:
    del sys.modules["torch"]

# The kinds a tensor-core kernel takes (`ramp_tiles`): a by-value tuple, a 2-D output
# (`BlockTiles`) and a `DynShared` array's element count, by position or by name.
assert str(inspect.signature(pyops.ramp_tiles)).startswith("(coeffs, bias, out, stage, *")
assert "out: BlockTiles<f32, 16, 16>" in pyops.ramp_tiles.__doc__
assert "coeffs: (u32, u32)" in pyops.ramp_tiles.__doc__
assert "stage: DynShared<u32>" in pyops.ramp_tiles.__doc__
bias = Fake(BASE, (64,))
out = Fake(BASE + 0x1000, (32, 64))
grid = (4, 2)
ramp = pyops.ramp_tiles
reaches_gpu(ramp, (1, 2), bias, out, 16, grid=grid)
reaches_gpu(ramp, (1, 2), bias, out, stage=16, grid=grid)
reaches_gpu(ramp, coeffs=(0, 2**32 - 1), bias=bias, out=out, stage=0, grid=grid)
# The tuple: a tuple of two ints in `u32`'s range, nothing else.
refused(TypeError, ["`coeffs`", "list", "tuple of 2"], ramp, [1, 2], bias, out, 16, grid=grid)
refused(TypeError, ["`coeffs`", "3 items", "tuple of 2"], ramp, (1, 2, 3), bias, out, 16, grid=grid)
refused(TypeError, ["`coeffs`", "1 items"], ramp, (1,), bias, out, 16, grid=grid)
refused(TypeError, ["`coeffs[1]`", "float", "int"], ramp, (1, 2.0), bias, out, 16, grid=grid)
refused(TypeError, ["`coeffs[0]`", "bool"], ramp, (True, 2), bias, out, 16, grid=grid)
refused(ValueError, ["`coeffs[0]`", "u32", "4294967295"], ramp, (-1, 2), bias, out, 16, grid=grid)
refused(ValueError, ["`coeffs[1]`", "u32"], ramp, (1, 2**32), bias, out, 16, grid=grid)
# The 2-D output: two dimensions, contiguous, writable, of the parameter's dtype, sharing no
# memory with another argument.
refused(ValueError, ["`out`", "1 dimensions", "2-D"], ramp, (1, 2), bias, Fake(BASE + 0x1000, (2048,)), 16, grid=grid)
refused(ValueError, ["`out`", "3 dimensions"], ramp, (1, 2), bias, Fake(BASE + 0x1000, (2, 16, 64)), 16, grid=grid)
# `m[:, :64]` of 128 columns: its rows are not one after another.
refused(ValueError, ["`out`", "out.contiguous()"], ramp, (1, 2), bias, Fake(BASE + 0x1000, (32, 64), strides=(512, 4)), 16, grid=grid)
refused(ValueError, ["`out`", "no columns"], ramp, (1, 2), bias, Fake(BASE + 0x1000, (32, 0)), 16, grid=grid)
refused(ValueError, ["`out`", "read-only"], ramp, (1, 2), bias, Fake(BASE + 0x1000, (32, 64), readonly=True), 16, grid=grid)
refused(TypeError, ["`out`", "float16"], ramp, (1, 2), bias, Fake(BASE + 0x1000, (32, 64), "<f2"), 16, grid=grid)
refused(ValueError, ["`out`", "overlaps argument `bias`"], ramp, (1, 2), bias, Fake(BASE + 0x80, (32, 64)), 16, grid=grid)
refused(ValueError, ["`out`", "same memory as argument `bias`"], ramp, (1, 2), bias, Fake(BASE, (1, 64)), 16, grid=grid)
refused(ValueError, ["`out`", "16-byte aligned"], ramp, (1, 2), bias, Fake(BASE + 0x1004, (32, 64)), 16, grid=grid)
# A 2-D output's shape is not its thread count: the grid must be given.
refused(TypeError, ["2-D output `out`", "grid="], ramp, (1, 2), bias, out, 16)
# The `DynShared` array's element count: an int in `usize`'s range (its bytes are checked
# against the device's shared memory by the launch, on the GPU).
refused(TypeError, ["`stage`", "str", "int"], ramp, (1, 2), bias, out, "16", grid=grid)
refused(ValueError, ["`stage`"], ramp, (1, 2), bias, out, -1, grid=grid)
refused(TypeError, ["missing argument `stage`"], ramp, (1, 2), bias, out, grid=grid)

# The torch custom ops: each kernel's schema, derived from its parameters' kinds (read tensors
# `Tensor`, written ones `Tensor(aN!)`, numbers, tuples as lists, the launch's grid and block),
# stated without torch; registering needs torch, which importing the module never imports.
LAUNCH = "*, int[]? grid=None, int[]? block=None) -> ()"
assert pyops.torch_schemas == {
    "vecadd": f"pyops::vecadd(Tensor a, Tensor b, Tensor(a0!) c, {LAUNCH}",
    "scale_bf16": f"pyops::scale_bf16(float alpha, Tensor x, Tensor(a0!) y, {LAUNCH}",
    "histogram": f"pyops::histogram(Tensor keys, Tensor(a0!) bins, {LAUNCH}",
    "row_sums": f"pyops::row_sums(Tensor m, Tensor(a0!) sums, {LAUNCH}",
    "ramp_tiles": f"pyops::ramp_tiles(int[] coeffs, Tensor bias, Tensor(a0!) out, int stage, {LAUNCH}",
    "swiglu": f"pyops::swiglu(Tensor g, Tensor u, Tensor(a0!) h, {LAUNCH}",
    "swiglu_backward": f"pyops::swiglu_backward(Tensor g, Tensor u, Tensor dh, Tensor(a0!) dg, Tensor(a1!) du, {LAUNCH}",
}, pyops.torch_schemas
assert str(inspect.signature(pyops.register_torch)) == "()"
assert "torch.ops.<module>.<kernel>" in pyops.register_torch.__doc__
assert "torch" not in sys.modules, "importing pyops imported torch"
try:
    import torch  # noqa: F401
except ImportError:
    refused(ImportError, ["torch"], pyops.register_torch)

# register_torch() against a stand-in torch that records what `custom_op` is given. A name
# torch already has in the namespace is refused before any op is registered (custom_op would
# fail at it midway, the ops before it registered for good); the op's implementation is the
# kernel's checked call, with the same refusals; `mutates_args` is what each kernel writes,
# atomics included.
registered = {}


class OpDef:
    def register_fake(self, fake):
        self.fake = fake


def custom_op(qualname, fn, **kwargs):
    registered[qualname] = (fn, kwargs)
    return OpDef()


namespace = types.SimpleNamespace(swiglu=object())
sys.modules["torch"] = types.SimpleNamespace(
    library=types.SimpleNamespace(custom_op=custom_op),
    ops=types.SimpleNamespace(pyops=namespace),
    cuda=types.SimpleNamespace(
        current_stream=lambda device: types.SimpleNamespace(cuda_stream=2),
        current_device=lambda: 0,
    ),
)
try:
    refused(RuntimeError, ["no op was registered", "`pyops::swiglu`"], pyops.register_torch)
    assert registered == {}, registered
    del namespace.swiglu
    assert pyops.register_torch() is namespace
    assert pyops.register_torch() is namespace
    assert sorted(registered) == sorted(f"pyops::{k}" for k in KERNELS), registered
    mutated = {q: kw["mutates_args"] for q, (_, kw) in registered.items()}
    assert mutated["pyops::vecadd"] == ("c",), mutated
    assert mutated["pyops::histogram"] == ("bins",), mutated
    assert mutated["pyops::swiglu_backward"] == ("dg", "du"), mutated
    assert mutated["pyops::ramp_tiles"] == ("out",), mutated
    vecadd_op = registered["pyops::vecadd"][0]
    refused(ValueError, ["`c`", "overlaps argument `a`"], vecadd_op, a, b, Fake(BASE + 0x80, (n,)))
    refused(ValueError, ["`c`", "is the same memory as"], vecadd_op, a, b, a)
    refused(TypeError, ["`b`", "float64"], vecadd_op, a, Fake(BASE + 0x1000, (n,), "<f8"), c)
    hist = registered["pyops::histogram"][0]
    refused(TypeError, ["writes only atomic slices"], hist, Fake(BASE, (n,), "<u4"), Fake(BASE + (1 << 30), (256,), "<u4"))
    # torch passes `int[]` as a list: the op takes it as the call's tuple.
    reaches_gpu(hist, Fake(BASE, (n,), "<u4"), Fake(BASE + (1 << 30), (256,), "<u4"), grid=[1])
    reaches_gpu(vecadd_op, a, b, c, grid=None, block=None)
finally:
    del sys.modules["torch"]

# Plain torch tensors are read from their attributes (device-std/python torch_tensor.rs),
# against a stand-in torch whose Tensor has only those: no `__dlpack__`, no
# `__cuda_array_interface__`. What the attribute path reads is checked as DLPack's description
# is; what it does not take (a subclass, `requires_grad`, the negative bit, a CPU tensor, a
# `stream=` that is not torch's current one, an attribute that raises) falls to the protocols,
# which these fakes lack: the "neither a CUDA tensor nor" refusal shows the fall.
class StandInTensor:
    def __init__(self, ptr, shape, dtype="float32", strides=None, **flags):
        self.ptr, self.shape, self.dtype = ptr, tuple(shape), getattr(torch_stand_in, dtype)
        contiguous = [1]
        for size in reversed(self.shape[1:]):
            contiguous.insert(0, contiguous[0] * size)
        self.strides = tuple(strides or contiguous[: len(self.shape)])
        self.is_cuda = flags.get("is_cuda", True)
        self.requires_grad = flags.get("requires_grad", False)
        self.neg = flags.get("neg", False)
        self.layout = flags.get("layout", torch_stand_in.strided)
        self.raises = flags.get("raises", False)

    def is_neg(self):
        return self.neg

    def get_device(self):
        return 0 if self.is_cuda else -1

    def stride(self):
        return self.strides

    def data_ptr(self):
        if self.raises:
            raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")
        return self.ptr


torch_stand_in = types.ModuleType("torch")
torch_stand_in.Tensor = StandInTensor
torch_stand_in.strided, torch_stand_in.sparse_coo = object(), object()
for dtype in ("bool", "int8", "uint8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"):
    setattr(torch_stand_in, dtype, object())
torch_stand_in._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda device: 7)
sys.modules["torch"] = torch_stand_in
try:
    ta, tb, tc = (StandInTensor(BASE + k * 0x1000, (n,)) for k in range(3))
    fell = ["neither a CUDA tensor nor"]
    refused(ValueError, ["`c`", "is the same memory as argument `a`"], pyops.vecadd, ta, tb, ta)
    refused(ValueError, ["`c`", "overlaps argument `a`"], pyops.vecadd, ta, tb, StandInTensor(BASE + 16, (n,)))
    refused(ValueError, ["`b`", "b.contiguous()"], pyops.vecadd, ta, StandInTensor(BASE + 0x1000, (8, 8), strides=(1, 8)), tc)
    refused(TypeError, ["`b`", "float16", "float32"], pyops.vecadd, ta, StandInTensor(BASE + 0x1000, (n,), "float16"), tc)
    refused(ValueError, ["`b`", "16-byte aligned"], pyops.vecadd, ta, StandInTensor(BASE + 0x1004, (n,)), tc)
    # A method set on the instance is not what describes it: the type's `data_ptr` is called
    # (the instance's would make `b` the same memory as `a`).
    shadowed = StandInTensor(BASE + 0x1000, (n,))
    shadowed.data_ptr = lambda: BASE
    reaches_gpu(pyops.vecadd, ta, shadowed, tc)
    # The launch's stream is torch's current one (7), whether or not `stream=` names it.
    reaches_gpu(pyops.vecadd, ta, tb, tc)
    reaches_gpu(pyops.vecadd, ta, tb, tc, stream=7)
    class Sub(StandInTensor):
        pass
    for _why, t in [
        ("a subclass", Sub(BASE + 0x1000, (n,))),
        ("requires_grad", StandInTensor(BASE + 0x1000, (n,), requires_grad=True)),
        ("the negative bit", StandInTensor(BASE + 0x1000, (n,), neg=True)),
        ("a CPU tensor", StandInTensor(BASE + 0x1000, (n,), is_cuda=False)),
        ("a sparse layout", StandInTensor(BASE + 0x1000, (n,), layout=torch_stand_in.sparse_coo)),
        ("data_ptr() raising", StandInTensor(BASE + 0x1000, (n,), raises=True)),
    ]:
        refused(TypeError, ["`b`"] + fell, pyops.vecadd, ta, t, tc)
    # Another stream than torch's current one: the launch needs DLPack's ordering.
    refused(TypeError, ["`a`"] + fell, pyops.vecadd, ta, tb, tc, stream=5)
finally:
    del sys.modules["torch"]

# A call that passes every check reaches the GPU: here, none (or, on a machine with one, the
# driver does not know these fake addresses).
reaches_gpu(pyops.vecadd, a, a, c)

print("python boundary: all refusals raised")
