"""torchvision models and transformer modules for the TorchScript parser's model tests."""
import torch
import torch.nn as nn
import torchvision.models as tv


class GptBlockDecoder(nn.Module):
    """A GPT-style decoder (causal self-attention written out, as many projects do)."""

    def __init__(self, vocab=500, d=64, heads=4, layers=2, ctx=32):
        super().__init__()
        self.heads = heads
        self.embed = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.randn(ctx, d) * 0.02)
        self.blocks = nn.ModuleList()
        for _ in range(layers):
            self.blocks.append(nn.ModuleDict({
                "ln1": nn.LayerNorm(d), "qkv": nn.Linear(d, 3 * d), "proj": nn.Linear(d, d),
                "ln2": nn.LayerNorm(d), "fc": nn.Linear(d, 4 * d), "out": nn.Linear(4 * d, d)}))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, ids):
        b, t = ids.shape
        x = self.embed(ids) + self.pos[:t]
        mask = torch.triu(torch.ones(t, t, dtype=torch.bool), 1)
        for blk in self.blocks:
            h = blk["ln1"](x)
            q, k, v = blk["qkv"](h).split(x.size(-1), dim=-1)
            q = q.view(b, t, self.heads, -1).transpose(1, 2)
            k = k.view(b, t, self.heads, -1).transpose(1, 2)
            v = v.view(b, t, self.heads, -1).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) / (q.size(-1) ** 0.5)
            att = att.masked_fill(mask, float("-inf")).softmax(-1)
            y = (att @ v).transpose(1, 2).reshape(b, t, -1)
            x = x + blk["proj"](y)
            x = x + blk["out"](nn.functional.gelu(blk["fc"](blk["ln2"](x))))
        return self.head(self.ln(x))


def encoder(fast_path):
    layer = nn.TransformerEncoderLayer(64, 4, 128, batch_first=True, norm_first=False)
    return nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)


def cases(large=False):
    torch.manual_seed(0)
    img = torch.randn(1, 3, 224, 224)
    small = [
        ("resnet18", lambda: tv.resnet18(), img),
        ("resnet18_scripted", lambda: torch.jit.script(tv.resnet18().eval()), img),
        ("mobilenet_v3_small", lambda: tv.mobilenet_v3_small(), img),
        ("shufflenet_v2_x0_5", lambda: tv.shufflenet_v2_x0_5(), img),
        ("squeezenet1_1", lambda: tv.squeezenet1_1(), img),
        ("gpt_decoder", lambda: GptBlockDecoder(), torch.randint(0, 500, (2, 16))),
        ("transformer_encoder", lambda: encoder(True), torch.randn(2, 10, 64)),
    ]
    more = [
        ("resnet50", lambda: tv.resnet50(), img),
        ("mobilenet_v3_large", lambda: tv.mobilenet_v3_large(), img),
        ("mobilenet_v3_large_scripted", lambda: torch.jit.script(tv.mobilenet_v3_large().eval()), img),
        ("efficientnet_b0", lambda: tv.efficientnet_b0(), img),
        ("densenet121", lambda: tv.densenet121(), img),
        ("regnet_y_400mf", lambda: tv.regnet_y_400mf(), img),
        ("convnext_tiny", lambda: tv.convnext_tiny(), img),
        ("googlenet", lambda: tv.googlenet(aux_logits=False, init_weights=True), img),
        ("mnasnet0_5", lambda: tv.mnasnet0_5(), img),
        ("vgg11", lambda: tv.vgg11(), img),
        ("alexnet", lambda: tv.alexnet(), img),
        ("swin_t", lambda: tv.swin_t(), img),
        ("vit_b_16", lambda: tv.vit_b_16(), img),
        ("fcn_resnet50", lambda: tv.segmentation.fcn_resnet50(weights=None, weights_backbone=None, aux_loss=False),
         torch.randn(1, 3, 256, 256)),
        ("deeplabv3_mobilenet_v3_large",
         lambda: tv.segmentation.deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None, aux_loss=False),
         torch.randn(1, 3, 256, 256)),
        ("lraspp_mobilenet_v3_large",
         lambda: tv.segmentation.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None),
         torch.randn(1, 3, 256, 256)),
        ("r3d_18", lambda: tv.video.r3d_18(), torch.randn(1, 3, 8, 112, 112)),
    ]
    return small + (more if large else [])
