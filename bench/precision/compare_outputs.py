"""Checks GE's outputs (DIR/output_K.pb, as ge-run --output-dir writes them) against a
reference, by the rule of the model's precision. Prints one line, 'yes' or 'no' and why;
exit status 0 when they agree, 1 when they do not, 2 on an error (missing or unreadable
outputs, shapes that differ).

Rules (d = |GE - reference| elementwise, M = max |reference|):
  fp32  reference ORT: d <= 1e-3 + 1e-3 |reference| everywhere (as bench/compare).
  int8  reference ORT: one quantisation step q, the scale of the DequantizeLinear that
        writes the output when one does (QDQ models), else (max(ref, 0) - min(ref, 0)) / 255,
        the step of an 8-bit grid over the output's range. d <= q everywhere (0.1% slack
        for float rounding) and d > q/2 on at most 2% of the elements.
  f16   reference ORT's float16 run: d <= 3e-2 M. Otherwise still 'yes' when --fp32 DIR
        (ORT's float32 model on the same input) is given and GE's float16 output is no
        further from it than ORT's float16 output is (max abs difference, 25% slack):
        ORT's float16 error is itself up to 10% of M on the BERT layer.
  bf16  reference GE float32 (the same model): d <= 2e-2 M, and with --top1 the argmax of
        each output unchanged.

usage: compare_outputs.py --rule fp32|int8|f16|bf16 --got DIR --ref DIR [--model M.onnx]
                          [--fp32 DIR] [--top1]"""

import argparse
import glob
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def load_outputs(folder):
    files = sorted(glob.glob(os.path.join(folder, "output_*.pb")), key=lambda p: int(p.rsplit("_", 1)[1][:-3]))
    if not files:
        raise ValueError(f"no output_K.pb in {folder}")
    return [numpy_helper.to_array(onnx.load_tensor(f)).astype(np.float64) for f in files]


def output_steps(model_path, count):
    """The output DequantizeLinear's scale per graph output (None where there is none)."""
    model = onnx.load(model_path)
    g = model.graph
    inits = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    producer = {o: n for n in g.node for o in n.output}
    steps = []
    for out in list(g.output)[:count]:
        n = producer.get(out.name)
        scale = inits.get(n.input[1]) if n is not None and n.op_type == "DequantizeLinear" else None
        steps.append(float(scale) if scale is not None and scale.size == 1 else None)
    return steps


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rule", choices=["fp32", "int8", "f16", "bf16"], required=True)
    ap.add_argument("--got", required=True)
    ap.add_argument("--ref", required=True)
    ap.add_argument("--model")
    ap.add_argument("--fp32")
    ap.add_argument("--top1", action="store_true")
    args = ap.parse_args()
    try:
        got, ref = load_outputs(args.got), load_outputs(args.ref)
        if len(got) != len(ref):
            raise ValueError(f"{len(got)} outputs, the reference has {len(ref)}")
        for k, (g, r) in enumerate(zip(got, ref)):
            if g.shape != r.shape:
                raise ValueError(f"output {k}: shape {list(g.shape)}, the reference's is {list(r.shape)}")
        steps = output_steps(args.model, len(ref)) if args.rule == "int8" and args.model else [None] * len(ref)
        fp32 = load_outputs(args.fp32) if args.fp32 else None
    except (ValueError, OSError) as e:
        print(f"error: {e}")
        return 2

    verdicts = []
    ok = True
    for k, (g, r) in enumerate(zip(got, ref)):
        d = np.abs(g - r)
        m = float(np.abs(r).max())
        if not np.all(np.isfinite(g)):
            ok = False
            verdicts.append(f"output {k}: {int((~np.isfinite(g)).sum())} non-finite values")
            continue
        if args.rule == "fp32":
            bad = int((d > 1e-3 + 1e-3 * np.abs(r)).sum())
            good = bad == 0
            verdicts.append(f"max abs {d.max():.3g}" + (f", {bad} elements over rtol/atol 1e-3" if bad else ""))
        elif args.rule == "int8":
            q = steps[k] or (max(float(r.max()), 0.0) - min(float(r.min()), 0.0)) / 255.0
            q = q if q > 0 else 1.0
            over_half = float((d > 0.5 * q).mean())
            good = float(d.max()) <= 1.001 * q and over_half <= 0.02
            verdicts.append(f"max {d.max() / q:.2f} steps, {100 * over_half:.2f}% over half a step "
                            f"(step {q:.3g}{'' if steps[k] else ' = range/255'})")
        elif args.rule == "f16":
            rel = float(d.max()) / m if m > 0 else float(d.max())
            good = rel <= 3e-2
            text = f"max abs {d.max():.3g} = {rel:.3g} of max |ORT|"
            if not good and fp32 is not None:
                ge_err = float(np.abs(g - fp32[k]).max())
                ort_err = float(np.abs(r - fp32[k]).max())
                good = ge_err <= 1.25 * ort_err
                text += f"; vs float32: GE {ge_err:.3g}, ORT {ort_err:.3g}"
            verdicts.append(text)
        else:  # bf16
            rel = float(d.max()) / m if m > 0 else float(d.max())
            good = rel <= 2e-2
            l2 = float(np.linalg.norm(g - r) / max(np.linalg.norm(r), 1e-30))
            text = f"max abs {d.max():.3g} = {rel:.3g} of max |fp32| (L2 relative {l2:.3g}, not judged)"
            if args.top1:
                same = int(np.argmax(g)) == int(np.argmax(r))
                good = good and same
                text += f", top-1 {int(np.argmax(g))} vs {int(np.argmax(r))}"
            verdicts.append(text)
        ok = ok and good
    print(("yes: " if ok else "no: ") + "; ".join(verdicts))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
