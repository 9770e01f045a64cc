/// ge-serve: serves a model repository over the Open Inference Protocol (KServe v2) REST
/// API. Usage: ge-serve REPOSITORY [--host H] [--port P] [...]; see --help.

#include <pthread.h>
#include <signal.h>

#include <charconv>
#include <cstdio>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "ge/logging.h"
#include "ge/plugin_host.h"
#include "model_repository.h"
#include "server.h"
#ifdef GE_SERVE_GRPC
#include "grpc_service.h"
#endif
#include "tool_driver.h"

namespace {

using namespace ge;

constexpr const char* kUsage = R"(usage: ge-serve REPOSITORY [options]

Serves every model of REPOSITORY (REPOSITORY/NAME/VERSION/model.onnx, model.gem or
model.pt; an optional REPOSITORY/NAME/config.toml with backend, threads, opt_level,
precision and input_shapes) over the Open Inference Protocol (KServe v2) REST API:
/v2/health/{live,ready}, /v2, /v2/models/NAME[/versions/V][/ready], .../infer (JSON
tensors and the binary tensor extension), /v2/repository/index and
/v2/repository/models/NAME/{load,unload}; and over gRPC (inference.GRPCInferenceService);
Prometheus metrics at /metrics. SIGTERM or
SIGINT stops it after the requests in flight.

  --host H                 address to listen on (default 127.0.0.1)
  --port P                 port (default 8000; 0: any free port, printed at start)
  --grpc-port P            the gRPC GRPCInferenceService's port (default 8001; 0: any
                           free port, printed; -1: no gRPC)
  --http-threads N         requests served at once (default 16)
  --max-request-bytes B    larger request bodies are refused with 413 (default 64M;
                           suffixes K, M, G)
  --request-timeout S      seconds to read a request or write a reply (default 60)
  --run-timeout S          a run still going after S seconds is cancelled: 504 (gRPC
                           DEADLINE_EXCEEDED) with the engine's message (default 60;
                           fractions allowed; 0: no limit; not for batched runs)
  --plugins FILE           plugin registry to load (repeatable), as ge-run
  -v                       access logs (GE_LOG_LEVEL=info does the same)
)";

Result<int64_t> parse_int(const std::string& option, const std::string& text, int64_t low, int64_t high) {
  int64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || value < low || value > high) {
    return invalid_argument(option + " expects an integer in [" + std::to_string(low) + ", " + std::to_string(high) +
                            "], got '" + text + "'");
  }
  return value;
}

Result<size_t> parse_bytes(const std::string& text) {
  if (text.empty()) return invalid_argument("--max-request-bytes expects a size");
  size_t scale = 1;
  std::string digits = text;
  const char suffix = static_cast<char>(std::toupper(static_cast<unsigned char>(text.back())));
  if (suffix == 'K' || suffix == 'M' || suffix == 'G') {
    scale = suffix == 'K' ? 1u << 10 : suffix == 'M' ? 1u << 20 : 1u << 30;
    digits.pop_back();
  }
  GE_ASSIGN_OR_RETURN(int64_t value, parse_int("--max-request-bytes", digits, 1, int64_t{1} << 40));
  return static_cast<size_t>(value) * scale;
}

struct Options {
  std::string repository;
  serve::ServerOptions server;
  int grpc_port = 8001;
  tools::SessionFlags flags;
  bool verbose = false;
};

