# Compile options applied to project targets only (third-party headers are SYSTEM).
add_library(flashnerd_options INTERFACE)
target_compile_options(flashnerd_options INTERFACE -Wall -Wextra -Wpedantic -Wno-unused-parameter)
if(FLASHNERD_WERROR)
  target_compile_options(flashnerd_options INTERFACE -Werror)
endif()
if(FLASHNERD_NATIVE)
  target_compile_options(flashnerd_options INTERFACE -march=native)
else()
  target_compile_options(flashnerd_options INTERFACE -march=${FLASHNERD_BASELINE_ARCH} -mtune=generic)
endif()
if(FLASHNERD_SANITIZE)
  target_compile_options(flashnerd_options INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_link_options(flashnerd_options INTERFACE -fsanitize=address,undefined)
endif()
if(FLASHNERD_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "FLASHNERD_FUZZ needs clang (libFuzzer): configure with "
      "-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++, as scripts/fuzz.sh does")
  endif()
  # coverage for libFuzzer in every project object; the fuzz targets add -fsanitize=fuzzer (main)
  target_compile_options(flashnerd_options INTERFACE -fsanitize=fuzzer-no-link,address,undefined
    -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_link_options(flashnerd_options INTERFACE -fsanitize=address,undefined)
endif()

# Helper: project library/executable with our options.
function(flashnerd_target target)
  target_link_libraries(${target} PRIVATE flashnerd_options)
endfunction()

# Most of a file that includes libtorch or CLI11 is spent parsing them (about 20 s for
# torch/torch.h): the targets made of such files compile as unity batches, which parse them once
# per batch. Files with their own compile flags stay apart (CMake's rule).
option(FLASHNERD_UNITY_BUILD "Compile the libtorch- and CLI11-heavy targets in unity batches" ON)
function(flashnerd_unity_target target)
  if(FLASHNERD_UNITY_BUILD)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 6)
  endif()
endfunction()
