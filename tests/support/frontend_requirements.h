// The "clang-front-end" requirement (tests/support/requirements.h): the
// Clang front end, i.e. a -DWARPLENS_WITH_CLANG=ON build. Its own header
// because the check calls frontend_available(), which only executables that
// link the front-end library (or its no-Clang stand-in) define; the core
// analysis tests link neither.
#pragma once

#include "analysis/analyzer.h"
#include "tests/support/requirements.h"

namespace warplens::test {

WARPLENS_REQUIREMENT("clang-front-end", [] {
  return frontend_available() ? met() : missing("built without the Clang front end (-DWARPLENS_WITH_CLANG=OFF)");
});

}  // namespace warplens::test
