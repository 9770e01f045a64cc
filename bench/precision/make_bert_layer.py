"""Writes one BERT-base encoder layer (hidden 768, 12 heads, FFN 3072, seq 128, batch 1) as
ONNX, in one of three precisions. The float layer is bench/compare/make_encoder.py's (random
weights, seed 3; spelled as PyTorch exports a Hugging Face BertLayer), then:

  fp32  as written (the --precision bf16/mixed rows run this one)
  f16   the whole graph in float16, input and output float16
  qdq   static int8 quantisation in QDQ form of every MatMul (the six weight MatMuls with
        per-output-column int8 weights, Q.K^T and probs.V with uint8 on both sides); bias
        Adds, Softmax and LayerNorm stay float. Activation ranges calibrated on 4 random
        inputs; checked before saving: on 4 other inputs the output must stay within 10% of
        its largest magnitude of the float layer's

input 'input' [1,128,768] -> 'output' [1,128,768].
usage: /usr/bin/python3 make_bert_layer.py OUT.onnx --variant fp32|f16|qdq"""

import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import numpy as np  # noqa: E402
import onnx  # noqa: E402
import precision_models as pm  # noqa: E402

SHAPE = (1, 128, 768)
MAKE_ENCODER = os.path.join(HERE, "..", "compare", "make_encoder.py")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--variant", choices=["fp32", "f16", "qdq"], required=True)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "encoder.onnx")
        subprocess.run([sys.executable, MAKE_ENCODER, path, "--seq", str(SHAPE[1])], check=True)
        model = onnx.load(path)
    if args.variant == "f16":
        model = pm.to_float16(model)
    elif args.variant == "qdq":
        calibration = [{"input": pm.random_input(SHAPE, 100 + k)} for k in range(4)]
        qdq = pm.quantize_static_qdq(model, calibration, op_types=("MatMul",))
        for k in range(4):
            feeds = {"input": pm.random_input(SHAPE, 200 + k)}
            f = pm.run_graph(model, feeds)["output"]
            q = pm.run_graph(qdq, feeds)["output"]
            rel = np.abs(f - q).max() / np.abs(f).max()
            print(f"input {k}: max |qdq - float| / max |float| {rel:.3g}")
            if not rel <= 0.1:
                sys.exit(f"make_bert_layer.py: the QDQ layer's output is off the float layer's by {rel:.3g} "
                         "of its largest magnitude (more than 0.1)")
        model = qdq
    print(pm.count_ops(model))
    onnx.save(model, args.out)


if __name__ == "__main__":
    main()
