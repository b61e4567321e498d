// Runs wide.ptx or abs.ptx (gen.py): 32/64-bit neg/abs of edge values, each followed by one use,
// at JIT -O0 and -O3, checked against the host. Usage: wide PTX NAMES. One line per kernel and level.
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <string>
#include <fstream>
#include <sstream>
#define CK(x) do { CUresult r = (x); if (r != CUDA_SUCCESS) { const char* s; cuGetErrorString(r, &s); fprintf(stderr, "%s: %s\n", #x, s); exit(1);} } while (0)
int main(int argc, char** argv) {
    if (argc != 3) { fprintf(stderr, "usage: wide PTX NAMES\n"); return 2; }
    std::ifstream f(argv[1]); std::stringstream ss; ss << f.rdbuf(); std::string ptx = ss.str();
    std::ifstream in(argv[2]); std::string ln; std::getline(in, ln);
    std::vector<std::string> names; { std::istringstream s(ln); std::string v; while (s >> v) names.push_back(v); }
    uint64_t as[] = {0x80000000ull, 0x8000000000000000ull, 0x7fffffffull, 0xffffffffull, ~0ull, 1, 0, 0x80000001ull, 0x8000000000000001ull, 0xffffffff80000000ull, 0x7fffffffffffffffull, 12345};
    uint64_t bs[] = {0, 5, (uint64_t)-5ll, 0x80000000ull, 0x8000000000000000ull, 0x7fffffffull};
    std::vector<uint64_t> a, b; for (auto x : as) for (auto y : bs) { a.push_back(x); b.push_back(y); }
    int n = a.size();
    CK(cuInit(0)); CUdevice dev; CK(cuDeviceGet(&dev, 0)); CUcontext ctx; CK(cuCtxCreate(&ctx, NULL, 0, dev));
    CUdeviceptr da, db, dout; CK(cuMemAlloc(&da, n * 8)); CK(cuMemAlloc(&db, n * 8)); CK(cuMemAlloc(&dout, n * 8));
    CK(cuMemcpyHtoD(da, a.data(), n * 8)); CK(cuMemcpyHtoD(db, b.data(), n * 8));
    for (int opt : {0, 3}) {
        CUjit_option opts[1] = {CU_JIT_OPTIMIZATION_LEVEL}; void* vals[1] = {(void*)(uintptr_t)opt};
        CUmodule mod; CK(cuModuleLoadDataEx(&mod, ptx.c_str(), 1, opts, vals));
        for (auto& name : names) {
            CUfunction fn; CK(cuModuleGetFunction(&fn, mod, name.c_str()));
            CK(cuMemsetD8(dout, 0, n * 8)); void* params[] = {&da, &db, &dout};
            CK(cuLaunchKernel(fn, 1, 1, 1, n, 1, 1, 0, 0, params, 0)); CK(cuCtxSynchronize());
            std::vector<uint64_t> out(n); CK(cuMemcpyDtoH(out.data(), dout, n * 8));
            bool w64 = name.find("64") != std::string::npos; bool isabs = name.find("abs") != std::string::npos;
            std::string g = name.substr(name.rfind('_') + 1);
            int bad = 0; uint64_t fx = 0, fy = 0, fe = 0, fg = 0;
            for (int i = 0; i < n; i++) {
                uint64_t e;
                if (w64) {
                    int64_t x = (int64_t)a[i], y = (int64_t)b[i];
                    int64_t r = (int64_t)(isabs ? (x < 0 ? 0 - (uint64_t)x : (uint64_t)x) : 0 - (uint64_t)x);
                    if (g == "G1") e = r; else if (g == "G2") e = r < 0; else if (g == "G3") e = (uint64_t)(r >> 1);
                    else if (g == "G4") e = (uint64_t)(int64_t)((__int128)r * 1 >> 64); else if (g == "G5") e = r <= y; else if (g == "G6") e = (uint64_t)r + (uint64_t)y; else if (g == "G7") e = r >= 0; else e = (uint64_t)r >> 63;
                } else {
                    int32_t x = (int32_t)(uint32_t)a[i], y = (int32_t)(uint32_t)b[i];
                    int32_t r = (int32_t)(isabs ? (x < 0 ? 0u - (uint32_t)x : (uint32_t)x) : 0u - (uint32_t)x);
                    if (g == "G1") e = (uint64_t)(int64_t)r; else if (g == "G2") e = r < 0; else if (g == "G3") e = (uint64_t)(int64_t)(r >> 1);
                    else if (g == "G4") e = (uint64_t)(int64_t)r; else if (g == "G5") e = r <= y; else if (g == "G6") e = (uint64_t)(int64_t)(int32_t)((uint32_t)r + (uint32_t)y); else if (g == "G7") e = r >= 0; else e = (uint32_t)r >> 31;
                }
                if (e != out[i]) { if (!bad) { fx = a[i]; fy = b[i]; fe = e; fg = out[i]; } bad++; }
            }
            printf("%s O%d %s", name.c_str(), opt, bad ? "BAD" : "ok");
            if (bad) printf(" %d wrong, e.g. a=%llx b=%llx want %llx got %llx", bad, (unsigned long long)fx, (unsigned long long)fy, (unsigned long long)fe, (unsigned long long)fg);
            printf("\n");
        }
    }
    return 0;
}
