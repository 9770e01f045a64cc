#!/usr/bin/env python3
"""ge-serve's throughput and latency (issue 42's benchmark): requests/s and p50/p99 latency
at 1, 4 and 16 concurrent clients over REST (binary tensor extension) and gRPC (raw
contents), against the same model run in-process (ge.Session.run) at batch 1, and with
dynamic batching on at 16 clients. Clients are Python threads on the same machine (their
cost is in the figures; on 2 cores they compete with the server).

  PYTHONPATH=build/release/lib/python3/dist-packages /usr/bin/python3 bench/serve/run_serve_bench.py \\
      --model ~/.cache/ge/zoo/mobilenet_v2/model.onnx [--seconds 10] [--clients 1,4,16] [--batch-model M]

--batch-model: a version of the model with a dynamic first dim, served with max_batch_size 8.
Needs the gRPC stubs (python3-grpc-tools) for the gRPC rows."""
import argparse
import concurrent.futures
import http.client
import json
import threading
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import ge

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def start(build, repo):
    process = subprocess.Popen([os.path.join(build, "bin", "ge-serve"), repo, "--port", "0", "--grpc-port", "0",
                                "--http-threads", "32"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    grpc_address = None
    while True:
        line = process.stdout.readline()
        if not line:
            raise RuntimeError("ge-serve did not start")
        if "gRPC listening on" in line:
            grpc_address = line.split()[-1]
        if "listening on http://" in line:
            return process, line.strip().split("http://")[1], grpc_address


def measure(call, clients, seconds):
    latencies = []
    end = time.perf_counter() + seconds

    def client(_):
        mine = []
        while time.perf_counter() < end:
            start = time.perf_counter()
            call()
            mine.append(time.perf_counter() - start)
        return mine

    start = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        for mine in pool.map(client, range(clients)):
            latencies.extend(mine)
    elapsed = time.perf_counter() - start
    latencies.sort()
    return len(latencies) / elapsed, latencies[len(latencies) // 2] * 1e3, latencies[int(len(latencies) * 0.99)] * 1e3


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--batch-model")
    parser.add_argument("--build", default=os.path.join(ROOT, "build", "release"))
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--clients", default="1,4,16")
    args = parser.parse_args()
    work = tempfile.mkdtemp()
    try:
        os.makedirs(os.path.join(work, "m", "1"))
        shutil.copy(args.model, os.path.join(work, "m", "1", "model.onnx"))
        if args.batch_model:
            os.makedirs(os.path.join(work, "b", "1"))
            shutil.copy(args.batch_model, os.path.join(work, "b", "1", "model.onnx"))
            with open(os.path.join(work, "b", "config.toml"), "w") as f:
                f.write("max_batch_size = 8\nbatch_delay_ms = 2\n")
        session = ge.Session(args.model)
        spec = session.inputs[0]
        shape = [d if isinstance(d, int) else 1 for d in spec.shape]
        x = np.random.default_rng(0).standard_normal(shape).astype(spec.dtype)
        feeds = {spec.name: x}
        print(f"model {args.model}: input {spec.name} {shape}; {os.cpu_count()} CPUs")
        print(f"{'path':<28} {'clients':>7} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8}")
        for clients in [int(c) for c in args.clients.split(",")]:
            rate, p50, p99 = measure(lambda: session.run(feeds), clients, args.seconds)
            print(f"{'in-process Session.run':<28} {clients:>7} {rate:>8.1f} {p50:>8.2f} {p99:>8.2f}", flush=True)
        del session
        server, address, grpc_address = start(args.build, work)
        try:
            local = threading.local()
            host, port = address.split(":")

            def rest(model="m"):
                # One kept-alive connection per client thread, as a serving client keeps.
                if not hasattr(local, "connection"):
                    local.connection = http.client.HTTPConnection(host, int(port))
                header = json.dumps({"inputs": [{"name": spec.name, "shape": shape, "datatype": "FP32",
                                                 "parameters": {"binary_data_size": x.nbytes}}],
                                     "parameters": {"binary_data_output": True}}).encode()
                local.connection.request("POST", f"/v2/models/{model}/infer", body=header + x.tobytes(),
                                         headers={"Inference-Header-Content-Length": str(len(header)),
                                                  "Content-Type": "application/octet-stream"})
                reply = local.connection.getresponse()
                reply.read()
                if reply.status != 200:
                    raise RuntimeError(f"HTTP {reply.status}")

            for clients in [int(c) for c in args.clients.split(",")]:
                rate, p50, p99 = measure(rest, clients, args.seconds)
                print(f"{'REST (binary)':<28} {clients:>7} {rate:>8.1f} {p50:>8.2f} {p99:>8.2f}", flush=True)
            stubs = os.path.join(args.build, "tests", "serve", "grpc_stubs")
            if grpc_address and os.path.isdir(stubs):
                sys.path.insert(0, stubs)
                import grpc
                import grpc_predict_v2_pb2 as pb
                import grpc_predict_v2_pb2_grpc as rpc
                stub = rpc.GRPCInferenceServiceStub(grpc.insecure_channel(grpc_address))

                def grpc_call(model="m"):
                    request = pb.ModelInferRequest(model_name=model, inputs=[
                        pb.ModelInferRequest.InferInputTensor(name=spec.name, datatype="FP32", shape=shape)])
                    request.raw_input_contents.append(x.tobytes())
                    stub.ModelInfer(request)

                for clients in [int(c) for c in args.clients.split(",")]:
                    rate, p50, p99 = measure(grpc_call, clients, args.seconds)
                    print(f"{'gRPC (raw)':<28} {clients:>7} {rate:>8.1f} {p50:>8.2f} {p99:>8.2f}", flush=True)
                if args.batch_model:
                    rate, p50, p99 = measure(lambda: grpc_call("b"), 16, args.seconds)
                    print(f"{'gRPC, batching up to 8':<28} {16:>7} {rate:>8.1f} {p50:>8.2f} {p99:>8.2f}", flush=True)
            if args.batch_model:
                rate, p50, p99 = measure(lambda: rest("b"), 16, args.seconds)
                print(f"{'REST, batching up to 8':<28} {16:>7} {rate:>8.1f} {p50:>8.2f} {p99:>8.2f}", flush=True)
        finally:
            server.terminate()
            server.wait()
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
