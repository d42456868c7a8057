// attention_forward.cu — fused attention forward O = softmax(c · Q Kᵀ) V, batched over BH heads.
//
// Q, K, V, O: BH × n × d row-major, T ∈ {float, half_t, bf16_t}; any n ≥ 1 and any d ≤ 256
// (every load and store is bounds-checked; padding is zero and padded keys are masked to −∞).
// Online softmax (Milakov & Gimelshein 2018, arXiv:1805.02867; FlashAttention-2's loop order),
// all statistics in fp32 and in the log₂ domain (s·c·log₂e, exp2f):
//   per key tile:  m' = max(m, max_j s_ij),  α = 2^{m − m'},  l ← α·l + Σ_j 2^{s_ij − m'},
//                  O ← α·O + P̃ V_tile;   at the end O ← O / l.
// NumPy twin: core.gpu.attention_twin (float64); core.attention.attention is the blocked CPU path.
//
// version 1 (attention_forward_simt<T, DMAX>): SIMT fp32 FMA, 32 queries × 32 keys per tile,
//            256 threads. Q, K, V tiles converted to fp32 in shared memory with an odd row stride
//            (d | 1, conflict-free), one warp per 4 query rows does its scores and softmax (lane =
//            key), then each thread accumulates 1 row × DMAX/8 columns of O. Handles d ≤ DMAX ≤ 256.
// version 2 (attention_forward_mma<T, D, SPLIT>): tensor cores through mma.sync, 64 queries × 64 keys
//            per tile, 4 warps of 16 query rows, D ∈ {64, 128} (d ≤ D zero-padded).
//            fp32: TF32 m16n8k8; SPLIT = 3 is 3xTF32 (x = hi + lo, a·b ≈ a_lo·b_hi + a_hi·b_lo +
//            a_hi·b_hi, fp32-class accuracy, what torch's fp32 memory-efficient kernel does),
//            SPLIT = 1 is plain TF32 (10-bit mantissa inputs). The k index of each mma is permuted
//            (logical t ↔ physical 2t, t+4 ↔ 2t+1), the same permutation on both operands, so Q and
//            K fragments are float2 loads and the score accumulators are the A fragments of P·V.
//            fp16 / bf16: m16n8k16 with fp32 accumulation; P is rounded to the input type for P·V
//            (as FlashAttention-2 does); V fragments come from ldmatrix.x4.trans.
//            Shared-memory row pads (8 words for Q/K, 4 for fp32 V, 8 halves for 16-bit) keep the
//            fragment loads free of bank conflicts. Needs sm_80 or newer.
// Launch (core/gpu/launch.py): v1 grid (⌈n/32⌉, BH) × 256; v2 grid (⌈n/64⌉, BH) × 128; dynamic shared
// memory sized by the launcher (opt-in above 48 KB).
#include "common.cuh"

// ============================================================ version 1: SIMT

#define S_BR 32
#define S_BC 32
#define S_THREADS 256

// dst[r][k] (row stride ld, fp32) = src[row0 + r][k] for k < d; zero for rows past n.
template <typename T>
__device__ __forceinline__ void load_rows_f32(float* dst, int ld, const T* __restrict__ src, int row0,
                                              int n, int d) {
    for (int e = threadIdx.x; e < S_BR * d; e += blockDim.x) {
        const int r = e / d, k = e - r * d;
        dst[r * ld + k] = row0 + r < n ? to_float(src[(long long)(row0 + r) * d + k]) : 0.0f;
    }
}

