# cmake --install [--prefix P]: for C++ consumers the core, engine, sim, env and policy
# libraries (static; none needs libtorch),
# their headers under include/flashnerd, an exported flashnerdConfig.cmake
# (find_package(flashnerd); target_link_libraries(app flashnerd::engine) pulls in every
# dependency) and a pkg-config file; for everyone the CLI, the built-in robots and the
# Python package (into the interpreter's dist-packages under the prefix).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
set(FLASHNERD_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/flashnerd)

set_target_properties(flashnerd_core PROPERTIES EXPORT_NAME core)
set_target_properties(flashnerd_engine PROPERTIES EXPORT_NAME engine)
set_target_properties(flashnerd_sim PROPERTIES EXPORT_NAME sim)        # MuJoCo robots
set_target_properties(flashnerd_env PROPERTIES EXPORT_NAME env)        # tasks, backends, VecEnv
set_target_properties(flashnerd_policy PROPERTIES EXPORT_NAME policy)  # trained policies (a deployment loop)
set_target_properties(flashnerd_options PROPERTIES EXPORT_NAME options)  # link-only (sanitizer builds)
install(TARGETS flashnerd_core flashnerd_engine flashnerd_sim flashnerd_env flashnerd_policy flashnerd_options
  EXPORT flashnerdTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY src/core/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/flashnerd/core FILES_MATCHING PATTERN "*.h")
install(DIRECTORY src/sim/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/flashnerd/sim FILES_MATCHING PATTERN "*.h")
install(DIRECTORY src/env/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/flashnerd/env FILES_MATCHING PATTERN "*.h")
install(FILES src/rl/policy.h src/rl/policy_eval.h src/rl/policy_onnx.h src/rl/observation_normalizer.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/flashnerd/rl)
install(FILES src/engine/engine.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/flashnerd/engine)
install(FILES src/engine/isa.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/flashnerd/engine)
install(EXPORT flashnerdTargets NAMESPACE flashnerd:: DESTINATION ${FLASHNERD_CMAKE_DIR})
configure_package_config_file(cmake/flashnerdConfig.cmake.in ${PROJECT_BINARY_DIR}/flashnerdConfig.cmake
  INSTALL_DESTINATION ${FLASHNERD_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/flashnerdConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/flashnerdConfig.cmake ${PROJECT_BINARY_DIR}/flashnerdConfigVersion.cmake
  DESTINATION ${FLASHNERD_CMAKE_DIR})

# pkg-config: static libraries, so Libs lists their dependencies too; paths are relative to
# the .pc file, so an installed tree can move
set(FLASHNERD_PC_DEPS "")
foreach(lib ${DNNL_LIBRARY} ${OpenMP_gomp_LIBRARY} ${OPENBLAS_LIBRARY} ${HDF5_C_LIBRARIES} ${ZLIB_LIBRARIES} ${PNG_LIBRARIES})
  string(APPEND FLASHNERD_PC_DEPS " ${lib}")
endforeach()
string(REGEX REPLACE "[^/]+" ".." FLASHNERD_PC_UP "${CMAKE_INSTALL_LIBDIR}/pkgconfig")  # back to the prefix
configure_file(cmake/flashnerd.pc.in ${PROJECT_BINARY_DIR}/flashnerd.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/flashnerd.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

install(TARGETS flashnerd RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY robots/ DESTINATION ${CMAKE_INSTALL_DATADIR}/flashnerd/robots)
install(FILES python/flashnerd/plot.py DESTINATION ${CMAKE_INSTALL_DATADIR}/flashnerd)
