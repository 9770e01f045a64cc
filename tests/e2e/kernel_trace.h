#pragma once
// Which kernel the device ran for a node: one run of a session with the device's task
// tracing on (the trace records each kernel task's node, "Conv 'conv'").

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ge/session.h"
#include "plugin_test_env.h"

namespace ge::e2e_testing {

/// The kernel name of the first task of the node named `node` (its name in quotes, as
/// Node::describe writes it) in one run of `session` on `inputs`; its outputs into
/// `outputs` when given. A failure of the run or no such task fails the test.
inline std::string kernel_of_node(Session& session, const NamedTensors& inputs, const std::string& node,
                                  std::vector<Tensor>* outputs = nullptr) {
  Result<Backend*> backend = pass_testing::PluginEnvironment::get().host().backend(session.backend_name());
  EXPECT_TRUE(backend.is_ok());
  if (!backend.is_ok()) return {};
  Device& device = (*backend)->device();
  EXPECT_TRUE(device.set_task_tracing(true).is_ok());
  std::vector<Tensor> result;
  const Status status = session.run(inputs, result);
  const std::vector<TaskTraceRecord> trace = device.take_task_trace();
  (void)device.set_task_tracing(false);
  EXPECT_TRUE(status.is_ok()) << status.to_string();
  if (outputs != nullptr) *outputs = std::move(result);
  const std::string quoted = "'" + node + "'";
  for (const TaskTraceRecord& task : trace) {
    if (task.node.find(quoted) != std::string::npos) return task.name;
  }
  ADD_FAILURE() << "no kernel of node " << quoted << " ran";
  return {};
}

}  // namespace ge::e2e_testing