template <typename T, int DMAX>
__global__ void __launch_bounds__(S_THREADS)
attention_forward_simt(const T* __restrict__ Q, const T* __restrict__ K, const T* __restrict__ V,
                       T* __restrict__ O, int n, int d, float scale) {
    ASE_DYNAMIC_SMEM(float, sm);
    const int ld = d | 1;                  // odd stride: lanes reading K rows hit distinct banks
    float* Qs = sm;                        // [S_BR][ld]
    float* Ks = Qs + S_BR * ld;            // [S_BC][ld]
    float* Vs = Ks + S_BC * ld;            // [S_BC][ld]
    float* Ps = Vs + S_BC * ld;            // [S_BR][S_BC + 1] scores, then P̃
    float* m_s = Ps + S_BR * (S_BC + 1);   // [S_BR] running max (log₂ domain)
    float* l_s = m_s + S_BR;               // [S_BR] running sum
    float* a_s = l_s + S_BR;               // [S_BR] this tile's rescale factor α
    const long long base = (long long)blockIdx.y * n * d;
    Q += base; K += base; V += base; O += base;
    const int q0 = blockIdx.x * S_BR, tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const float sl2 = scale * ASE_LOG2E;
    load_rows_f32(Qs, ld, Q, q0, n, d);
    if (tid < S_BR) { m_s[tid] = -ASE_INF; l_s[tid] = 0.0f; }
    const int orow = tid >> 3, ocol = tid & 7;  // this thread's O elements: row orow, cols ocol + 8i
    float acc[DMAX / 8];
#pragma unroll
    for (int i = 0; i < DMAX / 8; i++) acc[i] = 0.0f;

    for (int j0 = 0; j0 < n; j0 += S_BC) {
        __syncthreads();  // Q loaded / the previous tile consumed
        load_rows_f32(Ks, ld, K, j0, n, d);
        load_rows_f32(Vs, ld, V, j0, n, d);
        __syncthreads();
        // warp w owns query rows w + 8i; lane = key column
#pragma unroll
        for (int i = 0; i < S_BR / 8; i++) {
            const int r = warp + 8 * i;
            float s = 0.0f;
            for (int k = 0; k < d; k++) s += Qs[r * ld + k] * Ks[lane * ld + k];
            s = j0 + lane < n ? s * sl2 : -ASE_INF;
            const float m_old = m_s[r];
            const float m_new = fmaxf(m_old, warpReduceMax(s));  // finite: key j0 < n is valid
            const float p = exp2f(s - m_new);
            const float sum = warpReduceSum(p);
            Ps[r * (S_BC + 1) + lane] = p;
            __syncwarp();  // every lane has read m_s[r] before lane 0 overwrites it (the shuffles
                           // above order the lanes' execution, not their shared-memory accesses)
            if (lane == 0) {
                const float a = exp2f(m_old - m_new);  // 0 on the first tile (m_old = −∞)
                a_s[r] = a;
                l_s[r] = l_s[r] * a + sum;
                m_s[r] = m_new;
            }
        }
        __syncthreads();
        const float a = a_s[orow];
#pragma unroll
        for (int i = 0; i < DMAX / 8; i++) acc[i] *= a;
        for (int j = 0; j < S_BC; j++) {  // masked keys have P̃ = 0 and V = 0
            const float p = Ps[orow * (S_BC + 1) + j];
#pragma unroll
            for (int i = 0; i < DMAX / 8; i++) {
                const int col = ocol + 8 * i;
                if (col < d) acc[i] += p * Vs[j * ld + col];
            }
        }
    }
    __syncthreads();
    const int row = q0 + orow;
    if (row < n) {
        const float inv = 1.0f / l_s[orow];
#pragma unroll
        for (int i = 0; i < DMAX / 8; i++) {
            const int col = ocol + 8 * i;
            if (col < d) O[(long long)row * d + col] = from_float<T>(acc[i] * inv);
        }
    }
}

// ============================================================ version 2: tensor cores (mma.sync)

#define M_BR 64
#define M_BC 64
#define M_THREADS 128

template <typename T> struct MmaCfg;
template <> struct MmaCfg<float>  { static constexpr int PADQK = 8, PADV = 4; };
template <> struct MmaCfg<half_t> { static constexpr int PADQK = 8, PADV = 8; };
template <> struct MmaCfg<bf16_t> { static constexpr int PADQK = 8, PADV = 8; };

// x = hi + lo with hi = tf32(x), lo = tf32(x − hi): 3xTF32 operands.
__device__ __forceinline__ void split_tf32(float x, unsigned int& hi, unsigned int& lo) {
    hi = ptx_cvt_rna_tf32_f32(x);
    lo = ptx_cvt_rna_tf32_f32(x - __uint_as_float(hi));
}

// d = A B + d, m16n8k16, for 16-bit inputs of type T
template <typename T>
__device__ __forceinline__ void mma_16(float (&c)[4], const unsigned int (&a)[4], unsigned int b0,
                                       unsigned int b1);
template <>
__device__ __forceinline__ void mma_16<half_t>(float (&c)[4], const unsigned int (&a)[4], unsigned int b0,
                                               unsigned int b1) {
    ptx_mma_m16n8k16_f16(c, a, b0, b1);
}
template <>
__device__ __forceinline__ void mma_16<bf16_t>(float (&c)[4], const unsigned int (&a)[4], unsigned int b0,
                                               unsigned int b1) {
    ptx_mma_m16n8k16_bf16(c, a, b0, b1);
}

