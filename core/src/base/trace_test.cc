// Tests of ChromeTrace: what it writes parses back as the Trace Event Format.

#include "ge/trace.h"

#include "ge/testing/fake_components.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <unistd.h>

namespace ge {
namespace {

using nlohmann::json;

/// The "M" event `what` for (pid, tid), or null.
const json* metadata(const json& events, const std::string& what, int pid, int tid) {
  for (const json& event : events) {
    if (event["ph"] == "M" && event["name"] == what && event["pid"] == pid && event["tid"] == tid) return &event;
  }
  return nullptr;
}

TEST(ChromeTrace, WritesNamedTracksOfCompleteEvents) {
  ChromeTrace trace;
  const int host = trace.add_process("ge-run");
  const int device = trace.add_process("npu_sim (simulated time)");
  const TraceTrack compile = trace.add_track(host, "compile");
  const TraceTrack stream0 = trace.add_track(device, "stream 0");
  const TraceTrack stream1 = trace.add_track(device, "stream 1");
  trace.add_event(compile, "parse", 0, 1500.5, "compile");
  trace.add_event(stream0, "Relu", 10, 2.25, "kernel", "Relu 'r1'");
  trace.add_event(stream1, "memcpy", 11, 0.5);
  trace.add_metadata("backend", std::string("npu_sim"));
  trace.add_metadata("runs", int64_t{3});
  EXPECT_EQ(trace.event_count(), 3u);

  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("ge_trace_test_" + std::to_string(getpid()) + ".json");
  ASSERT_TRUE(trace.write(file).is_ok());
  std::ifstream in(file);
  const json parsed = json::parse(in);
  std::filesystem::remove(file);

  ASSERT_TRUE(parsed.contains("traceEvents"));
  EXPECT_EQ(parsed["otherData"]["backend"], "npu_sim");
  EXPECT_EQ(parsed["otherData"]["runs"], 3);
  const json& events = parsed["traceEvents"];
  ASSERT_TRUE(events.is_array());
  std::map<std::string, json> complete;
  for (const json& event : events) {
    if (event["ph"] == "X") complete[event["name"].get<std::string>()] = event;
  }
  ASSERT_EQ(complete.size(), 3u);
  EXPECT_EQ(complete["parse"]["ts"], 0);
  EXPECT_DOUBLE_EQ(complete["parse"]["dur"].get<double>(), 1500.5);
  EXPECT_EQ(complete["parse"]["cat"], "compile");
  EXPECT_EQ(complete["parse"]["pid"], compile.process);
  EXPECT_EQ(complete["parse"]["tid"], compile.thread);
  EXPECT_DOUBLE_EQ(complete["Relu"]["ts"].get<double>(), 10);
  EXPECT_DOUBLE_EQ(complete["Relu"]["dur"].get<double>(), 2.25);
  EXPECT_EQ(complete["Relu"]["tid"], stream0.thread);
  EXPECT_EQ(complete["Relu"]["cat"], "kernel");
  EXPECT_EQ(complete["Relu"]["args"]["node"], "Relu 'r1'");
  EXPECT_FALSE(complete["memcpy"].contains("cat"));
  EXPECT_FALSE(complete["memcpy"].contains("args"));
  EXPECT_EQ(complete["memcpy"]["tid"], stream1.thread);
  EXPECT_EQ(complete["memcpy"]["pid"], device);

  // Every track is distinct and named; every process is named.
  EXPECT_NE(stream0.thread, stream1.thread);
  EXPECT_NE(compile.thread, stream0.thread);
  const json* name = metadata(events, "thread_name", host, compile.thread);
  ASSERT_NE(name, nullptr);
  EXPECT_EQ((*name)["args"]["name"], "compile");
  name = metadata(events, "thread_name", device, stream1.thread);
  ASSERT_NE(name, nullptr);
  EXPECT_EQ((*name)["args"]["name"], "stream 1");
  name = metadata(events, "process_name", device, 0);
  ASSERT_NE(name, nullptr);
  EXPECT_EQ((*name)["args"]["name"], "npu_sim (simulated time)");
  const json* order = metadata(events, "thread_sort_index", device, stream1.thread);
  ASSERT_NE(order, nullptr);
  EXPECT_EQ((*order)["args"]["sort_index"], 2);
}

TEST(ChromeTrace, EmptyTraceIsValid) {
  const json parsed = json::parse(ChromeTrace().to_json());
  ASSERT_TRUE(parsed["traceEvents"].is_array());
  EXPECT_TRUE(parsed["traceEvents"].empty());
}

TEST(ChromeTrace, InvalidUtf8NamesDoNotThrow) {
  ChromeTrace trace;
  trace.add_event(trace.add_track(trace.add_process("p"), "t"), std::string("bad\xff name"), 0, 1);
  const json parsed = json::parse(trace.to_json());
  EXPECT_EQ(parsed["traceEvents"].back()["ph"], "X");
}

TEST(DeviceTracing, DefaultIsUnsupportedNamingTheDevice) {
  testing::FakeDevice device;  // overrides none of the tracing virtuals
  const Status status = device.set_task_tracing(true);
  ASSERT_FALSE(status.is_ok());
  EXPECT_EQ(status.code(), StatusCode::kUnsupported);
  EXPECT_NE(status.message().find("device 'fake' cannot trace its tasks"), std::string::npos) << status.message();
  EXPECT_TRUE(device.set_task_tracing(false).is_ok()) << "turning off what never ran is fine";
  EXPECT_TRUE(device.take_task_trace().empty());
  EXPECT_FALSE(device.simulated_time());
}

TEST(ChromeTrace, UnwritablePathIsAnErrorNamingIt) {
  ChromeTrace trace;
  const Status status = trace.write("/nonexistent-dir/trace.json");
  ASSERT_FALSE(status.is_ok());
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("/nonexistent-dir/trace.json"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("No such file or directory"), std::string::npos) << status.message();
}

}  // namespace
}  // namespace ge
