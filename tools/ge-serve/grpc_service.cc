#include "grpc_service.h"

#include <chrono>
#include <cstdio>
#include <cstring>

#include <grpcpp/grpcpp.h>

#include "ge/version.h"
#include "grpc_predict_v2.grpc.pb.h"
#include "protocol.h"

namespace ge::serve {
namespace {

grpc::Status to_grpc(const Status& status) {
  switch (status.code()) {
    case StatusCode::kOk: return grpc::Status::OK;
    case StatusCode::kNotFound: return {grpc::StatusCode::NOT_FOUND, status.message()};
    case StatusCode::kInvalidArgument:
    case StatusCode::kParseError: return {grpc::StatusCode::INVALID_ARGUMENT, status.message()};
    case StatusCode::kUnsupported: return {grpc::StatusCode::UNAVAILABLE, status.message()};
    case StatusCode::kCancelled: return {grpc::StatusCode::DEADLINE_EXCEEDED, status.message()};
    default: return {grpc::StatusCode::INTERNAL, status.message()};
  }
}

/// The HTTP status the metrics count a gRPC call under (as the REST API's).
int metric_code(const grpc::Status& status) {
  switch (status.error_code()) {
    case grpc::StatusCode::OK: return 200;
    case grpc::StatusCode::NOT_FOUND: return 404;
    case grpc::StatusCode::INVALID_ARGUMENT: return 400;
    case grpc::StatusCode::UNAVAILABLE: return 503;
    case grpc::StatusCode::DEADLINE_EXCEEDED: return 504;
    default: return 500;
  }
}

template <typename T, typename Repeated>
Status copy_contents(Tensor& tensor, const Repeated& values, const std::string& name) {
  if (static_cast<int64_t>(values.size()) != tensor.element_count()) {
    return invalid_argument("input '" + name + "' has " + std::to_string(values.size()) + " elements, its shape " +
                            std::to_string(tensor.element_count()));
  }
  T* out = tensor.data<T>();
  for (int i = 0; i < values.size(); ++i) out[i] = static_cast<T>(values[i]);
  return Status::ok();
}

/// The typed contents of an input (the protocol's InferTensorContents field for its
/// datatype) into `tensor`.
Status fill_from_contents(Tensor& tensor, const inference::InferTensorContents& c, const std::string& name) {
  switch (tensor.dtype()) {
    case DataType::kBool: return copy_contents<bool>(tensor, c.bool_contents(), name);
    case DataType::kInt8: return copy_contents<int8_t>(tensor, c.int_contents(), name);
    case DataType::kInt16: return copy_contents<int16_t>(tensor, c.int_contents(), name);
    case DataType::kInt32: return copy_contents<int32_t>(tensor, c.int_contents(), name);
    case DataType::kInt64: return copy_contents<int64_t>(tensor, c.int64_contents(), name);
    case DataType::kUInt8: return copy_contents<uint8_t>(tensor, c.uint_contents(), name);
    case DataType::kUInt16: return copy_contents<uint16_t>(tensor, c.uint_contents(), name);
    case DataType::kUInt32: return copy_contents<uint32_t>(tensor, c.uint_contents(), name);
    case DataType::kUInt64: return copy_contents<uint64_t>(tensor, c.uint64_contents(), name);
    case DataType::kFloat32: return copy_contents<float>(tensor, c.fp32_contents(), name);
    case DataType::kFloat64: return copy_contents<double>(tensor, c.fp64_contents(), name);
    case DataType::kString: return copy_contents<std::string>(tensor, c.bytes_contents(), name);
    default: return invalid_argument("input '" + name + "': send its datatype as raw_input_contents");
  }
}

}  // namespace

class GrpcServer::Service final : public inference::GRPCInferenceService::Service {
 public:
  Service(ModelRepository& repository, Metrics& metrics, Deadlines& deadlines, double run_timeout_seconds)
      : repository_(repository), metrics_(metrics), deadlines_(deadlines), run_timeout_seconds_(run_timeout_seconds) {}