Result<Options> parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    auto next = [&]() -> Result<std::string> {
      if (const size_t eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
        return arg.substr(eq + 1);
      }
      if (i + 1 >= argc) return invalid_argument("option " + arg + " expects a value");
      return std::string(argv[++i]);
    };
    const std::string name = arg.substr(0, arg.find('='));
    if (name == "--host") {
      GE_ASSIGN_OR_RETURN(o.server.host, next());
    } else if (name == "--port") {
      GE_ASSIGN_OR_RETURN(value, next());
      GE_ASSIGN_OR_RETURN(int64_t port, parse_int("--port", value, 0, 65535));
      o.server.port = static_cast<int>(port);
    } else if (name == "--grpc-port") {
      GE_ASSIGN_OR_RETURN(value, next());
      GE_ASSIGN_OR_RETURN(int64_t port, parse_int("--grpc-port", value, -1, 65535));
      o.grpc_port = static_cast<int>(port);
    } else if (name == "--http-threads") {
      GE_ASSIGN_OR_RETURN(value, next());
      GE_ASSIGN_OR_RETURN(int64_t n, parse_int("--http-threads", value, 1, 1024));
      o.server.http_threads = static_cast<int>(n);
    } else if (name == "--max-request-bytes") {
      GE_ASSIGN_OR_RETURN(value, next());
      GE_ASSIGN_OR_RETURN(o.server.max_request_bytes, parse_bytes(value));
    } else if (name == "--request-timeout") {
      GE_ASSIGN_OR_RETURN(value, next());
      GE_ASSIGN_OR_RETURN(int64_t s, parse_int("--request-timeout", value, 1, 86400));
      o.server.request_timeout_seconds = static_cast<int>(s);
    } else if (name == "--run-timeout") {
      GE_ASSIGN_OR_RETURN(value, next());
      char* end = nullptr;
      const double seconds = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || !(seconds >= 0) || seconds > 86400) {
        return invalid_argument("--run-timeout expects seconds in [0, 86400], got '" + value + "'");
      }
      o.server.run_timeout_seconds = seconds;
    } else if (name == "--plugins") {
      GE_ASSIGN_OR_RETURN(value, next());
      o.flags.plugin_files.emplace_back(value);
    } else if (arg == "-v" || arg == "--verbose") {
      o.verbose = true;
    } else if (arg == "-h" || arg == "--help") {
      std::cout << kUsage;
      std::exit(0);
    } else if (!arg.empty() && arg[0] == '-') {
      return invalid_argument("unknown option '" + arg + "' (see --help)");
    } else if (o.repository.empty()) {
      o.repository = arg;
    } else {
      return invalid_argument("one repository only, got '" + o.repository + "' and '" + arg + "'");
    }
  }
  if (o.repository.empty()) return invalid_argument("no model repository given (see --help)");
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  Result<Options> options = parse_options(argc, argv);
  if (!options.is_ok()) return tools::fail("ge-serve", options.status());
  if (options->verbose && std::getenv("GE_LOG_LEVEL") == nullptr) set_log_level("info");
  std::error_code error;
  if (!std::filesystem::is_directory(options->repository, error)) {
    return tools::fail("ge-serve", not_found("model repository '" + options->repository + "' is not a folder"));
  }
  // SIGTERM and SIGINT go to one thread (blocked in every other, which inherit the mask).
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);  // a client that disconnects mid-reply

  PluginHost host;
  if (Status status = tools::load_plugins(host, options->flags, tools::default_registry(argv[0])); !status.is_ok()) {
    return tools::fail("ge-serve", status);
  }
  serve::ModelRepository repository(options->repository, host);
  const size_t loaded = repository.load_all();
  std::printf("ge-serve: %zu model(s) loaded from %s\n", loaded, options->repository.c_str());
  std::fflush(stdout);
  serve::Server server(repository, options->server);
#ifdef GE_SERVE_GRPC
  serve::GrpcServer grpc(repository, server.metrics(), server.deadlines(), options->server.run_timeout_seconds);
  if (options->grpc_port >= 0) {
    if (Status status = grpc.start(options->server.host, options->grpc_port); !status.is_ok()) {
      return tools::fail("ge-serve", status);
    }
  }
#else
  if (options->grpc_port >= 0) std::printf("ge-serve: built without gRPC: REST only\n");
#endif
  std::thread stopper([&] {
    int signal_number = 0;
    sigwait(&stop_signals, &signal_number);
    std::printf("ge-serve: signal %d: stopping after the requests in flight\n", signal_number);
    std::fflush(stdout);
    server.stop();
#ifdef GE_SERVE_GRPC
    grpc.stop();
#endif
  });
  const Status status = server.run();
  if (!status.is_ok()) {
    pthread_kill(stopper.native_handle(), SIGTERM);
    stopper.join();
    return tools::fail("ge-serve", status);
  }
  stopper.join();
  std::printf("ge-serve: stopped\n");
  return 0;
}
