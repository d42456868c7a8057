// emulator.h — runs the CUDA C of core/kernels/*.cu on the CPU, for tests on machines without a GPU.
//
// tools/emulator/__init__.py compiles a kernel source with g++ as
//     #include "emulator.h"   then the source (common.cuh pasted in)   then a launch registry,
// with ASE_EMULATE defined, so common.cuh takes its `ptx_*` wrappers from here instead of inline PTX.
//
// The model, kept close to what the hardware guarantees and no closer:
//   * A block's threads are fibers on one OS thread, run one at a time; a fiber runs until it
//     reaches a barrier (__syncthreads) or a warp-collective operation (__shfl_xor_sync, __syncwarp,
//     mma.sync, ldmatrix), then the next runnable fiber runs. The order is a launch option, `schedule`:
//       0  round robin in thread order (warps advance in near lockstep),
//       1  round robin in reverse order,
//       2  warp by warp: the lowest warp with work runs until all its lanes wait at a barrier or
//          exit, then the next (warps drift apart as far as the barriers allow),
//       3  warp by warp from the highest warp down,
//       ≥4 round robin in an order shuffled every round (seeded by the schedule number),
//     so code that leans on one order between barriers (a missing __syncthreads) gives a different
//     result, usually NaN from the poisoned shared memory, under another.
//   * Warp-collective operations need every lane of the warp: a lane that has exited, lanes that
//     arrive at different operations, or a mask other than 0xffffffff stop the launch with an error.
//     A barrier that can never complete (some threads at __syncthreads, others in a warp
//     operation) is reported as a deadlock instead of hanging.
//   * Dynamic shared memory starts filled with 0xFF bytes (NaN as float, fp16 and bf16), so a read
//     of shared memory nobody wrote shows up as NaN in the output.
//   * mma.sync is computed from the fragments exactly as the PTX ISA lays them out ("Matrix
//     Fragments for mma.m16n8k8" .tf32 and "mma.m16n8k16" .f16/.bf16): every lane's registers are
//     gathered into A, B and C, D = A·B + C is formed in double precision and rounded to float.
//     TF32 operands are read with their low 13 bits cleared, as the tensor cores read them.
//   * ldmatrix.x4.trans takes the 32 lanes' row addresses (each must be 16-byte aligned and lie in
//     the dynamic shared memory) and hands lane l the elements (2(l%4), l/4) and (2(l%4)+1, l/4)
//     of matrix i in register i, lower row in the lower half.
// Arithmetic is the CPU's (no fused multiply-add, since the build uses -ffp-contract=off; libm's
// expf, tanhf), so results agree with the GPU's to rounding, not bit for bit.
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

// Fibers switch with a few lines of x86-64 assembly; elsewhere, or with ASE_EMU_UCONTEXT defined
// (a test builds that way to keep the portable path honest), with POSIX ucontext.
#if defined(__x86_64__) && !defined(ASE_EMU_UCONTEXT)
#define ASE_EMU_ASM_FIBERS 1
#else
#define ASE_EMU_ASM_FIBERS 0
#include <ucontext.h>
#endif

// ---------------------------------------------------------------- CUDA's vocabulary on the CPU

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __restrict__ __restrict
#define __shared__ static
#define ASE_DYNAMIC_SMEM(T, name) T* name = reinterpret_cast<T*>(ase_emu::dynamic_smem())

struct dim3 { unsigned int x = 1, y = 1, z = 1; };
struct alignas(8) float2 { float x, y; };
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(16) uint4 { unsigned int x, y, z, w; };

inline dim3 threadIdx, blockIdx, blockDim, gridDim;

inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }
inline float __uint_as_float(unsigned int u) { float f; std::memcpy(&f, &u, 4); return f; }
inline unsigned int __float_as_uint(float f) { unsigned int u; std::memcpy(&u, &f, 4); return u; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline int atomicMin(int* p, int v) { const int old = *p; if (v < old) *p = v; return old; }

namespace ase_emu {

// ---------------------------------------------------------------- fibers

#if ASE_EMU_ASM_FIBERS
extern "C" void ase_ctx_switch(void** save_sp, void* new_sp);
asm(R"(
    .text
    .p2align 4
    .globl ase_ctx_switch
    .hidden ase_ctx_switch
    .type ase_ctx_switch, @function
ase_ctx_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size ase_ctx_switch, .-ase_ctx_switch
)");
#endif

enum State { RUNNABLE, WAIT_BLOCK, WAIT_WARP, DONE };
enum Kind { K_NONE, K_SHFL, K_MMA_TF32, K_MMA_F16, K_MMA_BF16, K_LDMATRIX, K_SYNCWARP };
inline const char* kind_name(int k) {
    static const char* names[] = {"none", "__shfl_xor_sync", "mma.m16n8k8.tf32", "mma.m16n8k16.f16",
                                  "mma.m16n8k16.bf16", "ldmatrix.x4.trans", "__syncwarp"};
    return names[k];
}

struct Fiber {
    void* sp = nullptr;
#if !ASE_EMU_ASM_FIBERS
    ucontext_t uc;
#endif
    int state = DONE;
    unsigned int tx = 0, ty = 0, tz = 0;
    int warp = 0, lane = 0;
};

struct Warp {
    int active = 0, arrived = 0, kind = K_NONE;
    unsigned int gen = 0;
    unsigned long long slot[2][32];
    unsigned int a[2][32][4], b[2][32][2];
    float c[2][32][4];
    const void* addr[2][32];
};

struct Machine {
    std::vector<Fiber> fibers;
    std::vector<Warp> warps;
    int active = 0, block_arrived = 0;
    Fiber* cur = nullptr;
    void* sched_sp = nullptr;
#if !ASE_EMU_ASM_FIBERS
    ucontext_t sched_uc;
#endif
    std::string error;
    unsigned char* stacks = nullptr;
    size_t stacks_bytes = 0;
    std::vector<unsigned char> smem;
    size_t smem_size = 0;
    std::function<void()> body;
};

inline constexpr size_t STACK_BYTES = 128 * 1024;  // per thread; one guard page below each
inline Machine M;

inline void* dynamic_smem() { return M.smem.data(); }

inline void to_scheduler() {
    Fiber* f = M.cur;
#if ASE_EMU_ASM_FIBERS
    ase_ctx_switch(&f->sp, M.sched_sp);
#else
    swapcontext(&f->uc, &M.sched_uc);
#endif
}

// Stop the launch: record the first error and never resume this fiber.
[[noreturn]] inline void fail(const std::string& msg) {
    if (M.error.empty()) {
        const Fiber* f = M.cur;
        char where[160];
        std::snprintf(where, sizeof where, " (block (%u,%u,%u), thread (%u,%u,%u))", blockIdx.x, blockIdx.y,
                      blockIdx.z, f ? f->tx : 0, f ? f->ty : 0, f ? f->tz : 0);
        M.error = msg + where;
    }
    M.cur->state = DONE;
    to_scheduler();
    __builtin_unreachable();
}

inline void release(int state, int warp) {
    for (auto& f : M.fibers)
        if (f.state == state && (warp < 0 || f.warp == warp)) f.state = RUNNABLE;
}

inline void syncthreads() {
    M.block_arrived++;
    if (M.block_arrived == M.active) {
        M.block_arrived = 0;
        release(WAIT_BLOCK, -1);
    } else {
        M.cur->state = WAIT_BLOCK;
        to_scheduler();
    }
}

// Each lane writes its operands into buffer `parity()` first, then arrives; after the last lane
// arrives every lane reads the whole warp's operands from that buffer. Two buffers alternate, and
// a lane cannot write a buffer again before every lane has left the operation that read it.
inline Warp& my_warp() { return M.warps[M.cur->warp]; }
inline int parity() { return my_warp().gen & 1; }
inline void warp_arrive(int kind, unsigned int mask) {
    Warp& w = my_warp();
    if (mask != 0xffffffffu) fail(std::string(kind_name(kind)) + " with a partial mask (the emulator takes full warps)");
    if (w.active != 32) fail(std::string(kind_name(kind)) + " in a warp with exited or missing lanes");
    if (w.arrived == 0) w.kind = kind;
    else if (w.kind != kind)
        fail(std::string("lanes of one warp reached different warp-collective operations: ") + kind_name(w.kind) +
             " and " + kind_name(kind));
    w.arrived++;
    if (w.arrived == w.active) {
        w.arrived = 0;
        w.gen++;
        release(WAIT_WARP, M.cur->warp);
    } else {
        M.cur->state = WAIT_WARP;
        to_scheduler();
    }
}

inline void thread_exit() {
    Fiber* f = M.cur;
    Warp& w = M.warps[f->warp];
    if (w.arrived > 0) fail("a lane exited while the rest of its warp waits in a warp-collective operation");
    f->state = DONE;
    M.active--;
    w.active--;
    if (M.block_arrived > 0 && M.block_arrived == M.active) {  // exited threads no longer count
        M.block_arrived = 0;
        release(WAIT_BLOCK, -1);
    }
    to_scheduler();
    __builtin_unreachable();
}

inline void fiber_main() {
    M.body();
    thread_exit();
}

#if ASE_EMU_ASM_FIBERS
extern "C" inline void ase_fiber_entry() { fiber_main(); }
#else
inline void ase_fiber_entry_uc() { fiber_main(); }
#endif

// Run one block to completion; returns false (with M.error set) on an error or a deadlock.
inline bool run_block(const dim3& block, int schedule, unsigned int round_seed) {
    const int n = block.x * block.y * block.z;
    M.fibers.assign(n, Fiber{});
    M.warps.assign((n + 31) / 32, Warp{});
    M.active = n;
    M.block_arrived = 0;
    std::fill(M.smem.begin(), M.smem.end(), (unsigned char)0xFF);
    for (int i = 0; i < n; i++) {
        Fiber& f = M.fibers[i];
        f.tx = i % block.x;
        f.ty = (i / block.x) % block.y;
        f.tz = i / (block.x * block.y);
        f.warp = i / 32;
        f.lane = i % 32;
        f.state = RUNNABLE;
        M.warps[f.warp].active++;
        unsigned char* top = M.stacks + (size_t)(i + 1) * STACK_BYTES;
#if ASE_EMU_ASM_FIBERS
        auto* sp = reinterpret_cast<std::uint64_t*>(top);
        *--sp = 0;  // fake return address: at entry rsp + 8 is 16-byte aligned, as after a call
        *--sp = reinterpret_cast<std::uint64_t>(&ase_fiber_entry);
        for (int r = 0; r < 6; r++) *--sp = 0;  // rbp rbx r12 r13 r14 r15
        f.sp = sp;
#else
        getcontext(&f.uc);
        f.uc.uc_stack.ss_sp = top - STACK_BYTES + 4096;
        f.uc.uc_stack.ss_size = STACK_BYTES - 4096;
        f.uc.uc_link = nullptr;
        makecontext(&f.uc, ase_fiber_entry_uc, 0);
#endif
    }
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    if (schedule == 1) std::reverse(order.begin(), order.end());
    std::mt19937 rng(round_seed);
    const int nwarps = (int)M.warps.size();
    int done = 0;
    while (true) {
        if (schedule >= 4) std::shuffle(order.begin(), order.end(), rng);
        int only_warp = -1;  // schedules 2 and 3: one warp at a time, until it waits at a barrier
        if (schedule == 2 || schedule == 3) {
            for (int k = 0; k < nwarps && only_warp < 0; k++) {
                const int w = schedule == 2 ? k : nwarps - 1 - k;
                for (auto& f : M.fibers)
                    if (f.warp == w && f.state == RUNNABLE) { only_warp = w; break; }
            }
        }
        bool progressed = false;
        for (int i : order) {
            Fiber& f = M.fibers[i];
            if (f.state != RUNNABLE || (only_warp >= 0 && f.warp != only_warp)) continue;
            progressed = true;
            M.cur = &f;
            threadIdx = dim3{f.tx, f.ty, f.tz};
#if ASE_EMU_ASM_FIBERS
            ase_ctx_switch(&M.sched_sp, f.sp);
#else
            swapcontext(&M.sched_uc, &f.uc);
#endif
            M.cur = nullptr;
            if (!M.error.empty()) return false;
        }
        done = 0;
        int at_block = 0, at_warp = 0;
        for (auto& f : M.fibers) {
            done += f.state == DONE;
            at_block += f.state == WAIT_BLOCK;
            at_warp += f.state == WAIT_WARP;
        }
        if (done == n) return true;
        if (!progressed) {
            char msg[200];
            std::snprintf(msg, sizeof msg,
                          "deadlock in block (%u,%u,%u): %d threads wait at __syncthreads, %d in a "
                          "warp-collective operation, %d have exited",
                          blockIdx.x, blockIdx.y, blockIdx.z, at_block, at_warp, done);
            M.error = msg;
            return false;
        }
    }
}

inline std::string run_grid(const dim3& grid, const dim3& block, size_t smem, int schedule) {
    M.error.clear();
    const size_t n = (size_t)block.x * block.y * block.z;
    if (n == 0 || n > 1024) return "block of " + std::to_string(n) + " threads (1 to 1024 allowed)";
    const size_t bytes = n * STACK_BYTES;
    if (M.stacks_bytes < bytes) {
        if (M.stacks) munmap(M.stacks, M.stacks_bytes);
        void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED) return "could not map fiber stacks";
        M.stacks = static_cast<unsigned char*>(p);
        M.stacks_bytes = bytes;
        for (size_t i = 0; i < n; i++) mprotect(M.stacks + i * STACK_BYTES, 4096, PROT_NONE);  // overflow guard
    }
    M.smem.assign(smem, 0xFF);
    M.smem_size = smem;
    gridDim = grid;
    blockDim = block;
    unsigned int seed = 12345u + (unsigned int)schedule;
    for (unsigned int z = 0; z < grid.z; z++)
        for (unsigned int y = 0; y < grid.y; y++)
            for (unsigned int x = 0; x < grid.x; x++) {
                blockIdx = dim3{x, y, z};
                if (!run_block(block, schedule, seed++)) return M.error;
            }
    return "";
}

// ---------------------------------------------------------------- number formats

inline float f16_to_f32(unsigned short h) { _Float16 v; std::memcpy(&v, &h, 2); return (float)v; }
inline unsigned short f32_to_f16_rn(float x) { _Float16 v = (_Float16)x; unsigned short h; std::memcpy(&h, &v, 2); return h; }
inline float bf16_to_f32(unsigned short b) { return __uint_as_float((unsigned int)b << 16); }
inline unsigned short f32_to_bf16_rn(float x) {
    const unsigned int u = __float_as_uint(x);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x40);  // NaN stays NaN
    return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
inline unsigned int f32_to_tf32_rna(float x) {
    const unsigned int u = __float_as_uint(x);
    if ((u & 0x7f800000u) == 0x7f800000u) return u;  // inf and NaN unchanged
    return (u + 0x1000u) & 0xffffe000u;               // half an ulp of the 10-bit mantissa, then truncate
}
inline double tf32_operand(unsigned int r) { return (double)__uint_as_float(r & 0xffffe000u); }
inline double half16(unsigned int r, int hi, int kind) {
    const unsigned short h = (unsigned short)(hi ? r >> 16 : r & 0xffffu);
    return kind == K_MMA_F16 ? (double)f16_to_f32(h) : (double)bf16_to_f32(h);
}

// One warp-wide D = A·B + C: every lane's fragments are gathered by the PTX ISA tables, then each
// lane forms its own four elements of D (C/D: c0 (g, 2t), c1 (g, 2t+1), c2 (g+8, 2t), c3 (g+8, 2t+1)).
inline void mma_warp(float (&d)[4], const unsigned int (&a)[4], unsigned int b0, unsigned int b1, int kind) {
    Warp& w = my_warp();
    const int p = parity(), l = M.cur->lane;
    std::memcpy(w.a[p][l], a, sizeof a);
    w.b[p][l][0] = b0;
    w.b[p][l][1] = b1;
    std::memcpy(w.c[p][l], d, sizeof d);
    warp_arrive(kind, 0xffffffffu);
    const int g = l >> 2, t = l & 3, K = kind == K_MMA_TF32 ? 8 : 16;
    for (int e = 0; e < 4; e++) {
        const int row = g + 8 * (e >> 1), col = 2 * t + (e & 1);
        double acc = w.c[p][l][e];
        for (int k = 0; k < K; k++) {
            if (kind == K_MMA_TF32) {
                // A: a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4);  B: b0 (t, g), b1 (t+4, g)
                acc += tf32_operand(w.a[p][4 * (row & 7) + (k & 3)][(row >> 3) + 2 * (k >> 2)]) *
                       tf32_operand(w.b[p][4 * col + (k & 3)][k >> 2]);
            } else {
                // two 16-bit values per register, the lower k in the lower half.
                // A: register (row ≥ 8) + 2(k ≥ 8) of lane 4(row % 8) + (k % 8)/2;
                // B: register (k ≥ 8) of lane 4·col + (k % 8)/2
                acc += half16(w.a[p][4 * (row & 7) + ((k & 7) >> 1)][(row >> 3) + 2 * (k >> 3)], k & 1, kind) *
                       half16(w.b[p][4 * col + ((k & 7) >> 1)][k >> 3], k & 1, kind);
            }
        }
        d[e] = (float)acc;
    }
}

}  // namespace ase_emu

