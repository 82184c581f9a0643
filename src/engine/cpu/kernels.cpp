#include "engine/cpu/kernels.h"

#include <cblas.h>
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <mutex>

#include <Eigen/Core>
#include <unsupported/Eigen/SpecialFunctions>

#include "core/error.h"
#include "engine/blas.h"
#include "engine/cpu/cpu_features.h"
#include "engine/cpu/kernel_variants.h"
#include "engine/engine.h"

extern "C" void openblas_set_num_threads(int);
extern "C" int openblas_get_num_threads(void);

namespace flashnerd::engine::cpu {

namespace {

using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMap = Eigen::Map<const RowMat, 0, Eigen::OuterStride<>>;
using Map = Eigen::Map<RowMat, 0, Eigen::OuterStride<>>;
using ArrayMap = Eigen::Map<Eigen::ArrayXf>;
using ConstArrayMap = Eigen::Map<const Eigen::ArrayXf>;

#if defined(__AVX2__) && defined(__FMA__)
// Sums of four 8-wide accumulators as one 4-wide vector [Σa0, Σa1, Σa2, Σa3].
inline __m128 hsum4(__m256 a0, __m256 a1, __m256 a2, __m256 a3) {
  __m256 t0 = _mm256_hadd_ps(a0, a1);
  __m256 t1 = _mm256_hadd_ps(a2, a3);
  __m256 t = _mm256_hadd_ps(t0, t1);
  return _mm_add_ps(_mm256_castps256_ps128(t), _mm256_extractf128_ps(t, 1));
}

// One MB×NB block of C: MB·NB independent 8-wide FMA chains over K, a scalar K tail, one
// store. Registers: MB·NB accumulators + MB rows of A + one W vector (<= 16 ymm).
template <int MB, int NB>
void micro_kernel(int K, const float* A, int lda, const float* W, int ldw, float beta, float* C,
                  int ldc) {
  constexpr int NP = (NB + 3) / 4 * 4;
  __m256 acc[MB][NP];
  for (int m = 0; m < MB; ++m)
    for (int n = 0; n < NP; ++n) acc[m][n] = _mm256_setzero_ps();
  const int K8 = K & ~7;
  for (int k = 0; k < K8; k += 8) {
    __m256 a[MB];
    for (int m = 0; m < MB; ++m) a[m] = _mm256_loadu_ps(A + size_t(m) * lda + k);
    for (int n = 0; n < NB; ++n) {
      const __m256 w = _mm256_loadu_ps(W + size_t(n) * ldw + k);
      for (int m = 0; m < MB; ++m) acc[m][n] = _mm256_fmadd_ps(a[m], w, acc[m][n]);
    }
  }
  for (int m = 0; m < MB; ++m) {
    alignas(32) float s[NP];
    for (int n = 0; n < NP; n += 4)
      _mm_store_ps(s + n, hsum4(acc[m][n], acc[m][n + 1], acc[m][n + 2], acc[m][n + 3]));
    const float* a = A + size_t(m) * lda;
    for (int n = 0; n < NB; ++n) {
      const float* w = W + size_t(n) * ldw;
      float tail = 0.f;
      for (int k = K8; k < K; ++k) tail += a[k] * w[k];
      const float v = s[n] + tail;
      float* c = C + size_t(m) * ldc + n;
      *c = beta != 0.f ? *c + v : v;
    }
  }
}

using MicroKernel = void (*)(int, const float*, int, const float*, int, float, float*, int);
template <int MB, int... NB>
constexpr MicroKernel by_columns[sizeof...(NB)] = {micro_kernel<MB, NB>...};
// [rows − 1][columns − 1]: one row uses blocks of 8 columns, more rows blocks of 4.
const MicroKernel* const kernels[3] = {by_columns<1, 1, 2, 3, 4, 5, 6, 7, 8>,
                                       by_columns<2, 1, 2, 3, 4>, by_columns<3, 1, 2, 3, 4>};
#endif

}  // namespace

void use_single_threaded_blas() {
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
}

void gemm_nt_naive(int M, int N, int K, const float* A, int lda, const float* W, int ldw,
                   float beta, float* C, int ldc) {
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double s = 0;
      for (int k = 0; k < K; ++k) s += double(A[size_t(m) * lda + k]) * W[size_t(n) * ldw + k];
      float& c = C[size_t(m) * ldc + n];
      c = float(beta != 0.f ? c + s : s);
    }
}

