// Probe: can a process use the GPU again after one of its kernels trapped (issue 18)?
// `trap_recovery MODE` traps a kernel, then tries to run a correct one, and prints one line
// "MODE: recovered" or "MODE: NOT recovered (<error>)". Run each mode in its own process: a
// trap's error may stay with the process.
//   runtime-reset    cudaDeviceReset() after the trap (the CUDA runtime's documented way out)
//   primary-reset    driver API: release the primary context, cuDevicePrimaryCtxReset, retain
//   own-context      driver API on a context of its own (cuCtxCreate): destroy it, create another
// Build: nvcc -O2 -arch=sm_90 -o trap_recovery trap_recovery.cu -lcuda
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>

__global__ void boom(int *out) {
    out[threadIdx.x] = 1;
    asm volatile("trap;");
}

__global__ void twice(int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2 * i;
}

static const char *driver_error(CUresult r) {
    const char *name = "?";
    cuGetErrorName(r, &name);
    return name;
}

// Runs `twice` over 1000 elements through the runtime API and checks every value.
static bool runtime_twice(const char **why) {
    int *d = nullptr;
    cudaError_t e = cudaMalloc(&d, 1000 * sizeof(int));
    if (e != cudaSuccess) { *why = cudaGetErrorName(e); return false; }
    twice<<<4, 256>>>(d, 1000);
    int h[1000];
    e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) { *why = cudaGetErrorName(e); return false; }
    cudaFree(d);
    for (int i = 0; i < 1000; i++)
        if (h[i] != 2 * i) { *why = "wrong values"; return false; }
    return true;
}

static int runtime_reset() {
    int *d = nullptr;
    cudaMalloc(&d, 1024 * sizeof(int));
    boom<<<1, 32>>>(d);
    cudaError_t e = cudaDeviceSynchronize();
    printf("runtime-reset: the trap gave %s\n", cudaGetErrorName(e));
    e = cudaDeviceReset();
    printf("runtime-reset: cudaDeviceReset gave %s\n", cudaGetErrorName(e));
    const char *why = "";
    if (runtime_twice(&why)) { printf("runtime-reset: recovered\n"); return 0; }
    printf("runtime-reset: NOT recovered (%s)\n", why);
    return 1;
}

// The driver-API modes load their own module (hand-written PTX) into the current context, so
// that nothing of the runtime's state takes part.
static const char *PTX = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry boom(.param .u64 out, .param .u32 n) { trap; }
.visible .entry twice(.param .u64 out, .param .u32 n) {
    .reg .b32 %r<7>;
    .reg .b64 %rd<5>;
    .reg .pred %p;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.s32 %p, %r5, %r1;
    @%p bra DONE;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.s32 %rd3, %r5, 4;
    add.s64 %rd4, %rd2, %rd3;
    shl.b32 %r6, %r5, 1;
    st.global.u32 [%rd4], %r6;
DONE:
    ret;
}
)";

// Runs `boom` (trap) or `twice` over 1000 elements on the current context; `right` says
// whether `twice` wrote every value.
static CUresult driver_run(bool trap, bool *right) {
    CUmodule module;
    CUresult r = cuModuleLoadData(&module, PTX);
    if (r != CUDA_SUCCESS) return r;
    CUfunction f;
    r = cuModuleGetFunction(&f, module, trap ? "boom" : "twice");
    if (r != CUDA_SUCCESS) return r;
    CUdeviceptr d;
    r = cuMemAlloc(&d, 1024 * sizeof(int));
    if (r != CUDA_SUCCESS) return r;
    int n = 1000;
    void *args[] = {&d, &n};
    r = cuLaunchKernel(f, trap ? 1 : 4, 1, 1, trap ? 32 : 256, 1, 1, 0, 0, args, 0);
    if (r == CUDA_SUCCESS) r = cuCtxSynchronize();
    if (r != CUDA_SUCCESS) return r;
    int h[1000];
    r = cuMemcpyDtoH(h, d, sizeof h);
    if (r != CUDA_SUCCESS) return r;
    cuMemFree(d);
    *right = true;
    for (int i = 0; i < 1000; i++) *right = *right && h[i] == 2 * i;
    return CUDA_SUCCESS;
}

static int primary_reset() {
    cuInit(0);
    CUdevice dev;
    cuDeviceGet(&dev, 0);
    CUcontext ctx;
    cuDevicePrimaryCtxRetain(&ctx, dev);
    cuCtxSetCurrent(ctx);
    bool right = false;
    printf("primary-reset: the trap gave %s\n", driver_error(driver_run(true, &right)));
    cuCtxSetCurrent(nullptr);
    printf("primary-reset: release gave %s\n", driver_error(cuDevicePrimaryCtxRelease(dev)));
    printf("primary-reset: reset gave %s\n", driver_error(cuDevicePrimaryCtxReset(dev)));
    CUresult r = cuDevicePrimaryCtxRetain(&ctx, dev);
    if (r == CUDA_SUCCESS) r = cuCtxSetCurrent(ctx);
    if (r == CUDA_SUCCESS) r = driver_run(false, &right);
    if (r == CUDA_SUCCESS && right) { printf("primary-reset: recovered\n"); return 0; }
    printf("primary-reset: NOT recovered (%s%s)\n", driver_error(r), right ? "" : ", or wrong values");
    return 1;
}

static int own_context() {
    cuInit(0);
    CUdevice dev;
    cuDeviceGet(&dev, 0);
    CUcontext ctx;
    cuCtxCreate(&ctx, nullptr, 0, dev);
    bool right = false;
    printf("own-context: the trap gave %s\n", driver_error(driver_run(true, &right)));
    printf("own-context: destroy gave %s\n", driver_error(cuCtxDestroy(ctx)));
    CUresult r = cuCtxCreate(&ctx, nullptr, 0, dev);
    if (r == CUDA_SUCCESS) r = driver_run(false, &right);
    if (r == CUDA_SUCCESS && right) { printf("own-context: recovered\n"); return 0; }
    printf("own-context: NOT recovered (%s%s)\n", driver_error(r), right ? "" : ", or wrong values");
    return 1;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "runtime-reset")) return runtime_reset();
    if (!strcmp(mode, "primary-reset")) return primary_reset();
    if (!strcmp(mode, "own-context")) return own_context();
    fprintf(stderr, "usage: trap_recovery runtime-reset|primary-reset|own-context\n");
    return 2;
}