inline void __syncthreads() { ase_emu::syncthreads(); }
inline void __syncwarp(unsigned int mask = 0xffffffffu) { ase_emu::warp_arrive(ase_emu::K_SYNCWARP, mask); }

template <typename T>
inline T __shfl_xor_sync(unsigned int mask, T v, int lane_mask, int width = 32) {
    static_assert(sizeof(T) <= 8, "shuffle of at most 8 bytes");
    using namespace ase_emu;
    if (width != 32) fail("__shfl_xor_sync with width != 32 is not emulated");
    Warp& w = my_warp();
    const int p = parity(), l = M.cur->lane;
    unsigned long long bits = 0;
    std::memcpy(&bits, &v, sizeof v);
    w.slot[p][l] = bits;
    warp_arrive(K_SHFL, mask);
    const int src = l ^ (lane_mask & 31);
    T out;
    std::memcpy(&out, &w.slot[p][src], sizeof out);
    return out;
}

// ---------------------------------------------------------------- the PTX wrappers of common.cuh

inline float ptx_cvt_f32_f16(unsigned short h) { return ase_emu::f16_to_f32(h); }
inline unsigned short ptx_cvt_rn_f16_f32(float x) { return ase_emu::f32_to_f16_rn(x); }
inline unsigned short ptx_cvt_rn_bf16_f32(float x) { return ase_emu::f32_to_bf16_rn(x); }
inline unsigned int ptx_cvt_rn_f16x2_f32(float a, float b) {  // a → upper half, b → lower half
    return ((unsigned int)ase_emu::f32_to_f16_rn(a) << 16) | ase_emu::f32_to_f16_rn(b);
}
inline unsigned int ptx_cvt_rn_bf16x2_f32(float a, float b) {
    return ((unsigned int)ase_emu::f32_to_bf16_rn(a) << 16) | ase_emu::f32_to_bf16_rn(b);
}
inline unsigned int ptx_cvt_rna_tf32_f32(float x) { return ase_emu::f32_to_tf32_rna(x); }
inline float ptx_tanh_approx_f32(float x) {
    // tanh.approx.f32 has a maximum relative error of about 2^-11; the emulator rounds tanhf to
    // 11 significant bits so that tolerances written for the fast path are exercised.
    const float y = std::tanh(x);
    return __uint_as_float((__float_as_uint(y) + 0x800u) & 0xfffff000u);
}