void gemm_nt_small(int M, int N, int K, const float* A, int lda, const float* W, int ldw,
                   float beta, float* C, int ldc) {
#if defined(__AVX2__) && defined(__FMA__)
  // W rows of one column block stay in L1 while the (few) rows of A stream past them, so W
  // is read from memory once; a single row (GEMV) takes 8 columns at a time.
  const int cols = M == 1 ? 8 : 4;
  for (int n0 = 0; n0 < N; n0 += cols) {
    const int nb = std::min(cols, N - n0);
    for (int m0 = 0; m0 < M; m0 += 3) {
      const int mb = std::min(3, M - m0);
      kernels[mb - 1][nb - 1](K, A + size_t(m0) * lda, lda, W + size_t(n0) * ldw, ldw, beta,
                              C + size_t(m0) * ldc + n0, ldc);
    }
  }
#else
  gemm_nt_naive(M, N, K, A, lda, W, ldw, beta, C, ldc);
#endif
}

void gemm_nt(GemmBackend backend, int M, int N, int K, const float* A, int lda, const float* W,
             int ldw, float beta, float* C, int ldc, Isa max_isa) {
  if (M <= 0 || N <= 0) return;
  switch (backend) {
    case GemmBackend::Auto:
    case GemmBackend::RowInvariant:
      if (M <= kSmallGemmRows || backend == GemmBackend::RowInvariant) {
        if (int(max_isa) >= int(Isa::AVX512) && cpu_features().has(Isa::AVX512))
          gemm_nt_small_avx512(M, N, K, A, lda, W, ldw, beta, C, ldc);
        else
          gemm_nt_small(M, N, K, A, lda, W, ldw, beta, C, ldc);
        return;
      }
      [[fallthrough]];
    case GemmBackend::OpenBLAS:
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, N, K, 1.f, A, lda, W, ldw, beta, C,
                  ldc);
      return;
    case GemmBackend::Eigen: {
      ConstMap a(A, M, K, Eigen::OuterStride<>(lda));
      ConstMap w(W, N, K, Eigen::OuterStride<>(ldw));
      Map c(C, M, N, Eigen::OuterStride<>(ldc));
      if (beta != 0.f)
        c.noalias() += a * w.transpose();
      else
        c.noalias() = a * w.transpose();
      return;
    }
    case GemmBackend::Naive:
      gemm_nt_naive(M, N, K, A, lda, W, ldw, beta, C, ldc);
      return;
  }
}

void add_bias(int M, int N, const float* bias, float* C, int ldc) {
  for (int m = 0; m < M; ++m) {
    float* c = C + size_t(m) * ldc;
    for (int n = 0; n < N; ++n) c[n] += bias[n];
  }
}

void add_rows(int M, int N, const float* A, int lda, float* C, int ldc) {
  for (int m = 0; m < M; ++m) {
    const float* a = A + size_t(m) * lda;
    float* c = C + size_t(m) * ldc;
    for (int n = 0; n < N; ++n) c[n] += a[n];
  }
}

float dot(const float* a, const float* b, int n) {
  return Eigen::Map<const Eigen::VectorXf>(a, n).dot(Eigen::Map<const Eigen::VectorXf>(b, n));
}

void rms_normalize(int M, int d, const float* H, int ldh, float* Z, int ldz) {
  for (int m = 0; m < M; ++m) {
    ConstArrayMap h(H + size_t(m) * ldh, d);
    const float r = 1.f / std::sqrt(h.square().sum() / float(d) + float(kNormEpsilon));
    ArrayMap(Z + size_t(m) * ldz, d) = h * r;
  }
}

void layer_normalize(int M, int d, const float* H, int ldh, float* Z, int ldz) {
  for (int m = 0; m < M; ++m) {
    ConstArrayMap h(H + size_t(m) * ldh, d);
    ArrayMap z(Z + size_t(m) * ldz, d);
    const float mean = h.sum() / float(d);
    z = h - mean;
    const float var = z.square().sum() / float(d);
    z *= 1.f / std::sqrt(var + float(kNormEpsilon));
  }
}

