#pragma once
/// ge-serve's gRPC endpoint: the Open Inference Protocol's GRPCInferenceService
/// (grpc_predict_v2.proto) over the same model repository and metrics as the REST API.

#include <memory>
#include <string>

#include "model_repository.h"
#include "server.h"

namespace grpc {
class Server;
}

namespace ge::serve {

class GrpcServer {
 public:
  GrpcServer(ModelRepository& repository, Metrics& metrics, Deadlines& deadlines, double run_timeout_seconds);
  ~GrpcServer();
  /// Starts serving on host:port (0: any free port, printed); returns once listening.
  Status start(const std::string& host, int port);
  /// Stops; calls in flight finish first.
  void stop();

 private:
  class Service;
  std::unique_ptr<Service> service_;
  std::unique_ptr<grpc::Server> server_;
};

}  // namespace ge::serve