inline void ptx_mma_m16n8k8_tf32(float (&d)[4], const unsigned int (&a)[4], unsigned int b0, unsigned int b1) {
    ase_emu::mma_warp(d, a, b0, b1, ase_emu::K_MMA_TF32);
}
inline void ptx_mma_m16n8k16_f16(float (&d)[4], const unsigned int (&a)[4], unsigned int b0, unsigned int b1) {
    ase_emu::mma_warp(d, a, b0, b1, ase_emu::K_MMA_F16);
}
inline void ptx_mma_m16n8k16_bf16(float (&d)[4], const unsigned int (&a)[4], unsigned int b0, unsigned int b1) {
    ase_emu::mma_warp(d, a, b0, b1, ase_emu::K_MMA_BF16);
}

inline void ptx_ldmatrix_x4_trans(unsigned int (&r)[4], const void* ptr) {
    using namespace ase_emu;
    const auto* q = static_cast<const unsigned char*>(ptr);
    const unsigned char* lo = M.smem.data();
    if (reinterpret_cast<std::uintptr_t>(q) % 16 != 0) fail("ldmatrix row address is not 16-byte aligned");
    if (q < lo || q + 16 > lo + M.smem_size) fail("ldmatrix row address outside the block's dynamic shared memory");
    Warp& w = my_warp();
    const int p = parity(), l = M.cur->lane;
    w.addr[p][l] = ptr;
    warp_arrive(K_LDMATRIX, 0xffffffffu);
    for (int i = 0; i < 4; i++) {
        const auto* r0 = static_cast<const unsigned short*>(w.addr[p][8 * i + 2 * (l & 3)]);
        const auto* r1 = static_cast<const unsigned short*>(w.addr[p][8 * i + 2 * (l & 3) + 1]);
        r[i] = (unsigned int)r0[l >> 2] | ((unsigned int)r1[l >> 2] << 16);
    }
}