// dst[r][k] (row stride ld) = src[row0 + r][k] for r < 64, k < D; zero past n rows or d columns.
// `vec`: d is a multiple of 16 bytes' worth of T and src is 16-byte aligned → one uint4 per chunk.
template <typename T, int D>
__device__ __forceinline__ void load_tile(T* dst, int ld, const T* __restrict__ src, int row0, int n, int d,
                                          int vec) {
    if (vec) {
        constexpr int VEC = 16 / sizeof(T), CPR = D / VEC;  // chunks per row
        for (int c = threadIdx.x; c < M_BR * CPR; c += M_THREADS) {
            const int r = c / CPR, k = (c % CPR) * VEC;
            uint4 x = {0u, 0u, 0u, 0u};
            if (row0 + r < n && k < d) x = *reinterpret_cast<const uint4*>(src + (long long)(row0 + r) * d + k);
            *reinterpret_cast<uint4*>(dst + r * ld + k) = x;
        }
    } else {
        for (int e = threadIdx.x; e < M_BR * D; e += M_THREADS) {
            const int r = e / D, k = e % D;
            dst[r * ld + k] = (row0 + r < n && k < d) ? src[(long long)(row0 + r) * d + k] : from_float<T>(0.0f);
        }
    }
}

// S (16 rows × 64 keys of this warp) = Q Kᵀ. Fragment of n-tile nt: s[nt] = {S(g, 2t), S(g, 2t+1),
// S(g+8, 2t), S(g+8, 2t+1)} at key 8·nt + column, g = lane/4, t = lane%4.
template <int D, int SPLIT>
__device__ __forceinline__ void qk_tf32(float (&s)[M_BC / 8][4], const float* Qs, const float* Ks, int m0,
                                        int g, int t) {
    constexpr int LD = D + MmaCfg<float>::PADQK;
#pragma unroll 2
    for (int k0 = 0; k0 < D; k0 += 8) {
        // logical A(g, t) = Q[g][k0+2t], A(g+8, t) = Q[g+8][k0+2t], A(g, t+4) = Q[g][k0+2t+1], ...
        const float2 qa = *reinterpret_cast<const float2*>(Qs + (m0 + g) * LD + k0 + 2 * t);
        const float2 qb = *reinterpret_cast<const float2*>(Qs + (m0 + g + 8) * LD + k0 + 2 * t);
        unsigned int ah[4], al[4];
        split_tf32(qa.x, ah[0], al[0]);
        split_tf32(qb.x, ah[1], al[1]);
        split_tf32(qa.y, ah[2], al[2]);
        split_tf32(qb.y, ah[3], al[3]);
#pragma unroll
        for (int nt = 0; nt < M_BC / 8; nt++) {
            // logical B(t, g) = K[key g][k0+2t], B(t+4, g) = K[key g][k0+2t+1]
            const float2 kb = *reinterpret_cast<const float2*>(Ks + (nt * 8 + g) * LD + k0 + 2 * t);
            unsigned int bh0, bl0, bh1, bl1;
            split_tf32(kb.x, bh0, bl0);
            split_tf32(kb.y, bh1, bl1);
            if (SPLIT == 3) {  // small terms first
                ptx_mma_m16n8k8_tf32(s[nt], al, bh0, bh1);
                ptx_mma_m16n8k8_tf32(s[nt], ah, bl0, bl1);
            }
            ptx_mma_m16n8k8_tf32(s[nt], ah, bh0, bh1);
        }
    }
}

