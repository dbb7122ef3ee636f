#include "server/features.h"

namespace warplens::server {

void register_features(ServerContext& ctx) {
  register_text_sync(ctx);
  register_configuration(ctx);
  register_diagnostics(ctx);
  register_status(ctx);
  register_hover(ctx);
  register_code_actions(ctx);
  register_code_lens(ctx);
  register_commands(ctx);
  register_occupancy(ctx);
  register_profile(ctx);
  register_report(ctx);
  register_kernel_view(ctx);
  register_optimize(ctx);
}

}  // namespace warplens::server
