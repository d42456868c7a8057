// common.cuh — small helpers shared by the kernels in core/kernels/*.cu.
//
// Written for NVRTC (what cupy.RawModule compiles with) as well as nvcc: no CUDA or C++
// headers are included, so fp16/bf16 are plain 16-bit structs converted with PTX `cvt`
// (sm_80+), and infinities are built from their bit patterns.
#pragma once

struct half_t { unsigned short bits; };  // IEEE binary16, stored as bits
struct bf16_t { unsigned short bits; };  // bfloat16 (8-bit exponent, 7-bit mantissa), stored as bits

#define ASE_INF (__int_as_float(0x7f800000))
#define ASE_LOG2E 1.4426950408889634f

__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(half_t x) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(x.bits));
    return f;
}
__device__ __forceinline__ float to_float(bf16_t x) { return __uint_as_float(((unsigned int)x.bits) << 16); }

template <typename T> __device__ __forceinline__ T from_float(float x);
template <> __device__ __forceinline__ float from_float<float>(float x) { return x; }
template <> __device__ __forceinline__ half_t from_float<half_t>(float x) {
    half_t h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h.bits) : "f"(x));
    return h;
}
template <> __device__ __forceinline__ bf16_t from_float<bf16_t>(float x) {
    bf16_t h;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h.bits) : "f"(x));
    return h;
}

// Two floats → one 32-bit register of two 16-bit values; `lo` lands in the low half
// (the element at the lower column index, as the mma fragments expect).
template <typename T> __device__ __forceinline__ unsigned int pack2(float lo, float hi);
template <> __device__ __forceinline__ unsigned int pack2<half_t>(float lo, float hi) {
    unsigned int r;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}
template <> __device__ __forceinline__ unsigned int pack2<bf16_t>(float lo, float hi) {
    unsigned int r;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
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

// 32-bit shared-memory address of a generic pointer (for ldmatrix).
__device__ __forceinline__ unsigned int smem_u32(const void* p) {
    unsigned int a;
    asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(a) : "l"(p));
    return a;
}