// O (16 rows × D of this warp) += P̃ V_tile. With the same k permutation, the score fragment of
// n-tile kb is the A fragment {P(g,2t), P(g+8,2t), P(g,2t+1), P(g+8,2t+1)} for keys 8kb..8kb+7.
template <int D, int SPLIT>
__device__ __forceinline__ void pv_tf32(float (&o)[D / 8][4], const float (&p)[M_BC / 8][4], const float* Vs,
                                        int g, int t) {
    constexpr int LD = D + MmaCfg<float>::PADV;
#pragma unroll
    for (int kb = 0; kb < M_BC / 8; kb++) {
        unsigned int ah[4], al[4];
        split_tf32(p[kb][0], ah[0], al[0]);
        split_tf32(p[kb][2], ah[1], al[1]);
        split_tf32(p[kb][1], ah[2], al[2]);
        split_tf32(p[kb][3], ah[3], al[3]);
        const float* v0 = Vs + (kb * 8 + 2 * t) * LD + g;  // logical B(t, g) = V[key 2t][col g]
        const float* v1 = v0 + LD;                         // logical B(t+4, g) = V[key 2t+1][col g]
#pragma unroll
        for (int dt = 0; dt < D / 8; dt++) {
            unsigned int bh0, bl0, bh1, bl1;
            split_tf32(v0[dt * 8], bh0, bl0);
            split_tf32(v1[dt * 8], bh1, bl1);
            if (SPLIT == 3) {
                ptx_mma_m16n8k8_tf32(o[dt], al, bh0, bh1);
                ptx_mma_m16n8k8_tf32(o[dt], ah, bl0, bl1);
            }
            ptx_mma_m16n8k8_tf32(o[dt], ah, bh0, bh1);
        }
    }
}

template <typename T, int D>
__device__ __forceinline__ void qk_16(float (&s)[M_BC / 8][4], const T* Qs, const T* Ks, int m0, int g, int t) {
    constexpr int LD = D + MmaCfg<T>::PADQK;
#pragma unroll 2
    for (int k0 = 0; k0 < D; k0 += 16) {
        const unsigned int* q0 = reinterpret_cast<const unsigned int*>(Qs + (m0 + g) * LD + k0);
        const unsigned int* q1 = reinterpret_cast<const unsigned int*>(Qs + (m0 + g + 8) * LD + k0);
        const unsigned int a[4] = {q0[t], q1[t], q0[t + 4], q1[t + 4]};  // cols 2t,2t+1 and 2t+8,2t+9
#pragma unroll
        for (int nt = 0; nt < M_BC / 8; nt++) {
            const unsigned int* kr = reinterpret_cast<const unsigned int*>(Ks + (nt * 8 + g) * LD + k0);
            mma_16<T>(s[nt], a, kr[t], kr[t + 4]);
        }
    }
}

template <typename T, int D>
__device__ __forceinline__ void pv_16(float (&o)[D / 8][4], const float (&p)[M_BC / 8][4], const T* Vs, int lane) {
    constexpr int LD = D + MmaCfg<T>::PADV;
#pragma unroll
    for (int kk = 0; kk < M_BC / 16; kk++) {  // keys 16kk .. 16kk+15 = score n-tiles 2kk, 2kk+1
        const unsigned int a[4] = {pack2<T>(p[2 * kk][0], p[2 * kk][1]), pack2<T>(p[2 * kk][2], p[2 * kk][3]),
                                   pack2<T>(p[2 * kk + 1][0], p[2 * kk + 1][1]),
                                   pack2<T>(p[2 * kk + 1][2], p[2 * kk + 1][3])};
        // lane l addresses row l%8 of 8×8 matrix l/8: matrices (keys +0, cols +0), (keys +8, cols +0),
        // (keys +0, cols +8), (keys +8, cols +8); .trans hands each lane V[key 2t, 2t+1][col g].
        const int key = kk * 16 + (lane & 7) + ((lane >> 3) & 1) * 8, col = (lane >> 4) * 8;
#pragma unroll
        for (int dt2 = 0; dt2 < D / 16; dt2++) {
            unsigned int b[4];
            ptx_ldmatrix_x4_trans(b, Vs + key * LD + dt2 * 16 + col);
            mma_16<T>(o[2 * dt2], a, b[0], b[1]);
            mma_16<T>(o[2 * dt2 + 1], a, b[2], b[3]);
        }
    }
}

template <typename T, int D, int SPLIT>
__device__ __forceinline__ void qk(float (&s)[M_BC / 8][4], const T* Qs, const T* Ks, int m0, int g, int t) {
    if constexpr (sizeof(T) == 4) qk_tf32<D, SPLIT>(s, Qs, Ks, m0, g, t);
    else qk_16<T, D>(s, Qs, Ks, m0, g, t);
}

template <typename T, int D, int SPLIT>
__device__ __forceinline__ void pv(float (&o)[D / 8][4], const float (&p)[M_BC / 8][4], const T* Vs, int lane) {
    if constexpr (sizeof(T) == 4) pv_tf32<D, SPLIT>(o, p, Vs, lane >> 2, lane & 3);
    else pv_16<T, D>(o, p, Vs, lane);
}

