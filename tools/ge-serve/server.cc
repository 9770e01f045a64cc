#include "server.h"

#include <chrono>
#include <cstdio>
#include <sstream>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "ge/logging.h"
#include "ge/version.h"
#include "protocol.h"

namespace ge::serve {
namespace {

using nlohmann::json;

constexpr double kBounds[] = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

int http_code(const Status& status) {
  switch (status.code()) {
    case StatusCode::kCancelled: return 504;
    case StatusCode::kNotFound: return 404;
    case StatusCode::kInvalidArgument:
    case StatusCode::kParseError: return 400;
    case StatusCode::kUnsupported: return 503;
    default: return 500;
  }
}

void reply_json(httplib::Response& res, int code, const json& body) {
  res.status = code;
  res.set_content(body.dump(), "application/json");
}

void reply_error(httplib::Response& res, const Status& status) {
  reply_json(res, http_code(status), json{{"error", status.message()}});
}

/// (name, version) from a route's captures: /v2/models/NAME[/versions/VERSION]...
std::pair<std::string, std::string> model_of(const httplib::Request& req) {
  return {req.matches[1].str(), req.matches.size() > 2 ? req.matches[2].str() : std::string()};
}

}  // namespace

TimedRun::TimedRun(Deadlines& deadlines, double timeout_seconds) {
  if (timeout_seconds <= 0) return;
  options.cancellation = &token;
  deadline = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                    std::chrono::duration<double>(timeout_seconds));
  guard.emplace(deadlines, token, *deadline);
}

void Metrics::observe(const std::string& model, int code, double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  PerModel& m = models_[model];
  ++m.requests[code];
  if (m.buckets.empty()) m.buckets.assign(std::size(kBounds), 0);
  for (size_t i = 0; i < std::size(kBounds); ++i) {
    if (seconds <= kBounds[i]) ++m.buckets[i];
  }
  m.seconds += seconds;
  ++m.count;
}

std::string Metrics::text() const {
  std::ostringstream out;
  std::lock_guard<std::mutex> lock(mutex_);
  out << "# HELP ge_inference_requests_total Inference requests by model and HTTP status.\n"
      << "# TYPE ge_inference_requests_total counter\n";
  for (const auto& [model, m] : models_) {
    for (const auto& [code, n] : m.requests) {
      out << "ge_inference_requests_total{model=\"" << model << "\",code=\"" << code << "\"} " << n << "\n";
    }
  }
  out << "# HELP ge_inference_failures_total Inference requests that failed (4xx and 5xx) by model.\n"
      << "# TYPE ge_inference_failures_total counter\n";
  for (const auto& [model, m] : models_) {
    uint64_t failed = 0;
    for (const auto& [code, n] : m.requests) failed += code >= 400 ? n : 0;
    out << "ge_inference_failures_total{model=\"" << model << "\"} " << failed << "\n";
  }
  out << "# HELP ge_inference_request_duration_seconds Time from a request's arrival to its reply, by model.\n"
      << "# TYPE ge_inference_request_duration_seconds histogram\n";
  for (const auto& [model, m] : models_) {
    for (size_t i = 0; i < std::size(kBounds); ++i) {
      out << "ge_inference_request_duration_seconds_bucket{model=\"" << model << "\",le=\"" << kBounds[i] << "\"} "
          << m.buckets[i] << "\n";
    }
    out << "ge_inference_request_duration_seconds_bucket{model=\"" << model << "\",le=\"+Inf\"} " << m.count << "\n"
        << "ge_inference_request_duration_seconds_sum{model=\"" << model << "\"} " << m.seconds << "\n"
        << "ge_inference_request_duration_seconds_count{model=\"" << model << "\"} " << m.count << "\n";
  }
  out << "# HELP ge_inference_requests_in_flight Inference requests being served.\n"
      << "# TYPE ge_inference_requests_in_flight gauge\n"
      << "ge_inference_requests_in_flight " << in_flight_.load() << "\n";
  return out.str();
}

Server::Server(ModelRepository& repository, ServerOptions options)
    : repository_(repository), options_(std::move(options)), http_(std::make_unique<httplib::Server>()) {
  routes();
}

Server::~Server() = default;

