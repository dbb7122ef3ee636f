#include "agent/verifier/pytorch_reference.h"

#include <nlohmann/json.hpp>

#include "agent/verifier/subprocess.h"

namespace warplens::verifier {

namespace fs = std::filesystem;

fs::path find_pytorch_script() {
  std::vector<fs::path> candidates;
  if (const char* d = std::getenv("WARPLENS_DATA_DIR")) candidates.emplace_back(fs::path(d) / "pytorch_timing.py");
  candidates.push_back(self_executable_dir() / ".." / "share" / "warplens" / "pytorch_timing.py");
#ifdef WARPLENS_BUILD_DATA_DIR
  candidates.emplace_back(fs::path(WARPLENS_BUILD_DATA_DIR) / "pytorch_timing.py");
#endif
  for (const auto& c : candidates) {
    std::error_code ec;
    if (fs::exists(c, ec)) return fs::weakly_canonical(c, ec);
  }
  return {};
}

PytorchTiming parse_pytorch_output(const std::string& text) {
  PytorchTiming t;
  // The JSON document is the last non-empty line; anything the model
  // printed before it is ignored.
  std::size_t end = text.find_last_not_of(" \n\r\t");
  if (end == std::string::npos) {
    t.error = "the PyTorch timing script printed nothing";
    return t;
  }
  std::size_t start = text.rfind('\n', end);
  std::string line = text.substr(start == std::string::npos ? 0 : start + 1, end + 1 - (start == std::string::npos ? 0 : start + 1));
  try {
    auto j = nlohmann::json::parse(line);
    t.ok = j.value("ok", false);
    t.error = j.value("error", std::string());
    t.torch_version = j.value("torch_version", std::string());
    t.device = j.value("device", std::string());
    t.eager_us = j.value("eager_us", std::vector<double>{});
    t.eager_device_us = j.value("eager_device_us", std::vector<double>{});
    t.compiled_ok = j.value("compiled_ok", false);
    t.compile_error = j.value("compile_error", std::string());
    t.compiled_us = j.value("compiled_us", std::vector<double>{});
    t.compiled_device_us = j.value("compiled_device_us", std::vector<double>{});
  } catch (const std::exception& e) {
    t.ok = false;
    t.error = std::string("cannot read the PyTorch timing output: ") + e.what();
  }
  return t;
}

PytorchTiming time_pytorch_reference(const PytorchRequest& req, std::stop_token stop) {
  PytorchTiming t;
  fs::path script = req.script.empty() ? find_pytorch_script() : req.script;
  if (script.empty()) {
    t.error = "pytorch_timing.py not found (set WARPLENS_DATA_DIR)";
    return t;
  }
  std::error_code ec;
  if (!fs::exists(req.model, ec)) {
    t.error = "PyTorch reference " + req.model.string() + " does not exist";
    return t;
  }
  ProcessSpec spec;
  spec.argv = {req.python.empty() ? "python3" : req.python, script.string(), req.model.string(),
               "--runs", std::to_string(req.runs), "--warmup", std::to_string(req.warmup)};
  spec.timeout_s = req.timeout_s;
  spec.output_limit = 4 << 20;
  ProcessResult p = run_process(spec, stop);
  if (!p.started) {
    t.error = "cannot run python: " + p.start_error;
    return t;
  }
  t = parse_pytorch_output(p.out);
  t.wall_ms = p.wall_ms;
  if (!p.succeeded() && t.error.empty()) {
    t.ok = false;
    std::string tail = p.err.size() > 2000 ? p.err.substr(p.err.size() - 2000) : p.err;
    t.error = "the PyTorch timing script failed (" + p.describe() + "): " + tail;
  }
  return t;
}

}  // namespace warplens::verifier
