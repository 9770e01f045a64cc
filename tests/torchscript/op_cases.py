"""The TorchScript op cases: one small module per mapped ATen op (or form of one), run
through GE's TorchScript parser and compared with torch. Each case is
(name, module, example inputs); `traced` cases go through torch.jit.trace, the others
through torch.jit.script."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Fn1(nn.Module):
    """A module whose forward is `fn` of one input."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


class Fn2(Fn1):
    def forward(self, x, y):
        return self.fn(x, y)


class Fn3(Fn1):
    def forward(self, x, y, z):
        return self.fn(x, y, z)


def Fn(fn):
    """Fn1, Fn2 or Fn3 by the arity of `fn`."""
    arity = fn.__code__.co_argcount if hasattr(fn, "__code__") else 2
    return {1: Fn1, 2: Fn2, 3: Fn3}[arity](fn)


class ShapeBranchAndLoop(nn.Module):
    """Scripted control flow that depends on shapes and attributes, not data."""

    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(16, 16) for _ in range(3)])
        self.use_norm = True
        self.norm = nn.LayerNorm(16)

    def forward(self, x):
        if x.size(0) > 2:
            x = x * 2.0
        else:
            x = x - 1.0
        for i in range(x.size(0)):
            x = x + float(i)
        for layer in self.layers:
            x = torch.relu(layer(x))
        if self.use_norm:
            x = self.norm(x)
        return x


def r(*shape):
    return torch.randn(*shape)


