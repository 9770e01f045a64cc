#include "model_repository.h"

#include <algorithm>
#include <system_error>

#include <toml++/toml.h>

#include "ge/input_shapes.h"
#include "ge/logging.h"
#include "ge/model_file.h"
#include "ge/precision.h"

namespace ge::serve {
namespace fs = std::filesystem;
namespace {

bool is_version(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// model.onnx, model.gem or model.pt in a version folder.
std::optional<std::pair<fs::path, std::string>> model_file(const fs::path& folder) {
  const std::pair<const char*, const char*> kinds[] = {{"model.gem", "gem"}, {"model.onnx", "onnx"}, {"model.pt", "torchscript"}};
  for (const auto& [file, platform] : kinds) {
    std::error_code error;
    if (fs::is_regular_file(folder / file, error)) return std::make_pair(folder / file, std::string(platform));
  }
  return std::nullopt;
}

}  // namespace

Result<ModelConfig> read_model_config(const fs::path& file) {
  ModelConfig config;
  std::error_code error;
  if (!fs::exists(file, error)) return config;
  toml::table table;
  try {
    table = toml::parse_file(file.string());
  } catch (const toml::parse_error& e) {
    return parse_error(file.string() + ": " + std::string(e.description()));
  }
  for (const auto& [key, node] : table) {
    const std::string k(key.str());
    auto bad_type = [&](const char* type) { return invalid_argument(file.string() + ": '" + k + "' must be " + type); };
    if (k == "backend" || k == "precision" || k == "input_shapes") {
      if (!node.is_string()) return bad_type("a string");
      const std::string value = *node.value<std::string>();
      if (k == "backend") config.backend = value;
      if (k == "precision") config.precision = value;
      if (k == "input_shapes") config.input_shapes = value;
    } else if (k == "threads" || k == "opt_level" || k == "max_batch_size" || k == "batch_delay_ms") {
      if (!node.is_integer()) return bad_type("an integer");
      const int64_t value = *node.value<int64_t>();
      if ((k == "max_batch_size" || k == "batch_delay_ms") && (value < 0 || value > 1000000)) {
        return invalid_argument(file.string() + ": '" + k + "' must be in [0, 1000000]");
      }
      if (k == "max_batch_size") config.max_batch_size = value;
      if (k == "batch_delay_ms") config.batch_delay_ms = value;
      if (k == "threads") config.threads = static_cast<int>(std::clamp<int64_t>(value, 0, 1024));
      if (k == "opt_level") {
        if (value < 0 || value > 3) return invalid_argument(file.string() + ": opt_level must be 0..3");
        config.opt_level = static_cast<int>(value);
      }
    } else {
      return invalid_argument(file.string() + ": unknown key '" + k +
                              "' (known: backend, threads, opt_level, precision, input_shapes, max_batch_size, batch_delay_ms)");
    }
  }
  if (!parse_precision(config.precision)) {
    return invalid_argument(file.string() + ": precision must be fp32, bf16 or mixed, not '" + config.precision + "'");
  }
  return config;
}

ModelRepository::ModelRepository(fs::path root, const PluginHost& host) : root_(std::move(root)), host_(host) {}

Result<std::vector<std::shared_ptr<const LoadedModel>>> ModelRepository::load_versions(const std::string& name) const {
  const fs::path folder = root_ / name;
  std::error_code error;
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == ".." || !fs::is_directory(folder, error)) {
    return not_found("the repository '" + root_.string() + "' has no model '" + name + "'");
  }
  GE_ASSIGN_OR_RETURN(ModelConfig config, read_model_config(folder / "config.toml"));
  std::vector<std::string> versions;
  for (const auto& entry : fs::directory_iterator(folder, error)) {
    if (entry.is_directory() && is_version(entry.path().filename().string())) versions.push_back(entry.path().filename().string());
  }
  std::sort(versions.begin(), versions.end(),
            [](const std::string& a, const std::string& b) { return a.size() != b.size() ? a.size() < b.size() : a < b; });
  if (versions.empty()) {
    return not_found("model '" + name + "' has no version folder (" + folder.string() + "/1/model.onnx, .gem or .pt)");
  }
  std::vector<std::shared_ptr<const LoadedModel>> loaded;
  for (const std::string& version : versions) {
    const auto file = model_file(folder / version);
    if (!file) return not_found("model '" + name + "' version " + version + " has no model.onnx, model.gem or model.pt");
    SessionOptions options;
    options.backend = config.backend;
    options.threads = config.threads;
    options.passes.opt_level = config.opt_level;
    options.precision = *parse_precision(config.precision);
    if (!config.input_shapes.empty()) {
      GE_ASSIGN_OR_RETURN(options.parse.input_shapes, parse_input_shapes(config.input_shapes));
    }
    auto model = std::make_shared<LoadedModel>();
    model->name = name;
    model->version = version;
    model->file = file->first;
    model->platform = file->second;
    Result<std::unique_ptr<Session>> session =
        file->second == "gem" ? create_session_from_model_file(host_, file->first, options)
                              : Session::create(host_, file->first, options);
    if (!session.is_ok()) return session.status().with_context("model '" + name + "' version " + version);
    model->session = std::move(session).value();
    if (config.max_batch_size > 0) {
      for (const Value* input : model->session->graph().runtime_inputs()) {
        const TensorDesc& desc = input->desc();
        if (!desc.shape || desc.shape->empty() || (*desc.shape)[0].is_static()) {
          return invalid_argument("model '" + name + "': max_batch_size needs every input's first dim dynamic, and input '" +
                                  input->name() + "' is " + desc.to_string());
        }
      }
      model->batcher = std::make_unique<Batcher>(*model->session, config.max_batch_size,
                                                 std::chrono::milliseconds(config.batch_delay_ms));
    }
    GE_LOG_INFO("ge-serve: loaded model '{}' version {} from {}", name, version, file->first.string());
    loaded.push_back(std::move(model));
  }
  return loaded;
}

size_t ModelRepository::load_all() {
  std::vector<std::string> names;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(root_, error)) {
    if (entry.is_directory()) names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  size_t ok = 0;
  for (const std::string& name : names) {
    const Status status = load(name);
    if (status.is_ok()) {
      ++ok;
    } else {
      GE_LOG_WARN("ge-serve: model '{}' is unavailable: {}", name, status.message());
    }
  }
  return ok;
}

Status ModelRepository::load(const std::string& name) {
  Result<std::vector<std::shared_ptr<const LoadedModel>>> versions = load_versions(name);
  std::lock_guard<std::mutex> lock(mutex_);
  if (!versions.is_ok()) {
    if (versions.status().code() != StatusCode::kNotFound || fs::is_directory(root_ / name)) {
      failures_[name] = versions.status().message();
      models_.erase(name);
    }
    return versions.status();
  }
  failures_.erase(name);
  models_[name] = std::move(versions).value();
  return Status::ok();
}

Status ModelRepository::unload(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (models_.erase(name) == 0) return not_found("model '" + name + "' is not loaded");
  failures_.erase(name);
  GE_LOG_INFO("ge-serve: unloaded model '{}'", name);
  return Status::ok();
}

Result<std::shared_ptr<const LoadedModel>> ModelRepository::find(const std::string& name, const std::string& version) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = models_.find(name);
  if (it == models_.end()) {
    if (auto failure = failures_.find(name); failure != failures_.end()) {
      return unsupported("model '" + name + "' is unavailable: " + failure->second);
    }
    std::string known;
    for (const auto& [n, v] : models_) known += (known.empty() ? "'" : ", '") + n + "'";
    return not_found("no model '" + name + "' is loaded (loaded: " + (known.empty() ? "none" : known) + ")");
  }
  if (version.empty()) return it->second.back();
  for (const auto& model : it->second) {
    if (model->version == version) return model;
  }
  return not_found("model '" + name + "' has no version '" + version + "'");
}

std::vector<ModelState> ModelRepository::index() const {
  std::vector<ModelState> states;
  std::lock_guard<std::mutex> lock(mutex_);
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(root_, error)) {
    if (!entry.is_directory()) continue;
    const std::string name = entry.path().filename().string();
    if (auto it = models_.find(name); it != models_.end()) {
      for (const auto& m : it->second) states.push_back({name, m->version, "READY", ""});
    } else if (auto f = failures_.find(name); f != failures_.end()) {
      states.push_back({name, "", "UNAVAILABLE", f->second});
    } else {
      states.push_back({name, "", "UNAVAILABLE", "unloaded"});
    }
  }
  std::sort(states.begin(), states.end(), [](const ModelState& a, const ModelState& b) {
    return a.name != b.name ? a.name < b.name : a.version < b.version;
  });
  return states;
}

std::vector<std::shared_ptr<const LoadedModel>> ModelRepository::loaded() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::shared_ptr<const LoadedModel>> all;
  for (const auto& [name, versions] : models_) all.insert(all.end(), versions.begin(), versions.end());
  return all;
}

bool ModelRepository::all_ready() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return failures_.empty();
}

}  // namespace ge::serve
