# Clang 19 LibTooling. Pinned to 19.1: `find_package(Clang 19)` is rejected by
# the version file, and an unversioned search may find clang 14 (installed on
# the same machines) and fail on missing static libraries.
find_package(LLVM 19.1 REQUIRED CONFIG HINTS /usr/lib/llvm-19/lib/cmake/llvm)
find_package(Clang 19.1 REQUIRED CONFIG HINTS /usr/lib/llvm-19/lib/cmake/clang)
message(STATUS "warplens: LLVM ${LLVM_PACKAGE_VERSION} from ${LLVM_DIR}")

# The clang resource directory is baked in at configure time: a LibTooling
# binary would otherwise derive <bindir>/../lib/clang/19, which does not exist,
# and silently lose the cuda_wrappers headers. Overridable at run time with
# WARPLENS_CLANG_RESOURCE_DIR.
set(WARPLENS_CLANG_RESOURCE_DIR "" CACHE PATH "clang resource dir (auto if empty)")
if(NOT WARPLENS_CLANG_RESOURCE_DIR)
  find_program(WARPLENS_CLANG19 NAMES clang-19 clang HINTS ${LLVM_TOOLS_BINARY_DIR} NO_DEFAULT_PATH)
  if(WARPLENS_CLANG19)
    execute_process(COMMAND ${WARPLENS_CLANG19} -print-resource-dir
      OUTPUT_VARIABLE _rd OUTPUT_STRIP_TRAILING_WHITESPACE)
    set(WARPLENS_CLANG_RESOURCE_DIR "${_rd}")
  endif()
  if(NOT EXISTS "${WARPLENS_CLANG_RESOURCE_DIR}/include/__clang_cuda_runtime_wrapper.h")
    set(WARPLENS_CLANG_RESOURCE_DIR "${LLVM_LIBRARY_DIR}/clang/${LLVM_VERSION_MAJOR}")
  endif()
endif()
if(NOT EXISTS "${WARPLENS_CLANG_RESOURCE_DIR}/include/__clang_cuda_runtime_wrapper.h")
  message(FATAL_ERROR "no CUDA wrappers in ${WARPLENS_CLANG_RESOURCE_DIR}: install libclang-common-19-dev")
endif()
message(STATUS "warplens: clang resource dir ${WARPLENS_CLANG_RESOURCE_DIR}")

separate_arguments(WARPLENS_LLVM_DEFINITIONS NATIVE_COMMAND "${LLVM_DEFINITIONS}")

# Apply to the few targets whose sources include Clang headers.
function(warplens_use_clang target)
  target_include_directories(${target} SYSTEM PRIVATE ${LLVM_INCLUDE_DIRS} ${CLANG_INCLUDE_DIRS})
  target_compile_definitions(${target} PRIVATE ${WARPLENS_LLVM_DEFINITIONS}
    WARPLENS_CLANG_RESOURCE_DIR="${WARPLENS_CLANG_RESOURCE_DIR}")
  # Debian builds LLVM and Clang as two shared libraries.
  target_link_libraries(${target} PUBLIC clang-cpp LLVM)
endfunction()
