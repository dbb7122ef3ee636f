#include "profiler/inject/callback_dispatch.h"

#include <atomic>
#include <cstring>

namespace warplens::inject {
namespace {

constexpr CUpti_CallbackId kDriverLaunches[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
};

constexpr CUpti_CallbackId kRuntimeLaunches[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
    // The CUDA 13 runtime's own launch path for <<<>>>.
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
};

bool is_driver_launch(CUpti_CallbackId cbid) {
  for (CUpti_CallbackId id : kDriverLaunches)
    if (id == cbid) return true;
  return false;
}

bool is_runtime_launch(CUpti_CallbackId cbid) {
  for (CUpti_CallbackId id : kRuntimeLaunches)
    if (id == cbid) return true;
  return false;
}

// Per-thread nesting: runtime launch frames (outermost first) and the depth
// of driver launch calls (a driver launch that calls another is delivered once).
struct RuntimeFrame {
  std::uint32_t correlation_id = 0;
  bool saw_driver_launch = false;
  bool delivered = false;  // delivered at the runtime level (fallback)
};
thread_local std::vector<RuntimeFrame> t_runtime_frames;
thread_local int t_driver_depth = 0;

std::atomic<std::uint64_t> g_runtime_without_driver{0};
// Set once a runtime launch completed without a driver launch callback.
std::atomic<bool> g_deliver_runtime_launches{false};

}  // namespace

CallbackDispatcher& CallbackDispatcher::instance() {
  // Never destroyed: CUPTI may call back while the process tears down.
  static CallbackDispatcher* d = new CallbackDispatcher();
  return *d;
}

bool CallbackDispatcher::on_launch(LaunchHandler handler) {
  if (started_) return false;
  launch_handlers_.push_back(std::move(handler));
  return true;
}

bool CallbackDispatcher::on_resource(ResourceHandler handler) {
  if (started_) return false;
  resource_handlers_.push_back(std::move(handler));
  return true;
}

std::uint64_t CallbackDispatcher::runtime_launches_without_driver_callback() const {
  return g_runtime_without_driver.load();
}

CUptiResult CallbackDispatcher::start(std::string* other_subscriber) {
  if (started_) return CUPTI_SUCCESS;
  char old_name[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN] = {};
  CUpti_SubscriberParams params = {CUpti_SubscriberParams_STRUCT_SIZE};
  params.subscriberName = "warplens";
  params.oldSubscriberName = old_name;
  params.oldSubscriberSize = sizeof old_name;
  CUptiResult r = cuptiSubscribe_v2(&subscriber_, &CallbackDispatcher::on_callback, this, &params);
  if (r != CUPTI_SUCCESS) {
    if (other_subscriber) *other_subscriber = old_name;
    return r;
  }
  r = cuptiEnableDomain(1, subscriber_, CUPTI_CB_DOMAIN_RESOURCE);
  if (r != CUPTI_SUCCESS) return r;
  for (CUpti_CallbackId id : kDriverLaunches) {
    r = cuptiEnableCallback(1, subscriber_, CUPTI_CB_DOMAIN_DRIVER_API, id);
    if (r != CUPTI_SUCCESS) return r;
  }
  for (CUpti_CallbackId id : kRuntimeLaunches) {
    r = cuptiEnableCallback(1, subscriber_, CUPTI_CB_DOMAIN_RUNTIME_API, id);
    if (r != CUPTI_SUCCESS) return r;
  }
  started_ = true;
  return CUPTI_SUCCESS;
}

void CUPTIAPI CallbackDispatcher::on_callback(void* userdata, CUpti_CallbackDomain domain,
                                              CUpti_CallbackId cbid, const void* data) {
  auto* self = static_cast<CallbackDispatcher*>(userdata);
  if (!data) return;
  try {
    if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
      const auto& resource = *static_cast<const CUpti_ResourceData*>(data);
      for (const ResourceHandler& h : self->resource_handlers_) h(cbid, resource);
    } else if (domain == CUPTI_CB_DOMAIN_DRIVER_API && is_driver_launch(cbid)) {
      self->dispatch_driver_launch(cbid, *static_cast<const CUpti_CallbackData*>(data));
    } else if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && is_runtime_launch(cbid)) {
      self->dispatch_runtime_launch(cbid, *static_cast<const CUpti_CallbackData*>(data));
    }
  } catch (...) {
    // An exception must never unwind into the CUDA driver.
  }
}

void CallbackDispatcher::deliver(const LaunchCallback& cb) {
  if (cb.site == CUPTI_API_ENTER) {
    for (const LaunchHandler& h : launch_handlers_) h(cb);
  } else {
    for (auto it = launch_handlers_.rbegin(); it != launch_handlers_.rend(); ++it) (*it)(cb);
  }
}

void CallbackDispatcher::dispatch_runtime_launch(CUpti_CallbackId cbid, const CUpti_CallbackData& data) {
  LaunchCallback cb;
  cb.site = data.callbackSite;
  cb.domain = CUPTI_CB_DOMAIN_RUNTIME_API;
  cb.cbid = cbid;
  cb.data = &data;
  cb.runtime_correlation_id = data.correlationId;
  if (data.callbackSite == CUPTI_API_ENTER) {
    RuntimeFrame frame{data.correlationId, false, false};
    // Nested runtime launches (none are known) are left to the outer one.
    if (g_deliver_runtime_launches && t_runtime_frames.empty() && t_driver_depth == 0) {
      frame.delivered = true;
      t_runtime_frames.push_back(frame);
      deliver(cb);
      return;
    }
    t_runtime_frames.push_back(frame);
    return;
  }
  if (t_runtime_frames.empty()) return;
  RuntimeFrame frame = t_runtime_frames.back();
  t_runtime_frames.pop_back();
  if (frame.delivered) {
    deliver(cb);
    return;
  }
  if (!frame.saw_driver_launch) {
    ++g_runtime_without_driver;
    g_deliver_runtime_launches = true;
  }
}

void CallbackDispatcher::dispatch_driver_launch(CUpti_CallbackId cbid,
                                                const CUpti_CallbackData& data) {
  LaunchCallback cb;
  cb.site = data.callbackSite;
  cb.cbid = cbid;
  cb.data = &data;
  if (!t_runtime_frames.empty()) {
    RuntimeFrame& frame = t_runtime_frames.back();
    frame.saw_driver_launch = true;
    cb.runtime_correlation_id = frame.correlation_id;
    if (frame.delivered) return;  // already delivered at the runtime level
  }
  if (data.callbackSite == CUPTI_API_ENTER) {
    if (t_driver_depth++ != 0) return;
  } else {
    if (t_driver_depth == 0) return;  // entered before we subscribed
    if (--t_driver_depth != 0) return;
  }
  deliver(cb);
}

}  // namespace warplens::inject