void Server::routes() {
  httplib::Server& s = *http_;
  const int threads = std::max(1, options_.http_threads);
  s.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  s.set_payload_max_length(options_.max_request_bytes);
  s.set_tcp_nodelay(true);  // no 40 ms Nagle/delayed-ACK stall on kept-alive connections
  s.set_read_timeout(options_.request_timeout_seconds, 0);
  s.set_write_timeout(options_.request_timeout_seconds, 0);
  // One JSON object per request (structured access log), through GE's logger at info.
  s.set_logger([](const httplib::Request& req, const httplib::Response& res) {
    if (!logger().should_log(spdlog::level::info)) return;
    const json line = {{"remote", req.remote_addr}, {"method", req.method},       {"path", req.path},
                       {"status", res.status},      {"request_bytes", req.body.size()}, {"response_bytes", res.body.size()}};
    GE_LOG_INFO("access {}", line.dump());
  });
  s.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "unknown exception";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    reply_json(res, 500, json{{"error", "internal error: " + what}});
  });
  s.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    // cpp-httplib caps form bodies (curl -d's default type) at 8 KiB whatever the limit.
    const bool form = req.get_header_value("Content-Type").rfind("application/x-www-form-urlencoded", 0) == 0;
    const std::string message = res.status == 413 && form
                                    ? "a body sent as application/x-www-form-urlencoded (curl -d's default) is limited "
                                      "to 8192 bytes: send it as application/json (-H 'Content-Type: application/json')"
                                : res.status == 413 ? "the request body is larger than the server accepts"
                                : res.status == 404 ? "no endpoint " + req.method + " " + req.path
                                                    : "HTTP error " + std::to_string(res.status);
    reply_json(res, res.status, json{{"error", message}});
  });

  s.Get("/v2/health/live", [](const httplib::Request&, httplib::Response& res) { reply_json(res, 200, json{{"live", true}}); });
  s.Get("/v2/health/ready", [this](const httplib::Request&, httplib::Response& res) {
    const bool ready = repository_.all_ready();
    reply_json(res, ready ? 200 : 503, json{{"ready", ready}});
  });
  s.Get("/v2", [](const httplib::Request&, httplib::Response& res) {
    reply_json(res, 200, json{{"name", "ge-serve"}, {"version", GE_VERSION_STRING},
                              {"extensions", json::array({"binary_tensor_data", "model_repository"})}});
  });
  const std::string model_path = R"(/v2/models/([^/]+)(?:/versions/([^/]+))?)";
  s.Get(model_path, [this](const httplib::Request& req, httplib::Response& res) {
    const auto [name, version] = model_of(req);
    Result<std::shared_ptr<const LoadedModel>> model = repository_.find(name, version);
    if (!model.is_ok()) return reply_error(res, model.status());
    const Graph& graph = (*model)->session->graph();
    json inputs = json::array();
    json outputs = json::array();
    for (const Value* v : graph.runtime_inputs()) inputs.push_back(tensor_metadata(*v));
    for (const Value* v : graph.outputs()) outputs.push_back(tensor_metadata(*v));
    json versions = json::array();
    for (const ModelState& state : repository_.index()) {
      if (state.name == name && state.state == "READY") versions.push_back(state.version);
    }
    reply_json(res, 200, json{{"name", name}, {"versions", versions}, {"platform", "ge_" + (*model)->platform},
                              {"inputs", inputs}, {"outputs", outputs}});
  });
  s.Get(model_path + "/ready", [this](const httplib::Request& req, httplib::Response& res) {
    const auto [name, version] = model_of(req);
    const bool ready = repository_.find(name, version).is_ok();
    reply_json(res, ready ? 200 : 404, json{{"name", name}, {"ready", ready}});
  });
  s.Post(model_path + "/infer", [this](const httplib::Request& req, httplib::Response& res) {
    const auto start = std::chrono::steady_clock::now();
    const auto [name, version] = model_of(req);
    metrics_.enter();
    auto finish = [&] {
      metrics_.leave();
      metrics_.observe(name, res.status,
                       std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    };
    Result<std::shared_ptr<const LoadedModel>> model = repository_.find(name, version);
    if (!model.is_ok()) {
      reply_error(res, model.status());
      return finish();
    }
    // The binary tensor extension: the JSON header's length, the binary data after it.
    size_t header_length = req.body.size();
    if (req.has_header("Inference-Header-Content-Length")) {
      const std::string text = req.get_header_value("Inference-Header-Content-Length");
      char* end = nullptr;
      const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
      if (text.empty() || *end != '\0' || value > req.body.size()) {
        reply_error(res, invalid_argument("Inference-Header-Content-Length '" + text + "' is not a length within the body"));
        return finish();
      }
      header_length = static_cast<size_t>(value);
    }
    json request = json::parse(req.body.begin(), req.body.begin() + static_cast<std::ptrdiff_t>(header_length), nullptr,
                               /*allow_exceptions=*/false);
    if (request.is_discarded()) {
      reply_error(res, invalid_argument("the request body is not valid JSON"));
      return finish();
    }
    const Graph& graph = (*model)->session->graph();
    const std::string_view binary(req.body.data() + header_length, req.body.size() - header_length);
    Result<NamedTensors> inputs = parse_inputs(request, graph, binary);
    Result<std::vector<RequestedOutput>> wanted = inputs.is_ok() ? requested_outputs(request, graph)
                                                                 : Result<std::vector<RequestedOutput>>(inputs.status());
    if (!wanted.is_ok()) {
      reply_error(res, wanted.status());
      return finish();
    }
    std::vector<Tensor> outputs;
    TimedRun timed(deadlines_, options_.run_timeout_seconds);
    Status run = (*model)->run(std::move(inputs).value(), outputs, timed.options, timed.deadline);
    if (run.code() == StatusCode::kCancelled) {
      run = cancelled("the run took longer than the server's run timeout (" + std::to_string(options_.run_timeout_seconds) +
                      " s): " + run.message());
    }
    if (!run.is_ok()) {
      reply_error(res, run);
      return finish();
    }
    json response = {{"model_name", name}, {"model_version", (*model)->version}, {"outputs", json::array()}};
    if (request.contains("id")) response["id"] = request["id"];
    std::string binary_out;
    for (const RequestedOutput& o : *wanted) {
      Result<json> out = output_json(graph.outputs()[o.index]->name(), outputs[o.index], o.binary, binary_out);
      if (!out.is_ok()) {
        reply_error(res, out.status());
        return finish();
      }
      response["outputs"].push_back(std::move(out).value());
    }
    const std::string header = response.dump();
    if (binary_out.empty()) {
      res.status = 200;
      res.set_content(header, "application/json");
    } else {
      res.status = 200;
      res.set_header("Inference-Header-Content-Length", std::to_string(header.size()));
      res.set_content(header + binary_out, "application/octet-stream");
    }
    finish();
  });
  s.Post("/v2/repository/index", [this](const httplib::Request&, httplib::Response& res) {
    json index = json::array();
    for (const ModelState& m : repository_.index()) {
      json entry = {{"name", m.name}, {"state", m.state}};
      if (!m.version.empty()) entry["version"] = m.version;
      if (!m.reason.empty()) entry["reason"] = m.reason;
      index.push_back(entry);
    }
    reply_json(res, 200, index);
  });
  s.Post(R"(/v2/repository/models/([^/]+)/load)", [this](const httplib::Request& req, httplib::Response& res) {
    const Status status = repository_.load(req.matches[1].str());
    if (!status.is_ok()) return reply_error(res, status);
    reply_json(res, 200, json::object());
  });
  s.Post(R"(/v2/repository/models/([^/]+)/unload)", [this](const httplib::Request& req, httplib::Response& res) {
    const Status status = repository_.unload(req.matches[1].str());
    if (!status.is_ok()) return reply_error(res, status);
    reply_json(res, 200, json::object());
  });
  s.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    std::ostringstream batches;
    batches << "# HELP ge_batches_total Session runs of dynamically batched models, and what they served.\n"
            << "# TYPE ge_batches_total counter\n";
    for (const auto& model : repository_.loaded()) {
      if (!model->batcher) continue;
      const BatchStatistics b = model->batcher->statistics();
      const std::string labels = "{model=\"" + model->name + "\",version=\"" + model->version + "\"}";
      batches << "ge_batches_total" << labels << " " << b.batches << "\n"
              << "ge_batched_requests_total" << labels << " " << b.requests << "\n"
              << "ge_batched_rows_total" << labels << " " << b.rows << "\n"
              << "ge_batch_queue_seconds_total" << labels << " " << b.queue_seconds << "\n";
    }
    res.set_content(metrics_.text() + batches.str(), "text/plain; version=0.0.4");
  });
}

Status Server::run() {
  int port = options_.port;
  if (port == 0) {
    port = http_->bind_to_any_port(options_.host);
    if (port < 0) return invalid_argument("cannot bind " + options_.host + " to any port");
  } else if (!http_->bind_to_port(options_.host, port)) {
    return invalid_argument("cannot bind " + options_.host + ":" + std::to_string(port) + " (in use, or not an address here)");
  }
  std::printf("ge-serve: listening on http://%s:%d\n", options_.host.c_str(), port);
  std::fflush(stdout);
  if (!http_->listen_after_bind()) return internal_error("the HTTP server stopped with an error");
  return Status::ok();
}

void Server::stop() { http_->stop(); }

}  // namespace ge::serve
