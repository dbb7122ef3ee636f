// Loads libwarplens_inject.so the way the CUDA driver does (dlopen, then
// InitializeInjection) in a process that never touches a GPU, and exits:
// the smoke test checks what the library wrote at exit.
// Exit codes: 0 loaded and initialised, 2 dlopen failed, 3 no entry point,
// 4 InitializeInjection reported failure, 5 an internal symbol is exported.
#include <dlfcn.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    std::fprintf(stderr, "dlopen: %s\n", dlerror());
    return 2;
  }
  auto init = reinterpret_cast<int (*)()>(dlsym(lib, "InitializeInjection"));
  if (!init) return 3;
  // The library lives in someone else's process: nothing but the entry point
  // may be visible (here: the dispatcher's singleton accessor).
  if (dlsym(lib, "_ZN8warplens6inject18CallbackDispatcher8instanceEv")) return 5;
  if (init() == 0) return 4;
  return 0;
}
