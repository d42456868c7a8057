// common.cuh — small helpers shared by the kernels in core/kernels/*.cu.
//
// Written for NVRTC (what cupy.RawModule compiles with) as well as nvcc: no CUDA or C++
// headers are included, so fp16/bf16 are plain 16-bit structs converted with PTX `cvt`
// (sm_80+), and infinities are built from their bit patterns.
//
// Every PTX instruction the kernels use is wrapped below in one `ptx_*` function that issues
// exactly that instruction, operands in the instruction's order; everything else is plain C++.
// tools/emulator/emulator.h defines the same wrappers (and CUDA's built-ins) for the CPU emulator
// (tools/emulator, for the tests), which compiles this file with ASE_EMULATE defined.
#pragma once

struct half_t { unsigned short bits; };  // IEEE binary16, stored as bits
struct bf16_t { unsigned short bits; };  // bfloat16 (8-bit exponent, 7-bit mantissa), stored as bits

#define ASE_INF (__int_as_float(0x7f800000))
#define ASE_LOG2E 1.4426950408889634f

#ifndef ASE_EMULATE
// The block's dynamic shared memory (size set at launch) as an array of T.
#define ASE_DYNAMIC_SMEM(T, name) extern __shared__ __align__(16) T name[]

__device__ __forceinline__ float ptx_cvt_f32_f16(unsigned short h) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
}
__device__ __forceinline__ unsigned short ptx_cvt_rn_f16_f32(float x) {
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(x));
    return h;
}
__device__ __forceinline__ unsigned short ptx_cvt_rn_bf16_f32(float x) {
    unsigned short h;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(x));
    return h;
}
// d = {a → upper 16 bits, b → lower 16 bits}
__device__ __forceinline__ unsigned int ptx_cvt_rn_f16x2_f32(float a, float b) {
    unsigned int d;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(a), "f"(b));
    return d;
}
__device__ __forceinline__ unsigned int ptx_cvt_rn_bf16x2_f32(float a, float b) {
    unsigned int d;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(a), "f"(b));
    return d;
}
// x rounded to TF32 (10-bit mantissa, ties away from zero), low 13 bits zero
__device__ __forceinline__ unsigned int ptx_cvt_rna_tf32_f32(float x) {
    unsigned int r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return r;
}
__device__ __forceinline__ float ptx_tanh_approx_f32(float x) {
    float y;
    asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
// d = A B + d for one warp: A 16 × 8 (row), B 8 × 8 (col), fragments as in PTX ISA "Matrix
// Fragments for mma.m16n8k8" (.tf32).
__device__ __forceinline__ void ptx_mma_m16n8k8_tf32(float (&d)[4], const unsigned int (&a)[4], unsigned int b0,
                                                     unsigned int b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
// d = A B + d: A 16 × 16, B 16 × 8, two 16-bit values per register ("Matrix Fragments for
// mma.m16n8k16 with floating point type").
__device__ __forceinline__ void ptx_mma_m16n8k16_f16(float (&d)[4], const unsigned int (&a)[4], unsigned int b0,
                                                     unsigned int b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
__device__ __forceinline__ void ptx_mma_m16n8k16_bf16(float (&d)[4], const unsigned int (&a)[4], unsigned int b0,
                                                      unsigned int b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
// Four 8 × 8 matrices of 16-bit values, transposed; lane l gives the shared-memory address of row
// l % 8 of matrix l / 8 (16-byte aligned).
__device__ __forceinline__ void ptx_ldmatrix_x4_trans(unsigned int (&r)[4], const void* p) {
    unsigned int a;
    asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(a) : "l"(p));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(a)
                 : "memory");
}
#endif  // ASE_EMULATE

__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(half_t x) { return ptx_cvt_f32_f16(x.bits); }
__device__ __forceinline__ float to_float(bf16_t x) { return __uint_as_float(((unsigned int)x.bits) << 16); }

template <typename T> __device__ __forceinline__ T from_float(float x);
template <> __device__ __forceinline__ float from_float<float>(float x) { return x; }
template <> __device__ __forceinline__ half_t from_float<half_t>(float x) { return half_t{ptx_cvt_rn_f16_f32(x)}; }
template <> __device__ __forceinline__ bf16_t from_float<bf16_t>(float x) { return bf16_t{ptx_cvt_rn_bf16_f32(x)}; }

// Two floats → one 32-bit register of two 16-bit values; `lo` lands in the low half
// (the element at the lower column index, as the mma fragments expect).
template <typename T> __device__ __forceinline__ unsigned int pack2(float lo, float hi);
template <> __device__ __forceinline__ unsigned int pack2<half_t>(float lo, float hi) {
    return ptx_cvt_rn_f16x2_f32(hi, lo);
}
template <> __device__ __forceinline__ unsigned int pack2<bf16_t>(float lo, float hi) {
    return ptx_cvt_rn_bf16x2_f32(hi, lo);
}

__device__ __forceinline__ float warpReduceSum(float v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
__device__ __forceinline__ float warpReduceMax(float v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

// Block-wide sum / max for blockDim.x a multiple of 32 (≤ 1024); every thread gets the result.
// `scratch` holds 32 floats of shared memory; the call starts and ends with a barrier.
__device__ __forceinline__ float blockReduceSum(float v, float* scratch) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    __syncthreads();
    v = warpReduceSum(v);
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    v = lane < nwarps ? scratch[lane] : 0.0f;
    v = warpReduceSum(v);
    __syncthreads();
    return v;
}
__device__ __forceinline__ float blockReduceMax(float v, float* scratch) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    __syncthreads();
    v = warpReduceMax(v);
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    v = lane < nwarps ? scratch[lane] : -ASE_INF;
    v = warpReduceMax(v);
    __syncthreads();
    return v;
}
