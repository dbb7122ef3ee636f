// warplens no-toolkit mode: everything this CUDA header would provide comes
// from the force-included cuda_prelude.h, so including it is harmless.
#pragma once
#include "../cuda_prelude.h"
