// Runs neg16.ptx (gen.py): each 16-bit negation form followed by one use of its result, for all
// 65,536 inputs, at JIT -O0 and -O3, checked against the host. One line per kernel and level.
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <string>
#include <fstream>
#include <sstream>
#define CK(x) do { CUresult r = (x); if (r != CUDA_SUCCESS) { const char* s; cuGetErrorString(r, &s); fprintf(stderr, "%s: %s\n", #x, s); exit(1);} } while (0)
int main() {
    std::ifstream f("neg16.ptx"); std::stringstream ss; ss << f.rdbuf(); std::string ptx = ss.str();
    std::ifstream in("neg16_names.txt"); std::string ln; std::getline(in, ln);
    std::vector<uint16_t> a, b; std::vector<std::string> names;
    for (int i = 0; i < 65536; i++) { a.push_back(i); b.push_back(0); }
    { std::istringstream s(ln); std::string v; while (s >> v) names.push_back(v); }
    int n = a.size();
    CK(cuInit(0)); CUdevice dev; CK(cuDeviceGet(&dev, 0)); CUcontext ctx; CK(cuCtxCreate(&ctx, NULL, 0, dev));
    CUdeviceptr da, db, dout; CK(cuMemAlloc(&da, n * 2)); CK(cuMemAlloc(&db, n * 2)); CK(cuMemAlloc(&dout, n * 8));
    CK(cuMemcpyHtoD(da, a.data(), n * 2)); CK(cuMemcpyHtoD(db, b.data(), n * 2));
    for (int opt : {0, 3}) {
        CUjit_option opts[1] = {CU_JIT_OPTIMIZATION_LEVEL}; void* vals[1] = {(void*)(uintptr_t)opt};
        CUmodule mod; CK(cuModuleLoadDataEx(&mod, ptx.c_str(), 1, opts, vals));
        for (auto& name : names) {
            CUfunction fn; CK(cuModuleGetFunction(&fn, mod, name.c_str()));
            CK(cuMemsetD8(dout, 0, n * 8)); void* params[] = {&da, &db, &dout};
            CK(cuLaunchKernel(fn, n / 256, 1, 1, 256, 1, 1, 0, 0, params, 0)); CK(cuCtxSynchronize());
            std::vector<uint64_t> out(n); CK(cuMemcpyDtoH(out.data(), dout, n * 8));
            int bad = 0; long first = -1; uint64_t fe = 0, fg = 0;
            char vk = name[2]; std::string fk = name.substr(name.rfind('_') + 1);
            for (int i = 0; i < n; i++) {
                int16_t x = (int16_t)i; int32_t wide = vk == 'A' ? (x < 0 ? -(int32_t)x : x) : -(int32_t)x;
                int16_t r = (int16_t)(uint16_t)(wide & 0xffff); uint64_t e;
                if (fk == "F1") e = (uint64_t)(int64_t)r;
                else if (fk == "F2") e = (uint64_t)(uint32_t)(int32_t)r;
                else if (fk == "F3") e = (uint64_t)(int64_t)r;
                else if (fk == "F4") e = (uint64_t)(int64_t)(int16_t)(r >> 1);
                else if (fk == "F5") e = r < 0;
                else if (fk == "F6") e = (uint16_t)r;
                else if (fk == "F7") e = (uint64_t)(int64_t)(int32_t)r;
                else e = (uint64_t)(int64_t)(float)r;
                if (e != out[i]) { if (!bad) { first = (int16_t)i; fe = e; fg = out[i]; } bad++; }
            }
            printf("%s O%d %s", name.c_str(), opt, bad ? "BAD" : "ok"); if (bad) printf(" %d wrong, e.g. x=%ld want %llx got %llx", bad, first, (unsigned long long)fe, (unsigned long long)fg); printf("\n");
        }
    }
    return 0;
}