template <typename T, int D, int SPLIT>
__global__ void __launch_bounds__(M_THREADS)
attention_forward_mma(const T* __restrict__ Q, const T* __restrict__ K, const T* __restrict__ V,
                      T* __restrict__ O, int n, int d, float scale, int vec) {
    constexpr int LDQ = D + MmaCfg<T>::PADQK, LDV = D + MmaCfg<T>::PADV;
    ASE_DYNAMIC_SMEM(unsigned char, smem_raw);
    T* Qs = reinterpret_cast<T*>(smem_raw);  // [M_BR][LDQ]
    T* Ks = Qs + M_BR * LDQ;                 // [M_BC][LDQ]
    T* Vs = Ks + M_BC * LDQ;                 // [M_BC][LDV]
    const long long base = (long long)blockIdx.y * n * d;
    Q += base; K += base; V += base; O += base;
    const int q0 = blockIdx.x * M_BR, lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
    const int m0 = (threadIdx.x >> 5) * 16;  // this warp's 16 query rows in the tile
    const float sl2 = scale * ASE_LOG2E;
    load_tile<T, D>(Qs, LDQ, Q, q0, n, d, vec);

    float o[D / 8][4];
#pragma unroll
    for (int i = 0; i < D / 8; i++) o[i][0] = o[i][1] = o[i][2] = o[i][3] = 0.0f;
    float mrow[2] = {-ASE_INF, -ASE_INF}, lrow[2] = {0.0f, 0.0f};  // rows g and g + 8

    for (int j0 = 0; j0 < n; j0 += M_BC) {
        __syncthreads();  // Q loaded / every warp done with the previous K, V tile
        load_tile<T, D>(Ks, LDQ, K, j0, n, d, vec);
        load_tile<T, D>(Vs, LDV, V, j0, n, d, vec);
        __syncthreads();
        float s[M_BC / 8][4];
#pragma unroll
        for (int i = 0; i < M_BC / 8; i++) s[i][0] = s[i][1] = s[i][2] = s[i][3] = 0.0f;
        qk<T, D, SPLIT>(s, Qs, Ks, m0, g, t);

        float mx[2] = {-ASE_INF, -ASE_INF};
#pragma unroll
        for (int nt = 0; nt < M_BC / 8; nt++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                const int key = j0 + nt * 8 + 2 * t + (e & 1);
                const float x = key < n ? s[nt][e] * sl2 : -ASE_INF;
                s[nt][e] = x;
                mx[e >> 1] = fmaxf(mx[e >> 1], x);
            }
        float alpha[2];
#pragma unroll
        for (int r = 0; r < 2; r++) {  // the 4 threads of a row are lanes 4g .. 4g+3
            mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 1));
            mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 2));
            const float m_new = fmaxf(mrow[r], mx[r]);  // finite: key j0 < n is in this tile
            alpha[r] = exp2f(mrow[r] - m_new);          // 0 on the first tile
            mrow[r] = m_new;
            lrow[r] *= alpha[r];
        }
#pragma unroll
        for (int nt = 0; nt < M_BC / 8; nt++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                const float p = exp2f(s[nt][e] - mrow[e >> 1]);
                s[nt][e] = p;
                lrow[e >> 1] += p;  // partial over this thread's columns; reduced at the end
            }
#pragma unroll
        for (int dt = 0; dt < D / 8; dt++)
#pragma unroll
            for (int e = 0; e < 4; e++) o[dt][e] *= alpha[e >> 1];
        pv<T, D, SPLIT>(o, s, Vs, lane);
    }

#pragma unroll
    for (int r = 0; r < 2; r++) {
        lrow[r] += __shfl_xor_sync(0xffffffffu, lrow[r], 1);
        lrow[r] += __shfl_xor_sync(0xffffffffu, lrow[r], 2);
        lrow[r] = 1.0f / lrow[r];
    }
#pragma unroll
    for (int dt = 0; dt < D / 8; dt++)
#pragma unroll
        for (int e = 0; e < 4; e++) {
            const int row = q0 + m0 + g + 8 * (e >> 1), col = dt * 8 + 2 * t + (e & 1);
            if (row < n && col < d) O[(long long)row * d + col] = from_float<T>(o[dt][e] * lrow[e >> 1]);
        }
}
