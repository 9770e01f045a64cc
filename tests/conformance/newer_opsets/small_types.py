"""float8 (E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ), float4e2m1, int4 and uint4 for the generated
cases: numpy has no such dtypes (and onnx 1.12's helpers do not know them), so values are
held as arrays of element codes (one per byte) and written to TensorProto by hand, 4-bit
types packed two to a byte (the first in the low nibble).

Encoding is done by search over the table of every finite value of the format (nearest,
ties to the even code), independently of GE's arithmetic conversion, following ONNX's
Cast rules: saturate=1 sends values beyond the largest finite one (infinities included) to
it; saturate=0 sends them to infinity (E5M2) or NaN; float4 always saturates and maps NaN
to +6; the UZ formats have no -0.
"""
import math

import numpy as np
from onnx import TensorProto

F8E4M3FN, F8E4M3FNUZ, F8E5M2, F8E5M2FNUZ, UINT4, INT4, F4E2M1 = range(17, 24)

# mantissa bits, bias, has infinity, unsigned zero (0x80 = NaN), bits in a code
_FORMATS = {
    F8E4M3FN: (3, 7, False, False, 8),
    F8E4M3FNUZ: (3, 8, False, True, 8),
    F8E5M2: (2, 15, True, False, 8),
    F8E5M2FNUZ: (2, 16, False, True, 8),
    F4E2M1: (1, 1, False, False, 4),
}
NAMES = {F8E4M3FN: "float8e4m3fn", F8E4M3FNUZ: "float8e4m3fnuz", F8E5M2: "float8e5m2",
         F8E5M2FNUZ: "float8e5m2fnuz", UINT4: "uint4", INT4: "int4", F4E2M1: "float4e2m1"}
FLOAT8 = (F8E4M3FN, F8E4M3FNUZ, F8E5M2, F8E5M2FNUZ)


def decode_one(code, t):
    m, bias, has_inf, uz, bits = _FORMATS[t]
    sign_bit = 1 << (bits - 1)
    mag_mask = sign_bit - 1
    if uz and code == 0x80:
        return math.nan
    neg = bool(code & sign_bit)
    mag = code & mag_mask
    e, f = mag >> m, mag & ((1 << m) - 1)
    if has_inf and e == (mag_mask >> m):
        v = math.inf if f == 0 else math.nan
    elif t == F8E4M3FN and mag == 0x7F:
        v = math.nan
    elif e == 0:
        v = f * 2.0 ** (1 - bias - m)
    else:
        v = (1 + f / 2.0 ** m) * 2.0 ** (e - bias)
    return -v if neg else v


def decode(codes, t):
    return np.array([decode_one(int(c) & 0xFF, t) for c in np.asarray(codes).reshape(-1)],
                    dtype=np.float64).reshape(np.shape(codes))


def _table(t):
    """(value, code) of every finite non-negative value, plus the value one step past
    the largest (code = largest + 1), which marks overflow."""
    m, bias, has_inf, uz, bits = _FORMATS[t]
    rows = []
    for code in range(1 << (bits - 1)):
        v = decode_one(code, t)
        if math.isfinite(v):
            rows.append((v, code))
    top_v, top_code = max(rows)
    ulp = 2.0 ** (math.floor(math.log2(top_v)) - m)
    rows.append((top_v + ulp, top_code + 1))
    return sorted(rows), top_code


def encode_one(x, t, saturate=True):
    m, bias, has_inf, uz, bits = _FORMATS[t]
    sign_bit = 1 << (bits - 1)
    if math.isnan(x):
        return 0x7 if t == F4E2M1 else (0x80 if uz else 0x7F)
    neg = math.copysign(1.0, x) < 0
    mag = abs(x)
    rows, top_code = _table(t)
    if math.isinf(mag):
        code = None
    else:
        best = min(rows, key=lambda r: (abs(r[0] - mag), r[1] & 1))
        code = best[1] if best[1] <= top_code else None
    if code is None:  # overflow
        if saturate or t == F4E2M1:
            code = top_code
        elif has_inf:
            code = top_code + 1  # E5M2: 0x7C = inf
        else:
            return 0x80 if uz else (0x7F | (sign_bit if neg else 0))
    if code == 0 and uz:
        return 0
    return code | (sign_bit if neg else 0)


def encode(values, t, saturate=True):
    values = np.asarray(values, dtype=np.float64)
    out = [encode_one(float(v), t, saturate) for v in values.reshape(-1)]
    return np.array(out, dtype=np.uint8).reshape(values.shape)


def int4_encode(values, t):
    """ONNX's float -> int4/uint4: clip to the range, then round half to even."""
    lo, hi = (-8, 7) if t == INT4 else (0, 15)
    return np.rint(np.clip(np.asarray(values, dtype=np.float64), lo, hi)).astype(np.int8)


class Coded:
    """An array of element codes of ONNX type `t` (one per byte)."""

    def __init__(self, codes, t):
        self.codes = np.asarray(codes).astype(np.int8 if t == INT4 else np.uint8)
        self.t = t
        self.shape = self.codes.shape

    def values(self):
        if self.t in (INT4, UINT4):
            return self.codes.astype(np.float64)
        return decode(self.codes, self.t)


def to_proto(coded, name):
    flat = coded.codes.reshape(-1).astype(np.int64) & 0xFF
    if coded.t in (INT4, UINT4, F4E2M1):
        flat = flat & 0x0F
        if flat.size % 2:
            flat = np.append(flat, 0)
        raw = (flat[0::2] | (flat[1::2] << 4)).astype(np.uint8).tobytes()
    else:
        raw = flat.astype(np.uint8).tobytes()
    proto = TensorProto()
    proto.name = name
    proto.data_type = coded.t
    proto.dims.extend(list(coded.shape))
    proto.raw_data = raw
    return proto


def from_proto(proto):
    """Coded from a TensorProto of one of these types (raw_data or int32_data)."""
    n = int(np.prod(proto.dims)) if len(proto.dims) else 1
    if proto.raw_data:
        data = np.frombuffer(proto.raw_data, dtype=np.uint8).astype(np.int64)
    else:
        data = np.array(proto.int32_data, dtype=np.int64) & 0xFF
    if proto.data_type in (INT4, UINT4, F4E2M1):
        codes = np.stack([data & 0x0F, data >> 4], axis=1).reshape(-1)[:n]
        if proto.data_type == INT4:
            codes = np.where(codes >= 8, codes - 16, codes)
    else:
        codes = data[:n]
    return Coded(codes.reshape(list(proto.dims)), proto.data_type)
