# Project-wide warnings, applied per target with warplens_warnings(target).
function(warplens_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter)
  # GCC 12 only: its -Wrestrict and -Warray-bounds fire inside libstdc++'s own
  # std::string (char_traits.h memcpy/memmove after inlining operator+ and
  # insert; GCC bugs 105329 and 105651, fixed in GCC 13) on code that
  # does nothing unusual. Switched off for that compiler alone so that a clean
  # build prints no warning and a real one stands out; other compilers and
  # versions keep both.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 12
     AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE -Wno-restrict -Wno-array-bounds)
  endif()
endfunction()

# A library of the project: includes from the repository root.
function(warplens_library name)
  cmake_parse_arguments(A "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${A_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${A_DEPS})
  warplens_warnings(${name})
endfunction()