def cases():
    torch.manual_seed(0)
    x4 = r(2, 8, 12, 12)
    x3 = r(2, 6, 16)
    x2 = r(4, 16)
    c = []

    def add(name, module, *inputs):
        c.append((name, module, inputs))

    # convolutions, linear layers, products
    add("conv2d", nn.Conv2d(8, 16, 3, padding=1), x4)
    add("conv2d_stride_dilation_groups", nn.Conv2d(8, 8, 3, stride=2, padding=2, dilation=2, groups=4), x4)
    add("conv2d_nobias", nn.Conv2d(8, 4, 1, bias=False), x4)
    add("conv2d_same", nn.Conv2d(8, 4, 3, padding="same"), x4)
    add("conv1d", nn.Conv1d(6, 4, 5, padding=2), x3)
    add("conv3d", nn.Conv3d(2, 3, 3, padding=1), r(1, 2, 6, 6, 6))
    add("conv_transpose2d", nn.ConvTranspose2d(8, 4, 3, stride=2, padding=1, output_padding=1), x4)
    add("conv_bn_relu", nn.Sequential(nn.Conv2d(8, 8, 3), nn.BatchNorm2d(8), nn.ReLU()), x4)
    add("linear_2d", nn.Linear(16, 8), x2)
    add("linear_3d", nn.Linear(16, 8), r(2, 4, 16))
    add("linear_nobias", nn.Linear(16, 8, bias=False), r(2, 4, 16))
    add("matmul", Fn(torch.matmul), r(2, 3, 4, 5), r(2, 3, 5, 6))
    add("bmm", Fn(torch.bmm), r(3, 4, 5), r(3, 5, 2))
    add("mm", Fn(torch.mm), r(4, 5), r(5, 2))
    add("addmm", Fn(lambda b, a, m: torch.addmm(b, a, m, beta=0.5, alpha=2.0)), r(4, 2), r(4, 5), r(5, 2))
    add("baddbmm", Fn(lambda b, a, m: torch.baddbmm(b, a, m, beta=0.5, alpha=2.0)), r(3, 4, 2), r(3, 4, 5), r(3, 5, 2))
    add("einsum", Fn(lambda a, b: torch.einsum("bhqd,bhkd->bhqk", a, b)), r(1, 2, 4, 8), r(1, 2, 5, 8))
    # normalisations
    add("batch_norm_standalone", nn.BatchNorm2d(8), x4)
    add("batch_norm1d", nn.BatchNorm1d(6), x3)
    add("layer_norm", nn.LayerNorm(16), x3)
    add("layer_norm_2d_shape", nn.LayerNorm([6, 16]), x3)
    add("layer_norm_noaffine", nn.LayerNorm(16, elementwise_affine=False), x3)
    add("group_norm", nn.GroupNorm(4, 8), x4)
    add("instance_norm", nn.InstanceNorm2d(8, affine=True), x4)
    # pooling, resizing
    add("max_pool2d", nn.MaxPool2d(3, 2, 1), x4)
    add("max_pool2d_ceil", nn.MaxPool2d(3, 2, ceil_mode=True), x4)
    add("max_pool1d", nn.MaxPool1d(2), x3)
    add("avg_pool2d", nn.AvgPool2d(3, 2, 1), x4)
    add("avg_pool2d_exclude_pad", nn.AvgPool2d(3, 2, 1, count_include_pad=False), x4)
    add("adaptive_avg_pool2d_1", nn.AdaptiveAvgPool2d(1), x4)
    add("adaptive_avg_pool2d_3", nn.AdaptiveAvgPool2d(3), x4)
    add("adaptive_max_pool2d_1", nn.AdaptiveMaxPool2d(1), x4)
    add("upsample_nearest", nn.Upsample(scale_factor=2, mode="nearest"), x4)
    add("upsample_bilinear", nn.Upsample(scale_factor=2, mode="bilinear"), x4)
    add("upsample_bilinear_align", nn.Upsample(size=(20, 30), mode="bilinear", align_corners=True), x4)
    add("interpolate_size", Fn(lambda x: F.interpolate(x, size=(7, 9), mode="nearest")), x4)
    add("pixel_shuffle", nn.PixelShuffle(2), x4)
    # activations
    for name, m in [("relu", nn.ReLU()), ("relu6", nn.ReLU6()), ("sigmoid", nn.Sigmoid()), ("tanh", nn.Tanh()),
                    ("hardswish", nn.Hardswish()), ("hardsigmoid", nn.Hardsigmoid()), ("silu", nn.SiLU()),
                    ("gelu", nn.GELU()), ("gelu_tanh", nn.GELU(approximate="tanh")), ("leaky_relu", nn.LeakyReLU(0.1)),
                    ("elu", nn.ELU(0.7)), ("softplus", nn.Softplus()), ("softplus_beta", nn.Softplus(2.0, 5.0)),
                    ("mish", nn.Mish()), ("hardtanh", nn.Hardtanh(-0.5, 0.7)), ("softmax", nn.Softmax(dim=1)),
                    ("log_softmax", nn.LogSoftmax(dim=-1)), ("dropout", nn.Dropout(0.5)), ("identity", nn.Identity())]:
        add(name, m, x4)
    # element-wise
    add("add_alpha", Fn(lambda a, b: torch.add(a, b, alpha=2.5)), x2, r(4, 16))
    add("add_broadcast_scalar", Fn(lambda a, b: a + b[0] + 3), x2, r(16))
    add("sub", Fn(lambda a, b: a - 2 * b), x2, r(1, 16))
    add("rsub", Fn(lambda a: 1 - a), x2)
    add("mul_div", Fn(lambda a, b: a * b / (b.abs() + 1)), x2, r(4, 16))
    add("div_floor", Fn(lambda a, b: torch.div(a, b.abs() + 0.5, rounding_mode="floor")), x2, r(4, 16))
    add("div_trunc", Fn(lambda a, b: torch.div(a, b.abs() + 0.5, rounding_mode="trunc")), x2, r(4, 16))
    add("pow_sqrt_rsqrt", Fn(lambda a: a.pow(2) + (a.abs() + 1).sqrt() + torch.rsqrt(a.abs() + 1) + a.abs().pow(1.5)), x2)
    add("exp_log_neg", Fn(lambda a: torch.exp(a) - torch.log(a.abs() + 1) - a), x2)
    add("erf_sin_cos", Fn(lambda a: torch.erf(a) + torch.sin(a) * torch.cos(a)), x2)
    add("floor_ceil_round", Fn(lambda a: torch.floor(a * 3) + torch.ceil(a * 3) + torch.round(a * 3)), x2)
    add("clamp", Fn(lambda a: a.clamp(-0.5, 0.5) + a.clamp(min=0.1) + a.clamp(max=-0.2)), x2)
    add("max_min_elementwise", Fn(lambda a, b: torch.maximum(a, b) - torch.minimum(a, b)), x2, r(4, 16))
    add("compare_where", Fn(lambda a, b: torch.where(a > b, a, b) + (a <= 0).float() + (a == b).float() + (a != b).float()),
        x2, r(4, 16))
    add("masked_fill", Fn(lambda a: a.masked_fill(a < 0, -1e4)), x2)
    add("logical", Fn(lambda a, b: ((a > 0) & (b > 0)) | ~(a < b)), x2, r(4, 16))
    add("int_arith", Fn(lambda a: (a * 3 + 1) // 2), torch.arange(12).reshape(3, 4))
    add("int_float_promotion", Fn(lambda a, b: a * b + a / 2), torch.arange(12).reshape(3, 4), r(3, 4))
    add("log1p_reciprocal_sign", Fn(lambda a: torch.log1p(a.abs()) + torch.reciprocal(a.abs() + 1) + torch.sign(a)), x2)
    # shapes
    add("flatten", Fn(lambda a: torch.flatten(a, 1)), x4)
    add("view_reshape", Fn(lambda a: a.view(2, 8, -1).reshape(16, -1)), x4)
    add("view_with_sizes", Fn(lambda a: a.view(a.size(0), a.size(1), -1)), x4)
    add("squeeze_unsqueeze", Fn(lambda a: a.unsqueeze(1).unsqueeze(-1).squeeze(1)), x3)
    add("permute_transpose", Fn(lambda a: a.permute(0, 2, 3, 1).transpose(1, 2).contiguous()), x4)
    add("t", Fn(lambda a: a.t()), x2)
    add("expand", Fn(lambda a: a.expand(3, 4, 16)), r(1, 4, 1))
    add("cat", Fn(lambda a, b: torch.cat([a, b, a], dim=1)), x4, x4)
    add("stack", Fn(lambda a, b: torch.stack([a, b], dim=-1)), x2, x2)
    add("chunk", Fn(lambda a: torch.chunk(a, 2, dim=1)[1]), x4)
    add("split_sizes", Fn(lambda a: torch.split(a, [3, 5], dim=1)), x4)
    add("split_uneven", Fn(lambda a: torch.split(a, 5, dim=-1)), x3)
    add("unbind", Fn(lambda a: torch.unbind(a, 1)), x3)
    add("slice", Fn(lambda a: a[:, 2:7, ::2, 1:-1]), x4)
    add("select", Fn(lambda a: a[:, 3]), x4)
    add("select_negative", Fn(lambda a: a[..., -1]), x4)
    add("narrow", Fn(lambda a: a.narrow(2, 3, 4)), x4)
    add("index_select", Fn(lambda a: torch.index_select(a, 1, torch.tensor([3, 0, 3]))), x4)
    add("index_tensor", Fn(lambda a, i: a[:, i]), x4, torch.tensor([[1, 2], [0, 7]]))
    add("mean_sum", Fn(lambda a: a.mean(dim=(2, 3), keepdim=True) + a.sum(dim=1, keepdim=True)), x4)
    add("mean_all", Fn(lambda a: a.mean() + a.sum()), x4)
    add("amax_max_dim", Fn(lambda a: a.amax(dim=1) + a.max(dim=1)[0] + a.max(dim=1)[1].float()), x3)
    add("argmax", Fn(lambda a: torch.argmax(a, dim=-1)), x3)
    add("cast", Fn(lambda a: a.to(torch.int64) + a.long() * 2), x2 * 10)
    add("type_as", Fn(lambda a, b: a.type_as(b) + b), torch.arange(8).reshape(2, 4), r(2, 4))
    add("repeat", Fn(lambda a: a.repeat(2, 1, 3)), r(4, 5))
    add("triu_tril", Fn(lambda a: torch.triu(a, 1) + torch.tril(a, -1)), r(6, 6))
    add("pad_constant", Fn(lambda a: F.pad(a, (1, 2, 3, 0), value=0.5)), x4)
    add("pad_reflect", Fn(lambda a: F.pad(a, (2, 2, 1, 1), mode="reflect")), x4)
    add("pad_replicate", Fn(lambda a: F.pad(a, (2, 1, 1, 2), mode="replicate")), x4)
    add("roll", Fn(lambda a: torch.roll(a, shifts=(3, -2), dims=(2, 3))), x4)
    add("cumsum", Fn(lambda a: torch.cumsum(a, dim=1)), x2)
    add("zeros_like_ones_like", Fn(lambda a: a + torch.ones_like(a) * 2 + torch.zeros_like(a)), x2)
    add("embedding", nn.Embedding(50, 8), torch.tensor([[1, 4, 49], [0, 2, 2]]))
    add("arange_mask", Fn(lambda a: a + torch.arange(a.size(1)).float()), x2)
    add("causal_mask", Fn(lambda a: a.masked_fill(torch.triu(torch.ones(4, 4, dtype=torch.bool), 1), float("-inf")).softmax(-1)),
        r(2, 4, 4))
    add("script_shape_branch_and_loop", torch.jit.script(ShapeBranchAndLoop()), r(4, 16))
    add("tuple_output", Fn(lambda a, b: (a + b, a * b)), x2, x2)
    add("list_output", Fn(lambda a: [a.relu(), a.sigmoid()]), x2)
    return c
