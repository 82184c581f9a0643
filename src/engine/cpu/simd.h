// <immintrin.h> for the kernel-variant files. GCC 12 reports a false -Wuninitialized /
// -Wmaybe-uninitialized inside its own AVX-512 headers (the `__Y = __Y` of
// _mm256_undefined_pd, reached through _mm512_reduce_add_ps); it is silenced for these
// system-header lines only, and stays an error everywhere else. Clang has no
// -Wmaybe-uninitialized group (naming it is itself a warning, an error under -Werror) and no
// such report: it includes the header as it is.
#pragma once

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#else
#include <immintrin.h>
#endif
