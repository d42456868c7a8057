// softmax_stats.cu — scores → softmax → row statistics, batched over trials (trials × n × n).
//
// For every row of raw scores r (rows = trials · n queries, each over n keys) and every scale c:
//   s_j = c·r_j,   m = max_j s_j,   Z = Σ_j e^{s_j − m},   W = Σ_j e^{s_j − m}·(s_j − m)
//   max weight  p_max = 1/Z,   entropy  H = ln Z − W/Z  (nats, clamped at 0),
//   and only when `weights` is not null the weights p_j = e^{s_j − m}/Z.
// Nothing else is written: the scaled scores and the weights never exist unless asked for.
// NumPy twin: core.gpu.row_stats_twin (float64); core.attention.entropy_from_scores is the same
// formula on the CPU. s = c·r is rounded to float32 first (__fmul_rn, never fused) as NumPy does.
//
// version 1 (row_stats_v1): one thread per row, one pass with a running (m, Z, W). Reference kernel.
// version 2 (row_stats_v2): one warp per row; each lane keeps (m, Z, W) over a strided slice of the
//            row (16-byte loads when `vec`), the 32 states are merged with shuffles (merge rule in
//            stats_merge); a second pass writes the weights when asked. The launcher uses v2.
// Launch (core/gpu/launch.py): v1 grid (⌈rows/256⌉, n_scales) × 256 threads;
//                       v2 grid (⌈rows/8⌉, n_scales) × 256 threads (8 warps, one row each).
// Outputs are laid out [scale][row] (and weights [scale][row][j]).
#include "common.cuh"

// Add one score s to the running state: m = max, Z = Σ e^{s−m}, W = Σ e^{s−m}(s−m).
__device__ __forceinline__ void stats_push(float s, float& m, float& Z, float& W) {
    if (s > m) {  // also the first element (m = −∞, Z = 0)
        if (Z > 0.0f) {
            const float a = expf(m - s);  // rescale the old terms to the new max
            W = a * (W + (m - s) * Z);
            Z = a * Z;
        }
        Z += 1.0f;  // the new maximum contributes e⁰ = 1 to Z and 0 to W
        m = s;
    } else {
        const float z = s - m, e = expf(z);
        Z += e;
        W += e * z;
    }
}

// (m, Z, W) ← merge of two states: M = max(m, m₂), each side rescaled by e^{m−M}; W also shifts
// by (m − M)·Z because its terms are measured from the old max.
__device__ __forceinline__ void stats_merge(float& m, float& Z, float& W, float m2, float Z2, float W2) {
    if (Z2 == 0.0f) return;
    if (Z == 0.0f) { m = m2; Z = Z2; W = W2; return; }
    const float M = fmaxf(m, m2), a = expf(m - M), b = expf(m2 - M);
    W = a * (W + (m - M) * Z) + b * (W2 + (m2 - M) * Z2);
    Z = a * Z + b * Z2;
    m = M;
}

__device__ __forceinline__ void stats_write(long long out, float Z, float W, float* pmax, float* entropy) {
    pmax[out] = 1.0f / Z;
    entropy[out] = fmaxf(logf(Z) - W / Z, 0.0f);
}

extern "C" __global__ void __launch_bounds__(256)
row_stats_v1(const float* __restrict__ raw, const float* __restrict__ scales, int rows, int n, int vec,
             float* __restrict__ pmax, float* __restrict__ entropy, float* __restrict__ weights) {
    const long long row = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    const float c = scales[blockIdx.y];
    const float* r = raw + row * n;
    float m = -ASE_INF, Z = 0.0f, W = 0.0f;
    for (int j = 0; j < n; j++) stats_push(__fmul_rn(c, r[j]), m, Z, W);
    const long long out = (long long)blockIdx.y * rows + row;
    stats_write(out, Z, W, pmax, entropy);
    if (weights != nullptr) {
        float* w = weights + out * n;
        for (int j = 0; j < n; j++) w[j] = expf(__fmul_rn(c, r[j]) - m) / Z;
    }
}

extern "C" __global__ void __launch_bounds__(256)
row_stats_v2(const float* __restrict__ raw, const float* __restrict__ scales, int rows, int n, int vec,
             float* __restrict__ pmax, float* __restrict__ entropy, float* __restrict__ weights) {
    const int lane = threadIdx.x & 31;
    const long long row = (long long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (row >= rows) return;  // the whole warp leaves together
    const float c = scales[blockIdx.y];
    const float* r = raw + row * n;
    float m = -ASE_INF, Z = 0.0f, W = 0.0f;
    if (vec) {  // n % 4 == 0 and raw 16-byte aligned (checked by the launcher)
        const float4* r4 = reinterpret_cast<const float4*>(r);
        for (int j = lane; j < (n >> 2); j += 32) {
            const float4 x = r4[j];
            stats_push(__fmul_rn(c, x.x), m, Z, W);
            stats_push(__fmul_rn(c, x.y), m, Z, W);
            stats_push(__fmul_rn(c, x.z), m, Z, W);
            stats_push(__fmul_rn(c, x.w), m, Z, W);
        }
    } else {
        for (int j = lane; j < n; j += 32) stats_push(__fmul_rn(c, r[j]), m, Z, W);
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        const float m2 = __shfl_xor_sync(0xffffffffu, m, o);
        const float Z2 = __shfl_xor_sync(0xffffffffu, Z, o);
        const float W2 = __shfl_xor_sync(0xffffffffu, W, o);
        stats_merge(m, Z, W, m2, Z2, W2);
    }
    const long long out = (long long)blockIdx.y * rows + row;
    if (lane == 0) stats_write(out, Z, W, pmax, entropy);
    if (weights != nullptr) {
        float* w = weights + out * n;
        for (int j = lane; j < n; j += 32) w[j] = expf(__fmul_rn(c, r[j]) - m) / Z;
    }
}