// ---------------------------------------------------------------- launch registry

namespace ase_emu {

// Argument kinds the Python side sends: 'p' device pointer, 'u' 64-bit integer (a null pointer),
// 'i' int32, 'f' float32, 'd' float64, 'l' int64.
template <typename A> inline bool kind_fits(char k) {
    if constexpr (std::is_pointer_v<A>) return k == 'p' || k == 'u';
    else if constexpr (std::is_same_v<A, float>) return k == 'f';
    else if constexpr (std::is_same_v<A, double>) return k == 'd';
    else if constexpr (std::is_integral_v<A> && sizeof(A) == 4) return k == 'i';
    else if constexpr (std::is_integral_v<A> && sizeof(A) == 8) return k == 'l' || k == 'u';
    else return false;
}
template <typename A> inline const char* type_name() {
    if constexpr (std::is_pointer_v<A>) return "a pointer";
    else if constexpr (std::is_same_v<A, float>) return "float";
    else if constexpr (std::is_same_v<A, double>) return "double";
    else if constexpr (std::is_integral_v<A> && sizeof(A) == 4) return "a 32-bit integer";
    else return "a 64-bit integer";
}

struct Entry {
    const char* name;
    std::function<std::string(const char*, int)> check;  // "" when the arguments fit
    std::function<void(void**)> call;
};

template <typename... A, std::size_t... I>
inline void call_with(void (*k)(A...), void** args, std::index_sequence<I...>) {
    k(*static_cast<std::remove_cv_t<A>*>(args[I])...);
}

template <typename... A>
inline Entry entry(const char* name, void (*k)(A...)) {
    Entry e;
    e.name = name;
    e.check = [](const char* kinds, int nargs) -> std::string {
        if (nargs != (int)sizeof...(A))
            return "takes " + std::to_string(sizeof...(A)) + " arguments, got " + std::to_string(nargs);
        std::string why;
        int j = 0;
        auto one = [&](bool fits, const char* tname) {
            if (why.empty() && !fits)
                why = "argument " + std::to_string(j) + " must be " + tname + " (got kind '" + std::string(1, kinds[j]) + "')";
            j++;
        };
        (one(kind_fits<A>(kinds[j]), type_name<A>()), ...);
        return why;
    };
    e.call = [k](void** args) { call_with(k, args, std::index_sequence_for<A...>{}); };
    return e;
}

}  // namespace ase_emu

namespace ase_emu {

// The body of the generated `ase_launch`: look the kernel up, check its arguments, run the grid.
// Returns 0, or 1 with a message in err.
inline int launch(const Entry* entries, int count, const char* name, const unsigned int* grid3,
                  const unsigned int* block3, unsigned long long smem, void** args, const char* kinds,
                  int nargs, int schedule, char* err, unsigned long long errlen) {
    std::string msg;
    const Entry* e = nullptr;
    for (int i = 0; i < count; i++)
        if (std::strcmp(entries[i].name, name) == 0) e = &entries[i];
    if (e == nullptr) msg = std::string("no kernel named ") + name;
    else msg = e->check(kinds, nargs);
    if (msg.empty()) {
        M.body = [e, args] { e->call(args); };
        msg = run_grid(dim3{grid3[0], grid3[1], grid3[2]}, dim3{block3[0], block3[1], block3[2]}, smem, schedule);
        M.body = nullptr;
    } else if (e != nullptr) {
        msg = std::string(name) + ": " + msg;
    }
    if (msg.empty()) return 0;
    std::snprintf(err, errlen, "%s", msg.c_str());
    return 1;
}

}  // namespace ase_emu
