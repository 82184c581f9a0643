# Compile options applied to project targets only (third-party headers are SYSTEM).
add_library(flashnerd_options INTERFACE)
target_compile_options(flashnerd_options INTERFACE -Wall -Wextra -Wpedantic -Wno-unused-parameter)
if(FLASHNERD_WERROR)
  target_compile_options(flashnerd_options INTERFACE -Werror)
endif()
if(FLASHNERD_NATIVE)
  target_compile_options(flashnerd_options INTERFACE -march=native)
endif()
if(FLASHNERD_SANITIZE)
  target_compile_options(flashnerd_options INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_link_options(flashnerd_options INTERFACE -fsanitize=address,undefined)
endif()

# Helper: project library/executable with our options.
function(flashnerd_target target)
  target_link_libraries(${target} PRIVATE flashnerd_options)
endfunction()
