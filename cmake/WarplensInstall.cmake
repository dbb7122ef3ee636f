# `cmake --install` and CPack (issue 18). The installed tree mirrors the
# build tree's layout relative to the binary, so the binary finds its parts
# the same way in both (see find_data_dir(), locate_injection_library(),
# find_replay_binary()):
#   <prefix>/bin/warplens                          the server and CLI
#   <prefix>/lib/warplens/libwarplens_inject.so    CUPTI injection library (profile, capture)
#   <prefix>/libexec/warplens/warplens-replay      the verifier's GPU side
#   <prefix>/share/warplens/                        CUDA shims, nvcc-compat, pytorch_timing.py
#   <prefix>/share/doc/warplens/                    README and docs
#   <prefix>/share/nvim/site/                       the Neovim plugin (lua/, plugin/)
# `warplens-runtime` builds exactly these (README command 1 builds only it).
include(GNUInstallDirs)

set(_runtime_targets warplens warplens_data)
install(TARGETS warplens RUNTIME DESTINATION bin)
if(TARGET warplens_inject)
  list(APPEND _runtime_targets warplens_inject)
  # The injection library is loaded into the user's program, which does not
  # know where CUPTI lives: keep the toolkit's CUPTI directory in its RUNPATH
  # once installed, as it is in the build tree.
  get_target_property(_cupti CUDA::cupti IMPORTED_LOCATION)
  if(_cupti)
    get_filename_component(_cupti_dir "${_cupti}" DIRECTORY)
    set_target_properties(warplens_inject PROPERTIES INSTALL_RPATH "${_cupti_dir}")
  endif()
  install(TARGETS warplens_inject LIBRARY DESTINATION lib/warplens)
endif()
if(TARGET warplens-replay)
  list(APPEND _runtime_targets warplens-replay)
  install(TARGETS warplens-replay RUNTIME DESTINATION libexec/warplens)
endif()
install(FILES ${PROJECT_SOURCE_DIR}/agent/verifier/pytorch_timing.py DESTINATION share/warplens)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION share/doc/warplens)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION share/doc/warplens/docs)
if(EXISTS ${PROJECT_SOURCE_DIR}/editors/nvim/lua)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/editors/nvim/lua DESTINATION share/nvim/site)
endif()
if(EXISTS ${PROJECT_SOURCE_DIR}/editors/nvim/plugin)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/editors/nvim/plugin DESTINATION share/nvim/site)
endif()
add_custom_target(warplens-runtime DEPENDS ${_runtime_targets})

# CPack: `cpack -G DEB` (or `cmake --build build --target package`) writes
# build/warplens_<version>_<arch>.deb. The dependencies are Debian 12's
# packages for the shared libraries the binary links (ldd build/bin/warplens)
# and libclang-common-19-dev, which holds clang's resource directory (the
# CUDA wrapper headers every parse includes);
# the CUDA toolkit and the driver are not Debian packages on most machines
# (NVIDIA's installers put them in /usr/local/cuda), so they are recommended
# in the description rather than depended on.
set(CPACK_PACKAGE_NAME warplens)
set(CPACK_PACKAGE_VENDOR "warplens")
set(CPACK_PACKAGE_CONTACT "warplens maintainers <warplens@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Language server that makes CUDA kernels fast from inside the editor")
set(CPACK_PACKAGE_DESCRIPTION
  "Static performance diagnostics for CUDA (coalescing, bank conflicts, occupancy,\n divergence), CUPTI profiling and GPU-verified kernel rewrites, over LSP and a CLI.\n Profiling and optimizing need the CUDA toolkit (/usr/local/cuda) and an NVIDIA driver.")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_DEPENDS
  "libc6, libstdc++6, libclang-cpp19, libllvm19, libclang-common-19-dev, libspdlog1.10 | libspdlog1.12 | libspdlog1, libfmt9 | libfmt10, libssl3 | libssl3t64")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "clang-19")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "neovim")
set(CPACK_STRIP_FILES ON)
include(CPack)
