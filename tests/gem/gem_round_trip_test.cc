// Compile -> .gem -> load -> run equals a direct run, bit for bit, on the cpu backend; and
// a model whose required plugin is missing or has another version fails naming it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "ge/model_file.h"
#include "ge/pass_manager.h"
#include "ge/plugin_host.h"
#include "ge/session.h"

namespace ge {
namespace {

namespace fs = std::filesystem;

const PluginHost& host() {
  static PluginHost* instance = [] {
    auto* h = new PluginHost();
    const char* bin = std::getenv("GE_TEST_BIN_DIR");
    EXPECT_NE(bin, nullptr) << "GE_TEST_BIN_DIR is not set (run through ctest)";
    if (bin != nullptr) {
      EXPECT_TRUE(h->load_registry(fs::path(bin) / "ge_plugins.toml").is_ok());
    }
    return h;
  }();
  return *instance;
}

fs::path temp_file(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("ge_gem_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

std::vector<Tensor> run_session(Session& session) {
  Result<std::vector<std::pair<std::string, Tensor>>> inputs = make_check_inputs(session.graph(), {});
  EXPECT_TRUE(inputs.is_ok()) << inputs.status().to_string();
  std::vector<Tensor> outputs;
  Status status = session.run(*inputs, outputs);
  EXPECT_TRUE(status.is_ok()) << status.to_string();
  return outputs;
}

void expect_bitwise_equal(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t k = 0; k < a.size(); ++k) {
    ASSERT_EQ(a[k].dtype(), b[k].dtype()) << "output " << k;
    ASSERT_EQ(a[k].shape(), b[k].shape()) << "output " << k;
    if (a[k].dtype() == DataType::kString) {
      for (int64_t i = 0; i < a[k].element_count(); ++i)
        EXPECT_EQ(a[k].data<std::string>()[i], b[k].data<std::string>()[i]);
    } else {
      EXPECT_EQ(std::memcmp(a[k].raw_data(), b[k].raw_data(), a[k].byte_size()), 0) << "output " << k;
    }
  }
}

/// Compiles `model` the way ge-compile does and writes it with `info`.
fs::path compile(const fs::path& model, const std::string& name, ModelFileInfo info = {}) {
  Result<std::unique_ptr<Session>> compiled = Session::create(host(), model, SessionOptions{});
  EXPECT_TRUE(compiled.is_ok()) << compiled.status().to_string();
  if (!compiled.is_ok()) return {};
  if (info.plugins.empty()) info.plugins = required_plugins(host(), "cpu");
  const fs::path gem = temp_file(name + ".gem");
  Status written = write_model_file(gem, (*compiled)->graph(), info);
  EXPECT_TRUE(written.is_ok()) << written.to_string();
  return gem;
}

void expect_round_trip(const fs::path& model, const std::string& name) {
  SCOPED_TRACE(model.string());
  Result<std::unique_ptr<Session>> direct = Session::create(host(), model, SessionOptions{});
  ASSERT_TRUE(direct.is_ok()) << direct.status().to_string();
  const fs::path gem = compile(model, name);
  Result<std::unique_ptr<Session>> loaded = create_session_from_model_file(host(), gem, SessionOptions{});
  ASSERT_TRUE(loaded.is_ok()) << loaded.status().to_string();
  EXPECT_TRUE((*loaded)->pass_timings().empty()) << "loading must not run passes";
  expect_bitwise_equal(run_session(**direct), run_session(**loaded));
}

fs::path source_dir() {
  const char* dir = std::getenv("GE_SOURCE_DIR");
  return dir ? fs::path(dir) : fs::path(GE_SOURCE_DIR_FALLBACK);
}

TEST(GemRoundTrip, SmallCnn) { expect_round_trip(source_dir() / "samples/models/small_cnn.onnx", "small_cnn"); }

class GemConformance : public testing::TestWithParam<const char*> {};

TEST_P(GemConformance, EqualsDirectRun) {
  expect_round_trip(fs::path("/usr/share/libonnx-testdata/data/node") / GetParam() / "model.onnx", GetParam());
}

INSTANTIATE_TEST_SUITE_P(Node, GemConformance,
                         testing::Values("test_conv_with_strides_padding", "test_batchnorm_epsilon",
                                         "test_maxpool_2d_default", "test_gemm_default_single_elem_vector_bias",
                                         "test_softmax_axis_1", "test_if", "test_loop11", "test_matmul_2d",
                                         "test_concat_2d_axis_0", "test_transpose_default",
                                         "test_averagepool_2d_pads"));

TEST(GemPlugins, MissingPluginIsNamed) {
  ModelFileInfo info;
  info.plugins = required_plugins(host(), "cpu");
  ASSERT_FALSE(info.plugins.empty());
  info.plugins.push_back({"ge_ops_imaginary", "0.3.0", "op_library"});
  const fs::path gem = compile(source_dir() / "samples/models/small_cnn.onnx", "missing_plugin", info);
  Result<std::unique_ptr<Session>> loaded = create_session_from_model_file(host(), gem, SessionOptions{});
  ASSERT_FALSE(loaded.is_ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::kNotFound);
  EXPECT_NE(loaded.status().message().find("needs plugin 'ge_ops_imaginary' (op_library, version 0.3.0)"),
            std::string::npos)
      << loaded.status().message();
}

TEST(GemPlugins, OtherVersionIsNamed) {
  ModelFileInfo info;
  info.plugins = required_plugins(host(), "cpu");
  ASSERT_FALSE(info.plugins.empty());
  const std::string name = info.plugins[0].name;
  const std::string loaded_version = info.plugins[0].version;
  info.plugins[0].version = "999.0.0";
  const fs::path gem = compile(source_dir() / "samples/models/small_cnn.onnx", "other_version", info);
  Result<std::unique_ptr<Session>> loaded = create_session_from_model_file(host(), gem, SessionOptions{});
  ASSERT_FALSE(loaded.is_ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(loaded.status().message().find("compiled with plugin '" + name + "' version 999.0.0 but version " +
                                           loaded_version + " is loaded"),
            std::string::npos)
      << loaded.status().message();
}

TEST(GemPlugins, RequiredPluginsAreBackendAndOpLibraries) {
  for (const RequiredPlugin& p : required_plugins(host(), "cpu")) {
    EXPECT_TRUE(p.kind == "backend" || p.kind == "op_library") << p.name << " " << p.kind;
    EXPECT_FALSE(p.version.empty()) << p.name;
  }
}

TEST(GemLoad, OtherBackendIsRefused) {
  const fs::path gem = compile(source_dir() / "samples/models/small_cnn.onnx", "backend");
  SessionOptions options;
  options.backend = "npu_sim";
  Result<std::unique_ptr<Session>> loaded = create_session_from_model_file(host(), gem, options);
  ASSERT_FALSE(loaded.is_ok());
  EXPECT_NE(loaded.status().message().find("was compiled for backend 'cpu', not 'npu_sim'"), std::string::npos)
      << loaded.status().message();
}

TEST(GemLoad, CorruptFileOnDiskIsRefused) {
  const fs::path gem = compile(source_dir() / "samples/models/small_cnn.onnx", "corrupt");
  {
    std::fstream f(gem, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-3, std::ios::end);
    f.put('\x5a');
  }
  Result<std::unique_ptr<Session>> loaded = create_session_from_model_file(host(), gem, SessionOptions{});
  ASSERT_FALSE(loaded.is_ok());
  EXPECT_NE(loaded.status().message().find("checksum mismatch"), std::string::npos) << loaded.status().message();
}

}  // namespace
}  // namespace ge
