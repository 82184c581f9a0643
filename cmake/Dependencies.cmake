# Every dependency comes from a Debian package installed by scripts/setup.sh.
find_package(Threads REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(PNG REQUIRED)
find_package(HDF5 REQUIRED COMPONENTS C)
# OpenMP: the runtime oneDNN threads through (engine::sgemm sets its team size), GCC's libgomp
find_package(OpenMP REQUIRED COMPONENTS CXX)
find_package(ZLIB REQUIRED)  # datasets: chunks are inflated by the reader itself (src/core/hdf5_chunks.h)

# MuJoCo 2.2.2 (libmujoco-dev); its exported target needs qhull.
find_package(mujoco QUIET)
if(NOT TARGET mujoco::mujoco)
  find_path(MUJOCO_INCLUDE_DIR mujoco/mujoco.h REQUIRED)
  find_library(MUJOCO_LIBRARY mujoco REQUIRED)
  add_library(mujoco::mujoco UNKNOWN IMPORTED)
  set_target_properties(mujoco::mujoco PROPERTIES IMPORTED_LOCATION ${MUJOCO_LIBRARY}
    INTERFACE_INCLUDE_DIRECTORIES ${MUJOCO_INCLUDE_DIR})
endif()

# OpenBLAS for the engine's sgemm path (cblas interface).
find_library(OPENBLAS_LIBRARY NAMES openblas REQUIRED)
find_path(CBLAS_INCLUDE_DIR cblas.h PATHS /usr/include/x86_64-linux-gnu/openblas-pthread /usr/include/openblas REQUIRED)

# oneDNN 2.6 (libdnnl-dev): the bf16 GEMM ceiling the benchmarks compare against.
find_library(DNNL_LIBRARY NAMES dnnl REQUIRED)
find_path(DNNL_INCLUDE_DIR oneapi/dnnl/dnnl.hpp REQUIRED)

# EGL + OpenGL for offscreen rendering.
find_library(EGL_LIBRARY EGL)
find_library(OPENGL_LIBRARY OpenGL)

if(FLASHNERD_WITH_TORCH)
  find_package(Torch QUIET)
  if(NOT Torch_FOUND)
    message(WARNING "libtorch not found: training is disabled. Run scripts/setup.sh.")
    set(FLASHNERD_WITH_TORCH OFF)
  endif()
endif()

if(FLASHNERD_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(FLASHNERD_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()
