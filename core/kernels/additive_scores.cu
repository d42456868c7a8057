// additive_scores.cu — factored additive (Bahdanau) attention scores, optionally with the softmax.
//
//   s_ij = Σ_h v_h · tanh(A_ih + B_jh),   A = Q W₁ᵀ (n × d_h), B = K W₂ᵀ (m × d_h) given
//   (the projections cost n·d·d_h once per token, Bahdanau et al. 2014 App. A.1.2; this kernel
//   is the n·m·d_h tanh part, which no GEMM can do). Fused softmax over the keys j:
//   p_ij = e^{s_ij − M_i} / L_i,   M_i = max_j s_ij,   L_i = Σ_j e^{s_ij − M_i}.
// tanh: FAST = true uses tanh.approx.f32 (one MUFU op; PTX ISA: max relative error about 2^-11),
//       FAST = false uses tanhf (accurate to a couple of ulp). The cost page uses FAST = false.
// NumPy twin: core.gpu.additive_scores_twin (float64); core.attention.additive_scores is the same
// formula in the experiment's dtype.
//
// version 1 (additive_scores<FAST>): one 64 × 64 tile of S per block of 16 × 16 threads, 4 × 4
//            outputs per thread at rows ty + 16i and columns tx + 16j (conflict-free shared reads:
//            As rows are broadcast, Bs rows have an odd stride of 33); A, B and v are staged through
//            shared memory 32 values of h at a time, zero-padded (tanh(0)·0 = 0) past d_h.
// version 2 (additive_softmax<FAST>): one block per 64 query rows sweeps every key tile with the
//            v1 tile code, writes the raw scores once and keeps a running (max, sum) per row; the
//            16 partial states of a row (one per tx) are merged with shuffles inside a half-warp,
//            then each thread normalises the scores it wrote itself in place.
// Launch (core/gpu/launch.py): v1 grid (⌈m/64⌉, ⌈n/64⌉) × (16, 16); v2 grid (1, ⌈n/64⌉) × (16, 16).
#include "common.cuh"

#define TILE 64
#define HCHUNK 32

template <bool FAST> __device__ __forceinline__ float tanh_(float x);
template <> __device__ __forceinline__ float tanh_<true>(float x) { return ptx_tanh_approx_f32(x); }
template <> __device__ __forceinline__ float tanh_<false>(float x) { return tanhf(x); }

struct AdditiveSmem {
    float A[TILE][HCHUNK + 1];
    float B[TILE][HCHUNK + 1];
    float v[HCHUNK];
};

// acc[i][j] = s at row r0 + ty + 16i, column c0 + tx + 16j (zero-padded outside n × m).
template <bool FAST>
__device__ __forceinline__ void score_tile(const float* __restrict__ A, const float* __restrict__ B,
                                           const float* __restrict__ v, int n, int m, int dh, int r0,
                                           int c0, AdditiveSmem& sm, float (&acc)[4][4]) {
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) acc[i][j] = 0.0f;
    for (int h0 = 0; h0 < dh; h0 += HCHUNK) {
        __syncthreads();  // the previous chunk is consumed
        for (int e = tid; e < TILE * HCHUNK; e += 256) {
            const int r = e / HCHUNK, h = e % HCHUNK;
            const bool hin = h0 + h < dh;
            sm.A[r][h] = (hin && r0 + r < n) ? A[(long long)(r0 + r) * dh + h0 + h] : 0.0f;
            sm.B[r][h] = (hin && c0 + r < m) ? B[(long long)(c0 + r) * dh + h0 + h] : 0.0f;
        }
        if (tid < HCHUNK) sm.v[tid] = h0 + tid < dh ? v[h0 + tid] : 0.0f;
        __syncthreads();
#pragma unroll 4
        for (int h = 0; h < HCHUNK; h++) {
            const float vh = sm.v[h];
            float a[4], b[4];
#pragma unroll
            for (int i = 0; i < 4; i++) a[i] = sm.A[ty + 16 * i][h];
#pragma unroll
            for (int j = 0; j < 4; j++) b[j] = sm.B[tx + 16 * j][h];
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++) acc[i][j] += vh * tanh_<FAST>(a[i] + b[j]);
        }
    }
}

template <bool FAST>
__global__ void __launch_bounds__(256)
additive_scores(const float* __restrict__ A, const float* __restrict__ B, const float* __restrict__ v,
                float* __restrict__ S, int n, int m, int dh) {
    __shared__ AdditiveSmem sm;
    const int r0 = blockIdx.y * TILE, c0 = blockIdx.x * TILE;
    float acc[4][4];
    score_tile<FAST>(A, B, v, n, m, dh, r0, c0, sm, acc);
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const int row = r0 + threadIdx.y + 16 * i;
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const int col = c0 + threadIdx.x + 16 * j;
            if (row < n && col < m) S[(long long)row * m + col] = acc[i][j];
        }
    }
}

template <bool FAST>
__global__ void __launch_bounds__(256)
additive_softmax(const float* __restrict__ A, const float* __restrict__ B, const float* __restrict__ v,
                 float* __restrict__ P, int n, int m, int dh) {
    __shared__ AdditiveSmem sm;
    const int r0 = blockIdx.y * TILE;
    // A finite "minus infinity": a thread with no valid column merges as (−1e30, 0) without NaN.
    const float NEG = -1e30f;
    float M[4], L[4];
#pragma unroll
    for (int i = 0; i < 4; i++) { M[i] = NEG; L[i] = 0.0f; }
    for (int c0 = 0; c0 < m; c0 += TILE) {
        float acc[4][4];
        score_tile<FAST>(A, B, v, n, m, dh, r0, c0, sm, acc);
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const int row = r0 + threadIdx.y + 16 * i;
            float tmax = NEG;
#pragma unroll
            for (int j = 0; j < 4; j++)
                if (c0 + threadIdx.x + 16 * j < m) tmax = fmaxf(tmax, acc[i][j]);
            const float Mn = fmaxf(M[i], tmax);
            float sum = L[i] * expf(M[i] - Mn);
#pragma unroll
            for (int j = 0; j < 4; j++) {
                const int col = c0 + threadIdx.x + 16 * j;
                if (col < m) {
                    sum += expf(acc[i][j] - Mn);
                    if (row < n) P[(long long)row * m + col] = acc[i][j];
                }
            }
            M[i] = Mn;
            L[i] = sum;
        }
    }
    // The 16 threads of a row (same ty, tx = 0..15) sit in one half-warp: xor offsets < 16.
#pragma unroll
    for (int i = 0; i < 4; i++) {
#pragma unroll
        for (int o = 8; o > 0; o >>= 1) {
            const float M2 = __shfl_xor_sync(0xffffffffu, M[i], o);
            const float L2 = __shfl_xor_sync(0xffffffffu, L[i], o);
            const float Mn = fmaxf(M[i], M2);
            L[i] = L[i] * expf(M[i] - Mn) + L2 * expf(M2 - Mn);
            M[i] = Mn;
        }
    }
    // Each thread rereads only what it wrote itself, so no barrier is needed.
    for (int c0 = 0; c0 < m; c0 += TILE) {
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const int row = r0 + threadIdx.y + 16 * i;
            if (row >= n) continue;
#pragma unroll
            for (int j = 0; j < 4; j++) {
                const int col = c0 + threadIdx.x + 16 * j;
                if (col < m) {
                    const long long idx = (long long)row * m + col;
                    P[idx] = expf(P[idx] - M[i]) / L[i];
                }
            }
        }
    }
}
