"""ge-serve end to end on loopback: the Open Inference Protocol's REST endpoints queried
with urllib, requests and curl, outputs checked against ge-run, every bad input of issue
42, a bounded load test, repository load/unload, metrics and SIGTERM. ctest sets
GE_BUILD_DIR (the build tree) and GE_SOURCE_DIR."""
import concurrent.futures
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import time
import unittest
import urllib.error
import urllib.request

import numpy as np

BUILD = os.environ.get("GE_BUILD_DIR", "build/release")
SOURCE = os.environ.get("GE_SOURCE_DIR", ".")
BIN = os.path.join(BUILD, "bin")
SAMPLE = os.path.join(SOURCE, "samples", "models", "small_cnn.onnx")


def start_server(repo, *args, grpc_address=None):
    """(process, REST address); with grpc_address=[] the gRPC address is appended to it."""
    grpc_port = ["--grpc-port", "0" if grpc_address is not None else "-1"]
    process = subprocess.Popen([os.path.join(BIN, "ge-serve"), repo, "--port", "0", *grpc_port, *args],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        if "gRPC listening on" in line and grpc_address is not None:
            grpc_address.append(line.strip().split()[-1])
        if "listening on http://" in line:
            return process, line.strip().split("http://")[1]
    process.kill()
    raise RuntimeError("ge-serve did not start: " + process.stderr.read())


def call(address, path, body=None, method=None, headers=None, raw=False):
    """(status, parsed JSON or raw bytes, headers)."""
    data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
    headers = dict({"Content-Type": "application/json"}, **(headers or {}))
    request = urllib.request.Request(f"http://{address}{path}", data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            payload = response.read()
            return response.status, payload if raw else json.loads(payload), dict(response.headers)
    except urllib.error.HTTPError as e:
        payload = e.read()
        return e.code, json.loads(payload) if payload and not raw else payload, dict(e.headers)


def ge_run_output(model, x, work):
    np.save(os.path.join(work, "x.npy"), x)
    out = os.path.join(work, "out")
    subprocess.run([os.path.join(BIN, "ge-run"), model, "--input", f"input={os.path.join(work, 'x.npy')}",
                    "--output-dir", out], check=True, capture_output=True)
    from onnx import TensorProto, numpy_helper
    tensor = TensorProto()
    with open(os.path.join(out, "output_0.pb"), "rb") as f:
        tensor.ParseFromString(f.read())
    return numpy_helper.to_array(tensor)


class ServeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp()
        cls.repo = os.path.join(cls.work, "repo")
        os.makedirs(os.path.join(cls.repo, "small_cnn", "1"))
        shutil.copy(SAMPLE, os.path.join(cls.repo, "small_cnn", "1", "model.onnx"))
        os.makedirs(os.path.join(cls.repo, "small_cnn", "2"))
        shutil.copy(SAMPLE, os.path.join(cls.repo, "small_cnn", "2", "model.onnx"))
        os.makedirs(os.path.join(cls.repo, "broken", "1"))
        with open(os.path.join(cls.repo, "broken", "1", "model.onnx"), "wb") as f:
            f.write(b"not an onnx model")
        cls.grpc = []
        cls.server, cls.address = start_server(cls.repo, "--max-request-bytes", "64K", "--http-threads", "16",
                                               grpc_address=cls.grpc)
        rng = np.random.default_rng(0)
        cls.x = rng.standard_normal((1, 3, 16, 16)).astype(np.float32)
        cls.expected = ge_run_output(SAMPLE, cls.x, cls.work)

    @classmethod
    def tearDownClass(cls):
        if cls.server.poll() is None:
            cls.server.kill()
            cls.server.wait()
        shutil.rmtree(cls.work)

    def infer_body(self, x=None):
        x = self.x if x is None else x
        return {"id": "r1", "inputs": [{"name": "input", "shape": list(x.shape), "datatype": "FP32",
                                        "data": x.flatten().tolist()}]}

    def test_health_and_metadata(self):
        self.assertEqual(call(self.address, "/v2/health/live")[0], 200)
        status, body, _ = call(self.address, "/v2/health/ready")
        self.assertEqual((status, body["ready"]), (503, False))  # 'broken' did not load
        status, body, _ = call(self.address, "/v2")
        self.assertEqual(status, 200)
        self.assertIn("model_repository", body["extensions"])
        status, body, _ = call(self.address, "/v2/models/small_cnn")
        self.assertEqual(status, 200)
        self.assertEqual(body["inputs"], [{"name": "input", "datatype": "FP32", "shape": [1, 3, 16, 16]}])
        self.assertEqual(body["outputs"], [{"name": "output", "datatype": "FP32", "shape": [1, 10]}])
        self.assertEqual(body["versions"], ["1", "2"])
        self.assertEqual(call(self.address, "/v2/models/small_cnn/versions/1/ready")[0], 200)
        self.assertEqual(call(self.address, "/v2/models/small_cnn/versions/7/ready")[0], 404)

    def test_infer_json_matches_ge_run(self):
        status, body, _ = call(self.address, "/v2/models/small_cnn/infer", self.infer_body())
        self.assertEqual(status, 200, body)
        self.assertEqual(body["id"], "r1")
        self.assertEqual(body["model_version"], "2")
        out = body["outputs"][0]
        self.assertEqual((out["name"], out["datatype"], out["shape"]), ("output", "FP32", [1, 10]))
        np.testing.assert_allclose(np.array(out["data"], np.float32).reshape(1, 10), self.expected, rtol=1e-6, atol=1e-6)
        status, body, _ = call(self.address, "/v2/models/small_cnn/versions/1/infer", self.infer_body())
        self.assertEqual((status, body["model_version"]), (200, "1"))

    def test_infer_binary_extension(self):
        header = json.dumps({"inputs": [{"name": "input", "shape": [1, 3, 16, 16], "datatype": "FP32",
                                         "parameters": {"binary_data_size": self.x.nbytes}}],
                             "outputs": [{"name": "output", "parameters": {"binary_data": True}}]}).encode()
        status, payload, headers = call(self.address, "/v2/models/small_cnn/infer", header + self.x.tobytes(),
                                        headers={"Inference-Header-Content-Length": str(len(header)),
                                                 "Content-Type": "application/octet-stream"}, raw=True)
        self.assertEqual(status, 200, payload)
        length = int(headers["Inference-Header-Content-Length"])
        meta = json.loads(payload[:length])
        self.assertEqual(meta["outputs"][0]["parameters"]["binary_data_size"], 40)
        got = np.frombuffer(payload[length:], np.float32).reshape(1, 10)
        np.testing.assert_array_equal(got, self.expected)

    def test_requests_and_curl_clients(self):
        import requests
        reply = requests.post(f"http://{self.address}/v2/models/small_cnn/infer", json=self.infer_body(), timeout=60)
        self.assertEqual(reply.status_code, 200)
        np.testing.assert_allclose(np.array(reply.json()["outputs"][0]["data"], np.float32).reshape(1, 10),
                                   self.expected, rtol=1e-6, atol=1e-6)
        curl = shutil.which("curl")
        if curl is None:
            self.skipTest("curl is not installed (scripts/setup.sh installs it)")
        result = subprocess.run([curl, "-s", "-X", "POST", f"http://{self.address}/v2/models/small_cnn/infer",
                                 "-H", "Content-Type: application/json", "-d", json.dumps(self.infer_body())],
                                capture_output=True, text=True, timeout=60, check=True)
        np.testing.assert_allclose(np.array(json.loads(result.stdout)["outputs"][0]["data"], np.float32).reshape(1, 10),
                                   self.expected, rtol=1e-6, atol=1e-6)

    def test_bad_inputs_are_4xx_with_the_engines_message(self):
        infer = "/v2/models/small_cnn/infer"
        body = self.infer_body()
        cases = [
            (b"{not json", 400, "not valid JSON"),
            ({"inputs": []}, 400, "lacks input 'input'"),
            ({"nothing": 1}, 400, "no 'inputs' array"),
            ({"inputs": [dict(body["inputs"][0], datatype="INT64")]}, 400, "is FP32, not INT64"),
            ({"inputs": [dict(body["inputs"][0], shape=[1, 3, 8, 8])]}, 400, "dim 2 is 16, not 8"),
            ({"inputs": [dict(body["inputs"][0], data=[1.0, 2.0])]}, 400, "has 2 elements, its shape 768"),
            ({"inputs": [dict(body["inputs"][0], data=["a"] * 768)]}, 400, "is not a number"),
            ({"inputs": [dict(body["inputs"][0], name="other")]}, 400, "no input 'other'"),
            ({"inputs": body["inputs"] * 2}, 400, "given twice"),
            (dict(body, outputs=[{"name": "nope"}]), 400, "no output 'nope'"),
        ]
        for request, code, message in cases:
            status, reply, _ = call(self.address, infer, request, method="POST")
            self.assertEqual(status, code, (request if isinstance(request, bytes) else json.dumps(request)[:80], reply))
            self.assertIn(message, reply["error"])
        status, reply, _ = call(self.address, "/v2/models/nosuch/infer", body)
        self.assertEqual(status, 404)
        self.assertIn("no model 'nosuch' is loaded", reply["error"])
        status, reply, _ = call(self.address, "/v2/models/broken/infer", body)
        self.assertEqual(status, 503)
        self.assertIn("unavailable", reply["error"])
        status, reply, _ = call(self.address, infer, b"{" + b" " * (70 * 1024) + b"}", method="POST")
        self.assertEqual(status, 413)
        self.assertIn("larger than the server accepts", reply["error"])
        status, reply, _ = call(self.address, infer, b"{" + b" " * 9000 + b"}", method="POST",
                                headers={"Content-Type": "application/x-www-form-urlencoded"})
        self.assertEqual(status, 413)
        self.assertIn("send it as application/json", reply["error"])
        # The server still answers correctly after all of them.
        status, body, _ = call(self.address, infer, self.infer_body())
        self.assertEqual(status, 200)

    def test_a_client_that_disconnects_mid_request_hurts_nobody(self):
        host, port = self.address.split(":")
        for partial in [b"POST /v2/models/small_cnn/infer HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n{\"inp",
                        b"GET /v2/hea"]:
            with socket.create_connection((host, int(port))) as s:
                s.sendall(partial)
            # Closed without the rest of the body.
        status, body, _ = call(self.address, "/v2/models/small_cnn/infer", self.infer_body())
        self.assertEqual(status, 200)

    def test_load_test_16_clients(self):
        rng = np.random.default_rng(1)
        inputs = [rng.standard_normal((1, 3, 16, 16)).astype(np.float32) for _ in range(4)]
        expected = [ge_run_output(SAMPLE, x, tempfile.mkdtemp(dir=self.work)) for x in inputs]

        def client(k):
            errors = 0
            for i in range(250):
                j = (k + i) % len(inputs)
                status, body, _ = call(self.address, "/v2/models/small_cnn/infer", self.infer_body(inputs[j]))
                if status != 200:
                    errors += 1
                    continue
                got = np.array(body["outputs"][0]["data"], np.float32).reshape(1, 10)
                if not np.allclose(got, expected[j], rtol=1e-6, atol=1e-6):
                    errors += 1
            return errors

        with concurrent.futures.ThreadPoolExecutor(16) as pool:
            errors = sum(pool.map(client, range(16)))
        self.assertEqual(errors, 0)
        status, text, _ = call(self.address, "/metrics", raw=True)
        self.assertEqual(status, 200)
        text = text.decode()
        line = [l for l in text.splitlines() if l.startswith('ge_inference_requests_total{model="small_cnn",code="200"}')]
        self.assertTrue(line and int(line[0].split()[-1]) >= 4000, text[:2000])
        self.assertIn('ge_inference_request_duration_seconds_count{model="small_cnn"}', text)
        self.assertIn("ge_inference_requests_in_flight 0", text)

    def test_repository_index_unload_load(self):
        status, index, _ = call(self.address, "/v2/repository/index", b"", method="POST")
        self.assertEqual(status, 200)
        states = {(m["name"], m.get("version", "")): m["state"] for m in index}
        self.assertEqual(states[("small_cnn", "1")], "READY")
        self.assertEqual(states[("broken", "")], "UNAVAILABLE")
        os.makedirs(os.path.join(self.repo, "second", "1"))
        shutil.copy(SAMPLE, os.path.join(self.repo, "second", "1", "model.onnx"))
        self.assertEqual(call(self.address, "/v2/models/second/infer", self.infer_body())[0], 404)
        self.assertEqual(call(self.address, "/v2/repository/models/second/load", b"", method="POST")[0], 200)
        self.assertEqual(call(self.address, "/v2/models/second/infer", self.infer_body())[0], 200)
        self.assertEqual(call(self.address, "/v2/repository/models/second/unload", b"", method="POST")[0], 200)
        self.assertEqual(call(self.address, "/v2/models/second/infer", self.infer_body())[0], 404)
        status, reply, _ = call(self.address, "/v2/repository/models/absent/load", b"", method="POST")
        self.assertEqual(status, 404)
        self.assertIn("no model 'absent'", reply["error"])


    def grpc_stub(self):
        stubs = os.environ.get("GE_GRPC_STUBS")
        if not stubs or not os.path.isdir(stubs):
            self.skipTest("no gRPC stubs (python3-grpc-tools) were generated")
        import sys
        if stubs not in sys.path:
            sys.path.insert(0, stubs)
        import grpc
        import grpc_predict_v2_pb2 as pb
        import grpc_predict_v2_pb2_grpc as rpc
        self.assertTrue(self.grpc, "ge-serve printed no gRPC address")
        return grpc, pb, rpc.GRPCInferenceServiceStub(grpc.insecure_channel(self.grpc[0]))

    def grpc_request(self, pb, x, raw=True, **overrides):
        tensor = pb.ModelInferRequest.InferInputTensor(name="input", datatype="FP32", shape=list(x.shape))
        request = pb.ModelInferRequest(model_name="small_cnn", id="g1", inputs=[tensor])
        if raw:
            request.raw_input_contents.append(x.tobytes())
        else:
            request.inputs[0].contents.fp32_contents.extend(x.flatten().tolist())
        for key, value in overrides.items():
            setattr(request, key, value)
        return request

    def test_grpc_metadata_and_infer_match_ge_run(self):
        grpc, pb, stub = self.grpc_stub()
        self.assertTrue(stub.ServerLive(pb.ServerLiveRequest()).live)
        self.assertFalse(stub.ServerReady(pb.ServerReadyRequest()).ready)  # 'broken'
        self.assertTrue(stub.ModelReady(pb.ModelReadyRequest(name="small_cnn")).ready)
        meta = stub.ModelMetadata(pb.ModelMetadataRequest(name="small_cnn"))
        self.assertEqual((meta.inputs[0].name, meta.inputs[0].datatype, list(meta.inputs[0].shape)),
                         ("input", "FP32", [1, 3, 16, 16]))
        for raw in (True, False):
            reply = stub.ModelInfer(self.grpc_request(pb, self.x, raw=raw))
            self.assertEqual((reply.id, reply.outputs[0].name, list(reply.outputs[0].shape)), ("g1", "output", [1, 10]))
            got = np.frombuffer(reply.raw_output_contents[0], np.float32).reshape(1, 10)
            np.testing.assert_array_equal(got, self.expected)

    def test_grpc_errors_are_statuses_with_the_engines_message(self):
        grpc, pb, stub = self.grpc_stub()
        cases = [
            (self.grpc_request(pb, self.x, model_name="nosuch"), grpc.StatusCode.NOT_FOUND, "no model 'nosuch'"),
            (self.grpc_request(pb, self.x, model_name="broken"), grpc.StatusCode.UNAVAILABLE, "unavailable"),
            (self.grpc_request(pb, self.x[:, :, :8]), grpc.StatusCode.INVALID_ARGUMENT, "dim 2 is 16, not 8"),
            (pb.ModelInferRequest(model_name="small_cnn"), grpc.StatusCode.INVALID_ARGUMENT, "lacks input 'input'"),
        ]
        wrong_size = self.grpc_request(pb, self.x)
        wrong_size.raw_input_contents[0] = b"1234"
        cases.append((wrong_size, grpc.StatusCode.INVALID_ARGUMENT, "4 raw bytes"))
        wrong_type = self.grpc_request(pb, self.x)
        wrong_type.inputs[0].datatype = "INT64"
        cases.append((wrong_type, grpc.StatusCode.INVALID_ARGUMENT, "is FP32, not INT64"))
        for request, code, message in cases:
            with self.assertRaises(grpc.RpcError) as caught:
                stub.ModelInfer(request)
            self.assertEqual(caught.exception.code(), code)
            self.assertIn(message, caught.exception.details())
        self.assertEqual(len(stub.ModelInfer(self.grpc_request(pb, self.x)).raw_output_contents), 1)

    def test_grpc_load_16_clients(self):
        grpc, pb, stub = self.grpc_stub()

        def client(k):
            errors = 0
            for _ in range(150):
                reply = stub.ModelInfer(self.grpc_request(pb, self.x))
                got = np.frombuffer(reply.raw_output_contents[0], np.float32).reshape(1, 10)
                errors += 0 if np.array_equal(got, self.expected) else 1
            return errors

        with concurrent.futures.ThreadPoolExecutor(16) as pool:
            self.assertEqual(sum(pool.map(client, range(16))), 0)


def dynamic_batch_copy(path):
    """small_cnn with its batch dim made dynamic ('N')."""
    import onnx
    model = onnx.load(SAMPLE)
    for value in (model.graph.input[0], model.graph.output[0]):
        value.type.tensor_type.shape.dim[0].dim_param = "N"
    onnx.save(model, path)


class BatchingTest(unittest.TestCase):
    def test_concurrent_requests_are_batched_and_split_back(self):
        work = tempfile.mkdtemp()
        try:
            os.makedirs(os.path.join(work, "batched", "1"))
            dynamic_batch_copy(os.path.join(work, "batched", "1", "model.onnx"))
            with open(os.path.join(work, "batched", "config.toml"), "w") as f:
                f.write("max_batch_size = 8\nbatch_delay_ms = 20\n")
            os.makedirs(os.path.join(work, "static", "1"))
            shutil.copy(SAMPLE, os.path.join(work, "static", "1", "model.onnx"))
            with open(os.path.join(work, "static", "config.toml"), "w") as f:
                f.write("max_batch_size = 8\n")
            rng = np.random.default_rng(2)
            inputs = [rng.standard_normal((1, 3, 16, 16)).astype(np.float32) for _ in range(8)]
            expected = [ge_run_output(SAMPLE, x, tempfile.mkdtemp(dir=work)) for x in inputs]
            server, address = start_server(work, "--http-threads", "16")
            try:
                def client(k):
                    errors = 0
                    for i in range(20):
                        j = (k + i) % len(inputs)
                        body = {"inputs": [{"name": "input", "shape": [1, 3, 16, 16], "datatype": "FP32",
                                            "data": inputs[j].flatten().tolist()}]}
                        status, reply, _ = call(address, "/v2/models/batched/infer", body)
                        got = np.array(reply["outputs"][0]["data"], np.float32).reshape(1, 10) if status == 200 else None
                        errors += 0 if got is not None and np.allclose(got, expected[j], rtol=1e-5, atol=1e-6) else 1
                    return errors

                with concurrent.futures.ThreadPoolExecutor(16) as pool:
                    self.assertEqual(sum(pool.map(client, range(16))), 0)
                # A request of two rows is batched too, and split back as two rows.
                two = np.concatenate([inputs[0], inputs[1]])
                status, reply, _ = call(address, "/v2/models/batched/infer", {"inputs": [
                    {"name": "input", "shape": [2, 3, 16, 16], "datatype": "FP32", "data": two.flatten().tolist()}]})
                self.assertEqual((status, reply["outputs"][0]["shape"]), (200, [2, 10]))
                np.testing.assert_allclose(np.array(reply["outputs"][0]["data"], np.float32).reshape(2, 10),
                                           np.concatenate(expected[:2]), rtol=1e-5, atol=1e-6)
                # Three rows run padded to four (the last row repeated); the reply has three.
                three = np.concatenate(inputs[:3])
                status, reply, _ = call(address, "/v2/models/batched/infer", {"inputs": [
                    {"name": "input", "shape": [3, 3, 16, 16], "datatype": "FP32", "data": three.flatten().tolist()}]})
                self.assertEqual((status, reply["outputs"][0]["shape"]), (200, [3, 10]))
                np.testing.assert_allclose(np.array(reply["outputs"][0]["data"], np.float32).reshape(3, 10),
                                           np.concatenate(expected[:3]), rtol=1e-5, atol=1e-6)
                text = call(address, "/metrics", raw=True)[1].decode()
                values = {line.split("{")[0]: float(line.split()[-1]) for line in text.splitlines()
                          if line.startswith("ge_batch") and 'model="batched"' in line}
                self.assertEqual(values["ge_batched_requests_total"], 322)
                self.assertLess(values["ge_batches_total"], values["ge_batched_requests_total"])  # some batched
                status, reply, _ = call(address, "/v2/models/static/infer", {"inputs": []})
                self.assertEqual(status, 503)
                self.assertIn("max_batch_size needs every input's first dim dynamic", reply["error"])
            finally:
                server.kill()
                server.wait()
        finally:
            shutil.rmtree(work)


class LifecycleTest(unittest.TestCase):
    def test_sigterm_stops_after_the_requests_in_flight(self):
        work = tempfile.mkdtemp()
        try:
            os.makedirs(os.path.join(work, "m", "1"))
            shutil.copy(SAMPLE, os.path.join(work, "m", "1", "model.onnx"))
            server, address = start_server(work)
            self.assertEqual(call(address, "/v2/health/ready")[0], 200)
            server.send_signal(signal.SIGTERM)
            out, _ = server.communicate(timeout=60)
            self.assertEqual(server.returncode, 0)
            self.assertIn("stopped", out)
        finally:
            shutil.rmtree(work)

    def test_a_run_past_the_run_timeout_is_cancelled(self):
        import onnx
        from onnx import TensorProto, helper, numpy_helper
        work = tempfile.mkdtemp()
        try:
            # 300 chained 256x256 products: far longer than 10 ms.
            w = numpy_helper.from_array(np.eye(256, dtype=np.float32), "w")
            nodes = [helper.make_node("MatMul", ["x" if i == 0 else f"h{i}", "w"], [f"h{i + 1}"]) for i in range(300)]
            graph = helper.make_graph(nodes, "slow", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [256, 256])],
                                      [helper.make_tensor_value_info("h300", TensorProto.FLOAT, [256, 256])], [w])
            os.makedirs(os.path.join(work, "slow", "1"))
            onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
                      os.path.join(work, "slow", "1", "model.onnx"))
            # A chain over rows of a dynamic count, batched (1000 products of [rows, 1024] x
            # [1024, 1024]: 8 GFLOP for two rows): the timeout holds there too.
            wide = numpy_helper.from_array(np.eye(1024, dtype=np.float32), "w")
            chain = [helper.make_node("MatMul", ["x" if i == 0 else f"h{i}", "w"], [f"h{i + 1}"]) for i in range(1000)]
            batched = helper.make_graph(chain, "slow_batched",
                                        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 1024])],
                                        [helper.make_tensor_value_info("h1000", TensorProto.FLOAT, ["N", 1024])], [wide])
            os.makedirs(os.path.join(work, "slow_batched", "1"))
            onnx.save(helper.make_model(batched, opset_imports=[helper.make_opsetid("", 17)]),
                      os.path.join(work, "slow_batched", "1", "model.onnx"))
            with open(os.path.join(work, "slow_batched", "config.toml"), "w") as f:
                f.write("max_batch_size = 4\nbatch_delay_ms = 1\n")
            grpc_address = []
            server, address = start_server(work, "--run-timeout", "0.01", grpc_address=grpc_address)
            try:
                x = np.ones((256, 256), np.float32)
                body = {"inputs": [{"name": "x", "shape": [256, 256], "datatype": "FP32", "data": x.flatten().tolist()}]}
                status, reply, _ = call(address, "/v2/models/slow/infer", body)
                self.assertEqual(status, 504, reply)
                self.assertIn("run timeout", reply["error"])
                for rows in (2, 8):  # in a batch; more rows than max_batch_size: alone
                    rows_body = {"inputs": [{"name": "x", "shape": [rows, 1024], "datatype": "FP32",
                                             "data": [1.0] * (rows * 1024)}]}
                    status, reply, _ = call(address, "/v2/models/slow_batched/infer", rows_body)
                    self.assertEqual(status, 504, reply)
                    self.assertIn("run timeout", reply["error"])
                stubs = os.environ.get("GE_GRPC_STUBS")
                if stubs and os.path.isdir(stubs) and grpc_address:
                    import sys
                    sys.path.insert(0, stubs)
                    import grpc
                    import grpc_predict_v2_pb2 as pb
                    import grpc_predict_v2_pb2_grpc as rpc
                    stub = rpc.GRPCInferenceServiceStub(grpc.insecure_channel(grpc_address[0]))
                    request = pb.ModelInferRequest(model_name="slow", inputs=[
                        pb.ModelInferRequest.InferInputTensor(name="x", datatype="FP32", shape=[256, 256])])
                    request.raw_input_contents.append(x.tobytes())
                    with self.assertRaises(grpc.RpcError) as caught:
                        stub.ModelInfer(request)
                    self.assertEqual(caught.exception.code(), grpc.StatusCode.DEADLINE_EXCEEDED)
                self.assertEqual(call(address, "/v2/health/live")[0], 200)
            finally:
                server.kill()
                server.wait()
        finally:
            shutil.rmtree(work)

    def test_access_log_is_one_json_object_per_request(self):
        work = tempfile.mkdtemp()
        try:
            os.makedirs(os.path.join(work, "m", "1"))
            shutil.copy(SAMPLE, os.path.join(work, "m", "1", "model.onnx"))
            server, address = start_server(work, "-v")
            self.assertEqual(call(address, "/v2/models/m")[0], 200)
            self.assertEqual(call(address, "/v2/models/nosuch")[0], 404)
            server.send_signal(signal.SIGTERM)
            _, err = server.communicate(timeout=60)
            lines = [json.loads(l.split("access ", 1)[1]) for l in err.splitlines() if "] access {" in l]
            self.assertEqual([(l["method"], l["path"], l["status"]) for l in lines],
                             [("GET", "/v2/models/m", 200), ("GET", "/v2/models/nosuch", 404)])
            self.assertTrue(all(l["remote"] and l["response_bytes"] > 0 for l in lines))
        finally:
            shutil.rmtree(work)

    def test_bad_command_lines(self):
        for args, message in [(["/nonexistent/repo"], "is not a folder"), ([], "no model repository"),
                              (["/tmp", "--port", "70000"], "--port expects an integer"),
                              (["/tmp", "--bogus"], "unknown option '--bogus'")]:
            result = subprocess.run([os.path.join(BIN, "ge-serve"), *args], capture_output=True, text=True, timeout=60)
            self.assertEqual(result.returncode, 1, args)
            self.assertIn(message, result.stderr)

    def test_bad_config_makes_the_model_unavailable(self):
        work = tempfile.mkdtemp()
        try:
            os.makedirs(os.path.join(work, "m", "1"))
            shutil.copy(SAMPLE, os.path.join(work, "m", "1", "model.onnx"))
            with open(os.path.join(work, "m", "config.toml"), "w") as f:
                f.write("treads = 2\n")
            server, address = start_server(work)
            try:
                status, reply, _ = call(address, "/v2/models/m/infer", {"inputs": []})
                self.assertEqual(status, 503)
                self.assertIn("unknown key 'treads'", reply["error"])
            finally:
                server.kill()
                server.wait()
        finally:
            shutil.rmtree(work)


if __name__ == "__main__":
    unittest.main()
