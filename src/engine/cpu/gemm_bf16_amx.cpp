// bf16 GEMM on AMX tiles (compiled with -mamx-tile -mamx-bf16 plus AVX-512-BF16 for the
// conversion of A; kernel_variants.h says why this file stays free of inline library code).
// Tiles: C0..C3 a 32×32 block of C (2×2 tiles of 16×16 fp32), A4/A5 16 rows × 32 bf16 of
// A, B6/B7 16 k-pairs × 16 columns of two W panels (bf16.h: one panel row is one 64-byte tile
// row). A is padded to 32 rows and W to 32 columns and K to 32, so every tile is full; the
// valid part of each C block is copied out through a small buffer. Linux needs the process's
// tile-data permission first (cpu_features.cpp asks for it before this can be chosen).
#include "engine/cpu/simd.h"

#include <cstring>

#include "engine/cpu/kernel_variants.h"

namespace flashnerd::engine::cpu {

namespace {

struct alignas(64) TileConfig {
  uint8_t palette = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {};  // bytes per row of each tile
  uint8_t rows[16] = {};
};

int round32(int n) { return (n + 31) / 32 * 32; }

}  // namespace

void gemm_bf16_amx(int M, int N, int K, const float* A, int lda, const uint16_t* Wp, float beta,
                   float* C, int ldc, uint16_t* a_bf16) {
  if (M <= 0 || N <= 0) return;
  const int Kp = round32(K), Mp = round32(M);
  convert_rows_bf16_avx512(M, Mp, K, Kp, A, lda, a_bf16);
  TileConfig cfg;
  for (int t = 0; t < 8; ++t) {
    cfg.rows[t] = 16;
    cfg.colsb[t] = 64;
  }
  _tile_loadconfig(&cfg);
  const size_t panel = size_t(Kp) * 16;
  const long a_stride = long(Kp) * long(sizeof(uint16_t));
  alignas(64) float out[4][16 * 16];
  for (int n0 = 0; n0 < N; n0 += 32) {
    const uint16_t* w0 = Wp + size_t(n0 / 16) * panel;
    const uint16_t* w1 = w0 + panel;
    for (int m0 = 0; m0 < Mp; m0 += 32) {
      const uint16_t* a0 = a_bf16 + size_t(m0) * Kp;
      const uint16_t* a1 = a0 + size_t(16) * Kp;
      _tile_zero(0);
      _tile_zero(1);
      _tile_zero(2);
      _tile_zero(3);
      for (int k0 = 0; k0 < Kp; k0 += 32) {
        _tile_loadd(4, a0 + k0, a_stride);
        _tile_loadd(5, a1 + k0, a_stride);
        _tile_loadd(6, w0 + size_t(k0) * 16, 64);  // k-pairs k0/2 .. k0/2 + 15
        _tile_loadd(7, w1 + size_t(k0) * 16, 64);
        _tile_dpbf16ps(0, 4, 6);
        _tile_dpbf16ps(1, 4, 7);
        _tile_dpbf16ps(2, 5, 6);
        _tile_dpbf16ps(3, 5, 7);
      }
      _tile_stored(0, out[0], 64);
      _tile_stored(1, out[1], 64);
      _tile_stored(2, out[2], 64);
      _tile_stored(3, out[3], 64);
      // tile (i, j): rows m0 + 16i .., columns n0 + 16j ..
      for (int t = 0; t < 4; ++t) {
        const int r0 = m0 + 16 * (t / 2), c0 = n0 + 16 * (t % 2);
        for (int r = 0; r < 16 && r0 + r < M; ++r) {
          float* c = C + size_t(r0 + r) * ldc + c0;
          const float* o = out[t] + 16 * r;
          for (int j = 0; j < 16 && c0 + j < N; ++j) c[j] = beta != 0.f ? c[j] + o[j] : o[j];
        }
      }
    }
  }
  _tile_release();
}

}  // namespace flashnerd::engine::cpu