  grpc::Status ServerLive(grpc::ServerContext*, const inference::ServerLiveRequest*,
                          inference::ServerLiveResponse* reply) override {
    reply->set_live(true);
    return grpc::Status::OK;
  }
  grpc::Status ServerReady(grpc::ServerContext*, const inference::ServerReadyRequest*,
                           inference::ServerReadyResponse* reply) override {
    reply->set_ready(repository_.all_ready());
    return grpc::Status::OK;
  }
  grpc::Status ModelReady(grpc::ServerContext*, const inference::ModelReadyRequest* request,
                          inference::ModelReadyResponse* reply) override {
    reply->set_ready(repository_.find(request->name(), request->version()).is_ok());
    return grpc::Status::OK;
  }
  grpc::Status ServerMetadata(grpc::ServerContext*, const inference::ServerMetadataRequest*,
                              inference::ServerMetadataResponse* reply) override {
    reply->set_name("ge-serve");
    reply->set_version(GE_VERSION_STRING);
    reply->add_extensions("model_repository");
    return grpc::Status::OK;
  }
  grpc::Status ModelMetadata(grpc::ServerContext*, const inference::ModelMetadataRequest* request,
                             inference::ModelMetadataResponse* reply) override {
    Result<std::shared_ptr<const LoadedModel>> model = repository_.find(request->name(), request->version());
    if (!model.is_ok()) return to_grpc(model.status());
    reply->set_name(request->name());
    reply->set_platform("ge_" + (*model)->platform);
    for (const ModelState& state : repository_.index()) {
      if (state.name == request->name() && state.state == "READY") reply->add_versions(state.version);
    }
    const Graph& graph = (*model)->session->graph();
    auto describe = [](const Value& v, inference::ModelMetadataResponse::TensorMetadata* out) {
      out->set_name(v.name());
      out->set_datatype(datatype_name(v.desc().dtype));
      if (v.desc().shape) {
        for (const Dim& d : *v.desc().shape) out->add_shape(d.is_static() ? d.value : -1);
      } else {
        out->add_shape(-1);
      }
    };
    for (const Value* v : graph.runtime_inputs()) describe(*v, reply->add_inputs());
    for (const Value* v : graph.outputs()) describe(*v, reply->add_outputs());
    return grpc::Status::OK;
  }
  grpc::Status ModelInfer(grpc::ServerContext*, const inference::ModelInferRequest* request,
                          inference::ModelInferResponse* reply) override {
    const auto start = std::chrono::steady_clock::now();
    metrics_.enter();
    const grpc::Status status = infer(*request, *reply);
    metrics_.leave();
    metrics_.observe(request->model_name(), metric_code(status),
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return status;
  }

 private:
  grpc::Status infer(const inference::ModelInferRequest& request, inference::ModelInferResponse& reply) {
    Result<std::shared_ptr<const LoadedModel>> model = repository_.find(request.model_name(), request.model_version());
    if (!model.is_ok()) return to_grpc(model.status());
    const Graph& graph = (*model)->session->graph();
    const bool raw = request.raw_input_contents_size() > 0;
    if (raw && request.raw_input_contents_size() != request.inputs_size()) {
      return to_grpc(invalid_argument(std::to_string(request.raw_input_contents_size()) + " raw_input_contents for " +
                                      std::to_string(request.inputs_size()) + " inputs"));
    }
    NamedTensors inputs;
    for (int i = 0; i < request.inputs_size(); ++i) {
      const auto& in = request.inputs(i);
      std::vector<int64_t> shape(in.shape().begin(), in.shape().end());
      Result<Tensor> tensor = checked_input_tensor(graph, in.name(), in.datatype(), shape);
      if (!tensor.is_ok()) return to_grpc(tensor.status());
      if (raw) {
        const std::string& bytes = request.raw_input_contents(i);
        if (tensor->dtype() == DataType::kString) return to_grpc(invalid_argument("input '" + in.name() + "': BYTES as raw contents are not served"));
        if (bytes.size() != tensor->byte_size()) {
          return to_grpc(invalid_argument("input '" + in.name() + "': " + std::to_string(bytes.size()) +
                                          " raw bytes, its shape holds " + std::to_string(tensor->byte_size())));
        }
        if (!bytes.empty()) std::memcpy(tensor->raw_data(), bytes.data(), bytes.size());
      } else if (Status filled = fill_from_contents(*tensor, in.contents(), in.name()); !filled.is_ok()) {
        return to_grpc(filled);
      }
      inputs.emplace_back(in.name(), std::move(tensor).value());
    }
    if (Status all = check_all_inputs(graph, inputs); !all.is_ok()) return to_grpc(all);
    std::vector<size_t> wanted;
    for (const auto& o : request.outputs()) {
      std::optional<size_t> index;
      for (size_t k = 0; k < graph.outputs().size(); ++k) {
        if (graph.outputs()[k]->name() == o.name()) index = k;
      }
      if (!index) return to_grpc(invalid_argument("the model has no output '" + o.name() + "'"));
      wanted.push_back(*index);
    }
    if (wanted.empty()) {
      for (size_t k = 0; k < graph.outputs().size(); ++k) wanted.push_back(k);
    }
    std::vector<Tensor> outputs;
    TimedRun timed(deadlines_, run_timeout_seconds_);
    if (Status run = (*model)->run(std::move(inputs), outputs, timed.options, timed.deadline); !run.is_ok()) {
      return to_grpc(run.code() == StatusCode::kCancelled
                         ? cancelled("the run took longer than the server's run timeout: " + run.message())
                         : run);
    }
    reply.set_model_name(request.model_name());
    reply.set_model_version((*model)->version);
    reply.set_id(request.id());
    for (size_t k : wanted) {
      const Tensor& t = outputs[k];
      auto* out = reply.add_outputs();
      out->set_name(graph.outputs()[k]->name());
      out->set_datatype(datatype_name(t.dtype()));
      for (int64_t d : t.shape()) out->add_shape(d);
      if (t.dtype() == DataType::kString) {
        for (const std::string& s : t.values<std::string>()) out->mutable_contents()->add_bytes_contents(s);
        reply.add_raw_output_contents();
      } else {
        reply.add_raw_output_contents(static_cast<const char*>(t.raw_data()), t.byte_size());
      }
    }
    return grpc::Status::OK;
  }

  ModelRepository& repository_;
  Metrics& metrics_;
  Deadlines& deadlines_;
  const double run_timeout_seconds_;
};

GrpcServer::GrpcServer(ModelRepository& repository, Metrics& metrics, Deadlines& deadlines, double run_timeout_seconds)
    : service_(std::make_unique<Service>(repository, metrics, deadlines, run_timeout_seconds)) {}

GrpcServer::~GrpcServer() { stop(); }

Status GrpcServer::start(const std::string& host, int port) {
  grpc::ServerBuilder builder;
  int selected = 0;
  builder.AddListeningPort(host + ":" + std::to_string(port), grpc::InsecureServerCredentials(), &selected);
  builder.RegisterService(service_.get());
  builder.SetMaxReceiveMessageSize(-1);
  server_ = builder.BuildAndStart();
  if (server_ == nullptr || selected == 0) {
    return invalid_argument("cannot serve gRPC on " + host + ":" + std::to_string(port) + " (in use, or not an address here)");
  }
  std::printf("ge-serve: gRPC listening on %s:%d\n", host.c_str(), selected);
  std::fflush(stdout);
  return Status::ok();
}

void GrpcServer::stop() {
  if (server_ != nullptr) {
    server_->Shutdown();
    server_.reset();
  }
}

}  // namespace ge::serve
