// The toy device's contract, without GE's executor: memory reached through copies only,
// tasks in stream order, events across streams, a failing kernel's error at synchronize.
#include <cstdio>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <ge/graph.h>

#include "toy_device.h"
#include "toy_kernels.h"

namespace {

int failures = 0;
#define CHECK(condition)                                                                 \
  do {                                                                                   \
    if (!(condition)) {                                                                  \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #condition); \
      ++failures;                                                                        \
    }                                                                                    \
  } while (0)

/// A prepared Relu over `elements` float32 values.
ge::PreparedKernel relu_kernel(const toy::ToyDevice& device, int64_t elements) {
  ge::Graph graph("relu");
  ge::Value* x = graph.add_input("x", ge::TensorDesc::of(ge::DataType::kFloat32, {elements}));
  ge::Node* relu = graph.add_node("Relu", {x}, 1, "relu");
  relu->output(0)->set_desc(ge::TensorDesc::of(ge::DataType::kFloat32, {elements}));
  return toy::prepare_toy_kernel(*relu, device).value();
}

}  // namespace

int main() {
  toy::ToyDevice device(size_t{64} << 20);
  constexpr int64_t kElements = int64_t{4} << 20;  // 16 MiB: long enough for a wait to matter
  const size_t bytes = kElements * sizeof(float);
  void* x = device.allocate(bytes).value();
  void* y = device.allocate(bytes).value();
  void* z = device.allocate(bytes).value();
  CHECK(!device.allocate(size_t{64} << 20).is_ok());               // does not fit beside them
  CHECK(device.host_view(&failures, sizeof failures) == nullptr);  // a host pointer is no device address

  std::vector<float> host(kElements);
  for (int64_t i = 0; i < kElements; ++i) host[i] = i % 2 == 0 ? -1.0f : static_cast<float>(i);
  CHECK(device.copy_to_device(x, host.data(), bytes).is_ok());

  // Stream 0 runs the Relu and records; stream 1 waits, then copies its output.
  const ge::PreparedKernel relu = relu_kernel(device, kElements);
  std::unique_ptr<ge::Stream> first = device.create_stream().value(), second = device.create_stream().value();
  std::unique_ptr<ge::Event> done = device.create_event().value();
  const void* inputs[] = {x};
  void* outputs[] = {y};
  const ge::Task work[] = {
      ge::KernelTask{relu.function, {inputs, outputs, nullptr, relu.params.get()}, "toy.Relu", "Relu 'relu'"},
      ge::EventRecordTask{done.get()}};
  const ge::Task copy[] = {ge::EventWaitTask{done.get()}, ge::MemcpyTask{z, y, bytes}};
  CHECK(first->submit(work).is_ok());
  CHECK(second->submit(copy).is_ok());
  CHECK(second->synchronize().is_ok());
  CHECK(done->synchronize().is_ok());
  std::vector<float> result(kElements, -7.0f);
  CHECK(device.copy_to_host(result.data(), z, bytes).is_ok());
  bool relu_right = true;
  for (int64_t i = 0; i < kElements; ++i)
    relu_right = relu_right && result[i] == (i % 2 == 0 ? 0.0f : static_cast<float>(i));
  CHECK(relu_right);

  // A kernel whose output lies outside device memory fails on the stream; synchronize
  // reports it, the copy after it is skipped, and the stream then works again.
  void* outside[] = {static_cast<std::byte*>(z) + bytes + (size_t{64} << 20)};
  const ge::Task failing[] = {
      ge::KernelTask{relu.function, {inputs, outside, nullptr, relu.params.get()}, "toy.Relu", "Relu 'bad'"},
      ge::MemcpyTask{z, x, bytes}};
  CHECK(first->submit(failing).is_ok());
  const ge::Status error = first->synchronize();
  CHECK(!error.is_ok() && error.message().find("Relu 'bad'") != std::string::npos &&
        error.message().find("outside device memory") != std::string::npos);
  CHECK(device.copy_to_host(result.data(), z, sizeof(float)).is_ok() && result[0] == 0.0f);  // not x's -1
  CHECK(first->synchronize().is_ok());
  CHECK(first->run(std::span<const ge::Task>(copy + 1, 1)).is_ok());

  // A kernel not prepared by the toy backend is refused at submit.
  const ge::Task foreign[] = {ge::KernelTask{[](const ge::KernelArgs&) { return 0; }, {}, "other", nullptr}};
  CHECK(!first->submit(foreign).is_ok());

  for (void* p : {x, y, z}) device.deallocate(p);
  std::printf(failures == 0 ? "toy device: all checks passed\n" : "toy device: %d check(s) failed\n", failures);
  return failures == 0 ? 0 : 1;
}
