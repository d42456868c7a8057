// softmax_backward.cu — the gradient that reaches the query through the softmax (docs/science.md §1).
//
// One query q against n keys K (n × d), raw scores r = K q given (one cuBLAS batched product),
// upstream gradient g on the weights, L = g·p:
//   s = c·r,   p = softmax(s),   top = argmax p,   ρ_j = g_j − g_top,
//   J g = p ⊙ (ρ − p·ρ)          (J = diag p − p pᵀ; J·1 = 0, so shifting g by g_top is exact and
//                                  keeps nearly one-hot rows free of cancellation),
//   ∂L/∂q = c · Kᵀ (J g).
// Writes per trial ‖∂L/∂q‖₂ and ‖J g‖₂, and p (trials × n) for the spectral norm ‖J‖₂.
// NumPy twin: core.gpu.grad_norms_twin (float64); core.attention.softmax_backward and
// core.experiments.grad_query compute the same in the experiment's dtype.
//
// version 1 (grad_norms): one block of 128 threads per trial; s, p, J g and ∂L/∂q live in shared
//            memory (2n + d floats, dynamic), reductions are blockReduceMax / blockReduceSum, norms are
//            scaled by the largest entry (no underflow), and Kᵀ(J g) is
//            summed column by column so each step of j reads one row of K coalesced.
// Launch (core/gpu/launch.py): grid (trials) × 128 threads, dynamic shared memory 4·(2n + d) bytes.
#include "common.cuh"

// ‖x‖₂ = a·√(Σ (x_i/a)²) with a = max |x_i|: no underflow of x_i² for tiny gradients
// (median ‖∂L/∂q‖ reaches 1e-5 and below when unscaled scores saturate).
__device__ float scaled_norm(const float* x, int len, float* scratch) {
    float a = 0.0f;
    for (int i = threadIdx.x; i < len; i += blockDim.x) a = fmaxf(a, fabsf(x[i]));
    a = blockReduceMax(a, scratch);
    if (a == 0.0f || !(a < ASE_INF)) return a;
    float q = 0.0f;
    for (int i = threadIdx.x; i < len; i += blockDim.x) {
        const float y = x[i] / a;
        q += y * y;
    }
    return a * sqrtf(blockReduceSum(q, scratch));
}

extern "C" __global__ void __launch_bounds__(128)
grad_norms(const float* __restrict__ raw, const float* __restrict__ K, const float* __restrict__ g,
           float c, int n, int d, float* __restrict__ p_out, float* __restrict__ jg_norm,
           float* __restrict__ grad_norm) {
    ASE_DYNAMIC_SMEM(float, sm);
    __shared__ float scratch[32];
    __shared__ int top;
    float* p = sm;       // s, then p
    float* jg = sm + n;  // J g
    float* gq = sm + 2 * n;  // ∂L/∂q
    const long long trial = blockIdx.x;
    const float* r = raw + trial * n;
    const float* gt = g + trial * n;
    const float* Kt = K + trial * (long long)n * d;
    if (threadIdx.x == 0) top = n;

    float mx = -ASE_INF;
    for (int j = threadIdx.x; j < n; j += blockDim.x) {
        const float s = __fmul_rn(c, r[j]);  // rounded like NumPy's raw * c
        p[j] = s;
        mx = fmaxf(mx, s);
    }
    mx = blockReduceMax(mx, scratch);  // its barriers also publish p[] and top
    for (int j = threadIdx.x; j < n; j += blockDim.x)
        if (p[j] == mx) atomicMin(&top, j);  // first arg-max, as numpy.argmax

    float z = 0.0f;
    for (int j = threadIdx.x; j < n; j += blockDim.x) {
        const float e = expf(p[j] - mx);
        p[j] = e;
        z += e;
    }
    const float Z = blockReduceSum(z, scratch);
    const float g_top = gt[top];

    float pr = 0.0f;
    for (int j = threadIdx.x; j < n; j += blockDim.x) {
        const float pj = p[j] / Z;
        p[j] = pj;
        p_out[trial * n + j] = pj;
        pr += pj * (gt[j] - g_top);
    }
    const float PR = blockReduceSum(pr, scratch);  // p·ρ

    for (int j = threadIdx.x; j < n; j += blockDim.x) jg[j] = p[j] * ((gt[j] - g_top) - PR);
    __syncthreads();  // jg[] complete

    for (int k = threadIdx.x; k < d; k += blockDim.x) {
        float acc = 0.0f;
        for (int j = 0; j < n; j++) acc += Kt[(long long)j * d + k] * jg[j];
        gq[k] = c * acc;
    }
    const float jn = scaled_norm(jg, n, scratch);  // its first barrier publishes gq[]
    const float gn = scaled_norm(gq, d, scratch);
    if (threadIdx.x == 0) {
        jg_norm[trial] = jn;
        grad_norm[trial] = gn;
    }
}
