"""Writes torchvision's ResNet-50 (random weights, seed 0, batch-norm statistics measured on
random images; batch norms folded by the exporter, opset 13) as ONNX, in one of three precisions:

  fp32  float32, as exported (the --precision bf16/mixed rows run this one)
  f16   the whole graph in float16, inputs and outputs float16
  qdq   static int8 quantisation in QDQ form (precision_models.quantize_static_qdq):
        activation ranges calibrated on 6 inputs, per-channel int8 weights, uint8
        activations, int32 biases; checked before saving: the top-1 class must match the
        float model's on at least 7 of 8 images that were not calibrated on

input 'input' [1,3,224,224] -> 'logits' [1,1000].
usage: /usr/bin/python3 make_resnet50.py OUT.onnx --variant fp32|f16|qdq"""

import argparse
import io
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
import onnx  # noqa: E402
import torch  # noqa: E402
import torchvision  # noqa: E402
import precision_models as pm  # noqa: E402

SHAPE = (1, 3, 224, 224)


def _smooth_image(seed):
    lo = torch.from_numpy(np.random.default_rng(seed).standard_normal((1, 3, 14, 14)).astype(np.float32))
    return torch.nn.functional.interpolate(lo, size=SHAPE[2:], mode="bilinear", align_corners=False).clamp(-1, 1)


CLASSES = [(61 * k + 7) % 1000 for k in range(16)]


def fitting_batch():
    """16 images: 8 smooth random ones, 8 of uniform noise like the benchmark's inputs."""
    return torch.cat([_smooth_image(1000 + k) for k in range(8)] +
                     [torch.from_numpy(pm.random_input(SHAPE, 2000 + k)) for k in range(8)])


def export_float():
    torch.manual_seed(0)
    net = torchvision.models.resnet50(weights=None)
    # Random weights, but not a degenerate net (with torchvision's initialisation every input
    # gets the same top-1 class): the batch norms' statistics are measured on the 16 fitting
    # images, as a trained net's match its data, and the classifier is fitted to them.
    # The last batch norm of each residual branch starts small (gamma 0.25), as trained
    # ResNets' are: with unit gammas a random ResNet-50 is chaotic, a 1% change of the input
    # to the first layer changes the logits by 100%, and no quantiser could keep its top-1.
    for m in net.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.momentum = None  # cumulative average over the batch
        if isinstance(m, torchvision.models.resnet.Bottleneck):
            m.bn3.weight.data.fill_(0.25)
    batch = fitting_batch()
    features = []
    hook = net.fc.register_forward_hook(lambda mod, inp, out: features.append(inp[0]))
    net.train()
    with torch.no_grad():
        net(batch)
        net.eval()
        features.clear()
        net(batch)
        # The classifier is fitted (minimum-norm least squares) to send image k to class
        # CLASSES[k] with logit 10, as a trained one is decisive on the images it knows; the
        # quantiser's top-1 check below runs on those images, where a wrong scale, axis or
        # zero point changes the class, while on noise the margins are below any int8 error.
        f = features[0].double()
        mean = f.mean(0)
        centred = f - mean
        targets = torch.zeros(len(CLASSES), 1000, dtype=torch.float64)
        targets[torch.arange(len(CLASSES)), torch.tensor(CLASSES)] = 10.0
        gram = centred @ centred.T + 1e-3 * torch.eye(len(CLASSES), dtype=torch.float64)
        weight = targets.T @ torch.linalg.solve(gram, centred)
        net.fc.weight.copy_(weight.float())
        net.fc.bias.copy_((-weight @ mean).float())
    hook.remove()
    buf = io.BytesIO()
    torch.onnx.export(net, torch.zeros(SHAPE), buf, opset_version=13, input_names=["input"],
                      output_names=["logits"], do_constant_folding=True)
    return onnx.load_from_string(buf.getvalue())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--variant", choices=["fp32", "f16", "qdq"], required=True)
    args = ap.parse_args()
    model = export_float()
    if args.variant == "f16":
        model = pm.to_float16(model)
    elif args.variant == "qdq":
        # Calibration: 4 noise inputs and two of the fitting images (odd ones: the check runs
        # on the even ones), so that the logits' range holds the fitted classes' 10.
        batch = fitting_batch().numpy()
        calibration = ([{"input": pm.random_input(SHAPE, 100 + k)} for k in range(4)] +
                       [{"input": batch[k:k + 1]} for k in (1, 9)])
        qdq = pm.quantize_static_qdq(model, calibration, op_types=("Conv", "Gemm", "Add"))
        agree = 0
        for k in range(0, 16, 2):
            feeds = {"input": batch[k:k + 1]}
            f = pm.run_graph(model, feeds)["logits"]
            q = pm.run_graph(qdq, feeds)["logits"]
            agree += int(f.argmax() == q.argmax())
            rel = np.abs(f - q).max() / np.abs(f).max()
            print(f"image {k}: float top-1 {f.argmax()}, qdq top-1 {q.argmax()}, max |diff| / max |float| {rel:.3g}")
        if agree < 7:
            sys.exit(f"make_resnet50.py: the QDQ model's top-1 matches the float model's on {agree}/8 images only")
        model = qdq
    print(pm.count_ops(model))
    onnx.save(model, args.out)


if __name__ == "__main__":
    main()