void rms_normalize_naive(int M, int d, const float* H, int ldh, float* Z, int ldz) {
  for (int m = 0; m < M; ++m) {
    const float* h = H + size_t(m) * ldh;
    double ss = 0;
    for (int k = 0; k < d; ++k) ss += double(h[k]) * h[k];
    const double r = 1.0 / std::sqrt(ss / d + kNormEpsilon);
    for (int k = 0; k < d; ++k) Z[size_t(m) * ldz + k] = float(h[k] * r);
  }
}

void layer_normalize_naive(int M, int d, const float* H, int ldh, float* Z, int ldz) {
  for (int m = 0; m < M; ++m) {
    const float* h = H + size_t(m) * ldh;
    double mean = 0, var = 0;
    for (int k = 0; k < d; ++k) mean += h[k];
    mean /= d;
    for (int k = 0; k < d; ++k) var += (h[k] - mean) * (h[k] - mean);
    var /= d;
    const double r = 1.0 / std::sqrt(var + kNormEpsilon);
    for (int k = 0; k < d; ++k) Z[size_t(m) * ldz + k] = float((h[k] - mean) * r);
  }
}

void silu_inplace(int M, int n, float* X, int ldx) {
  for (int m = 0; m < M; ++m) {
    ArrayMap x(X + size_t(m) * ldx, n);
    x = x / (1.f + (-x).exp());
  }
}

void relu_inplace(int M, int n, float* X, int ldx) {
  for (int m = 0; m < M; ++m) {
    ArrayMap x(X + size_t(m) * ldx, n);
    x = x.max(0.f);
  }
}

void gelu_inplace(int M, int n, float* X, int ldx) {
  for (int m = 0; m < M; ++m) {
    ArrayMap x(X + size_t(m) * ldx, n);
    x = 0.5f * x * (1.f + (x * float(M_SQRT1_2)).erf());
  }
}

void glu(FfnActivation act, int M, int f, const float* gate, const float* up, int ldg, float* out,
         int ldo) {
  for (int m = 0; m < M; ++m) {
    ConstArrayMap g(gate + size_t(m) * ldg, f);
    ConstArrayMap u(up + size_t(m) * ldg, f);
    ArrayMap o(out + size_t(m) * ldo, f);
    switch (act) {
      case FfnActivation::SwiGLU: o = g / (1.f + (-g).exp()) * u; break;
      case FfnActivation::GEGLU: o = 0.5f * g * (1.f + (g * float(M_SQRT1_2)).erf()) * u; break;
      case FfnActivation::ReGLU: o = g.max(0.f) * u; break;
      case FfnActivation::GLU: o = u / (1.f + (-g).exp()); break;
      // softplus overflows to inf for g > 88, where tanh(inf) = 1 is the right limit
      case FfnActivation::MishGLU: o = g * g.exp().log1p().tanh() * u; break;
    }
  }
}

float silu_naive(float x) { return float(double(x) / (1.0 + std::exp(-double(x)))); }
float gelu_naive(float x) { return float(0.5 * x * (1.0 + std::erf(double(x) * M_SQRT1_2))); }
float act_naive(FfnActivation act, float x) {
  switch (act) {
    case FfnActivation::SwiGLU: return silu_naive(x);
    case FfnActivation::GEGLU: return gelu_naive(x);
    case FfnActivation::ReGLU: return x > 0.f ? x : 0.f;
    case FfnActivation::GLU: return float(1.0 / (1.0 + std::exp(-double(x))));
    case FfnActivation::MishGLU: return float(double(x) * std::tanh(std::log1p(std::exp(double(x)))));
  }
  return x;
}

void glu_naive(FfnActivation act, int M, int f, const float* gate, const float* up, int ldg,
               float* out, int ldo) {
  for (int m = 0; m < M; ++m)
    for (int j = 0; j < f; ++j)
      out[size_t(m) * ldo + j] =
          act_naive(act, gate[size_t(m) * ldg + j]) * up[size_t(m) * ldg + j];
}

}  // namespace flashnerd::engine::cpu

namespace flashnerd::engine {

ScopeExit blas_threads(int threads) {
  const int previous = openblas_get_num_threads();
  openblas_set_num_threads(std::max(1, threads));
  return ScopeExit([previous] { openblas_set_num_threads(previous); });
}

}  // namespace flashnerd::engine
