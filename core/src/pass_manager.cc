#include "ge/pass_manager.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>

#include "ge/graph_dot.h"
#include "ge/graph_text.h"
#include "ge/logging.h"
#include "ge/verifier.h"

namespace ge {

PassManager::PassManager(std::vector<PassInfo> available, const OpRegistry& ops, PassManagerOptions options)
    : available_(std::move(available)), ops_(ops), options_(std::move(options)) {}

Result<std::vector<std::string>> PassManager::pipeline() const {
  auto find = [this](const std::string& name) -> const PassInfo* {
    for (const PassInfo& p : available_) {
      if (p.name == name) return &p;
    }
    return nullptr;
  };
  auto known_names = [this] {
    std::string names;
    for (const PassInfo& p : available_) names += (names.empty() ? "" : ", ") + p.name;
    return names.empty() ? std::string("none") : names;
  };
  for (const std::string& name : options_.disabled_passes) {
    if (find(name) == nullptr) return not_found("--disable-pass " + name + ": no such pass (available: " + known_names() + ")");
  }
  std::vector<std::string> names;
  if (options_.explicit_passes) {
    for (const std::string& name : *options_.explicit_passes) {
      if (find(name) == nullptr) return not_found("--passes: no pass named '" + name + "' (available: " + known_names() + ")");
      if (!options_.disabled_passes.count(name)) names.push_back(name);
    }
    return names;
  }
  if (options_.opt_level < 0 || options_.opt_level > 3) {
    return invalid_argument("optimisation level -O" + std::to_string(options_.opt_level) + " is not one of -O0..-O3");
  }
  std::vector<const PassInfo*> enabled;
  for (const PassInfo& p : available_) {
    if (options_.opt_level >= p.min_opt_level && !options_.disabled_passes.count(p.name)) enabled.push_back(&p);
  }
  std::stable_sort(enabled.begin(), enabled.end(), [](const PassInfo* a, const PassInfo* b) {
    return a->order != b->order ? a->order < b->order : a->name < b->name;
  });
  for (const PassInfo* p : enabled) names.push_back(p->name);
  return names;
}

Status PassManager::dump(const Graph& graph, int step, const std::string& pass, const char* when) const {
  if (!options_.dump_dir) return Status::ok();
  std::error_code ec;
  std::filesystem::create_directories(*options_.dump_dir, ec);
  if (ec) return invalid_argument("--dump-graph: cannot create '" + options_.dump_dir->string() + "': " + ec.message());
  char prefix[32];
  std::snprintf(prefix, sizeof(prefix), "%03d_", step);
  const std::string stem = prefix + pass + "_" + when;
  for (const auto& [extension, text] : {std::pair<const char*, std::string>{".ir", print_graph(graph)},
                                        std::pair<const char*, std::string>{".dot", graph_to_dot(graph)}}) {
    std::filesystem::path path = *options_.dump_dir / (stem + extension);
    std::ofstream out(path);
    out << text;
    if (!out) return invalid_argument("--dump-graph: cannot write '" + path.string() + "'");
  }
  return Status::ok();
}

Status PassManager::run(Graph& graph, Backend* target_backend, Backend* reference_backend) {
  timings_.clear();
  GE_ASSIGN_OR_RETURN(std::vector<std::string> names, pipeline());
#ifndef NDEBUG
  const bool verify = true;  // debug builds always verify after each pass
#else
  const bool verify = options_.verify_each;
#endif
  PassContext context{&ops_, options_.opt_level, target_backend, reference_backend};
  int step = 0;
  for (const std::string& name : names) {
    const PassInfo& info = *std::find_if(available_.begin(), available_.end(), [&](const PassInfo& p) { return p.name == name; });
    std::unique_ptr<Pass> pass = info.create ? info.create() : nullptr;
    if (!pass) return internal_error("pass '" + name + "': its factory returned no pass");
    ++step;
    GE_RETURN_IF_ERROR(dump(graph, step, name, "before"));
    bool changed = false;
    const auto start = std::chrono::steady_clock::now();
    Status status = pass->run(graph, context, changed);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (!status.is_ok()) return status.with_context("pass '" + name + "'");
    if (changed) GE_RETURN_IF_ERROR(ops_.infer_graph(graph).with_context("after pass '" + name + "'"));
    timings_.push_back({name, ms, changed});
    GE_LOG_INFO("pass {:<24} {:>9.3f} ms {}", name, ms, changed ? "changed" : "unchanged");
    GE_RETURN_IF_ERROR(dump(graph, step, name, "after"));
    if (verify) GE_RETURN_IF_ERROR(verify_graph(graph).with_context("verifier after pass '" + name + "'"));
  }
  return Status::ok();
}

}  // namespace ge
