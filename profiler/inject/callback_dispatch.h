// The injection library's single CUPTI subscriber and the dispatcher that
// forwards its callbacks to the modules that need them.
//
// CUPTI allows one subscriber per process, so no module calls
// cuptiSubscribe itself: each registers handlers here (before start(), from
// InitializeInjection) and the dispatcher calls them in registration order
// at a launch's entry and in reverse order at its exit, so brackets nest
// (a module registered later runs inside the brackets of earlier ones).
//
// Launches are delivered at the driver level (cuLaunchKernel, cuLaunchKernelEx,
// cuLaunchCooperativeKernel and their _ptsz variants), where the CUfunction,
// the parameter buffer and the context are available; a runtime launch
// (cudaLaunchKernel, <<<>>>) reaches the driver and is delivered there, once.
// The enclosing runtime call's correlation id rides along, because the
// Activity API may report either id for the kernel.
//
// Should a runtime launch ever complete without a nested driver launch
// callback (a runtime that bypasses the public driver entry points), the
// dispatcher delivers later runtime launches at the runtime level instead
// (`domain` says which; the data is then a runtime callback's), so launches
// are still seen; runtime_launches_without_driver_callback() counts them.
//
// Handlers run on the thread that launches, inside the CUDA API call: they
// may call the driver (cuCtxSynchronize, cuMemcpy*), must be thread-safe,
// and must not throw.
#pragma once

#include <cuda.h>
#include <cupti.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace warplens::inject {

struct LaunchCallback {
  CUpti_ApiCallbackSite site = CUPTI_API_ENTER;  // CUPTI_API_ENTER or CUPTI_API_EXIT
  CUpti_CallbackDomain domain = CUPTI_CB_DOMAIN_DRIVER_API;  // RUNTIME_API only in the fallback
  CUpti_CallbackId cbid = 0;                     // CUPTI_DRIVER_TRACE_CBID_cuLaunch*
  // Driver callback data: functionParams (cuLaunchKernel_params,
  // cuLaunchKernelEx_params, ... from generated_cuda_meta.h), symbolName
  // (mangled kernel name), context, correlationId, functionReturnValue (exit).
  const CUpti_CallbackData* data = nullptr;
  std::uint32_t runtime_correlation_id = 0;      // enclosing runtime launch, 0 if none

  const char* kernel_name() const { return data && data->symbolName ? data->symbolName : ""; }
  CUcontext context() const { return data ? data->context : nullptr; }
  // Whether the launch call succeeded; meaningful at exit only. (CUresult
  // and cudaError_t both use 0 for success.)
  bool succeeded() const {
    return !data || !data->functionReturnValue || *static_cast<const int*>(data->functionReturnValue) == 0;
  }
};

using LaunchHandler = std::function<void(const LaunchCallback&)>;
// CUPTI_CBID_RESOURCE_* with its CUpti_ResourceData (module loads, context
// creation and destruction).
using ResourceHandler = std::function<void(CUpti_CallbackId, const CUpti_ResourceData&)>;

class CallbackDispatcher {
 public:
  static CallbackDispatcher& instance();

  // Register before start(). Returns false (and ignores the handler) after.
  bool on_launch(LaunchHandler handler);
  bool on_resource(ResourceHandler handler);

  // Subscribes and enables the launch and resource callbacks. On failure
  // returns the CUPTI result and, for CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED,
  // the other subscriber's name in `other_subscriber` when CUPTI tells it.
  CUptiResult start(std::string* other_subscriber);
  bool started() const { return started_; }

  // Runtime launches that reached no driver launch callback (they were
  // traced by the Activity API but could not be measured per launch).
  std::uint64_t runtime_launches_without_driver_callback() const;

 private:
  CallbackDispatcher() = default;
  static void CUPTIAPI on_callback(void* userdata, CUpti_CallbackDomain domain,
                                   CUpti_CallbackId cbid, const void* data);
  void dispatch_driver_launch(CUpti_CallbackId cbid, const CUpti_CallbackData& data);
  void dispatch_runtime_launch(CUpti_CallbackId cbid, const CUpti_CallbackData& data);
  void deliver(const LaunchCallback& cb);

  std::vector<LaunchHandler> launch_handlers_;
  std::vector<ResourceHandler> resource_handlers_;
  CUpti_SubscriberHandle subscriber_ = nullptr;
  bool started_ = false;
};

}  // namespace warplens::inject
