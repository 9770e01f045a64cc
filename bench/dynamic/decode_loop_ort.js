// Greedy decoding with the decoder step on ONNX Runtime, as decode_loop.py does on GE:
//   node decode_loop_ort.js MODEL STEPS THREADS   (ORT from $ORT_HOME, default /tmp/ort-peer)
// Prints one JSON line: total_ms, first_ms, median_step_ms, steps_ms, tokens.
const ortHome = process.env.ORT_HOME || '/tmp/ort-peer';
const ort = require(`${ortHome}/node_modules/onnxruntime-node`);
const PROMPT = 16, VOCAB = 8192;
(async () => {
  const [model, steps, threads] = [process.argv[2], +(process.argv[3] || 64), +(process.argv[4] || 1)];
  const session = await ort.InferenceSession.create(model, {intraOpNumThreads: threads, interOpNumThreads: 1});
  let ids = new ort.Tensor('int64', BigInt64Array.from({length: PROMPT}, (_, i) => BigInt((i * 7919) % VOCAB)), [1, PROMPT]);
  let past = new ort.Tensor('float32', new Float32Array(0), [4, 2, 1, 8, 0, 64]);
  const times = [], tokens = [];
  const start = process.hrtime.bigint();
  for (let i = 0; i <= steps; i++) {
    const t = process.hrtime.bigint();
    const out = await session.run({ids, past});
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
    past = out.present;
    const logits = out.logits.data, vocab = out.logits.dims[2], base = (out.logits.dims[1] - 1) * vocab;
    let best = 0;
    for (let j = 1; j < vocab; j++) if (logits[base + j] > logits[base + best]) best = j;
    tokens.push(best);
    ids = new ort.Tensor('int64', BigInt64Array.from([BigInt(best)]), [1, 1]);
  }
  const total = Number(process.hrtime.bigint() - start) / 1e6;
  const rest = times.slice(1).sort((a, b) => a - b);
  const median = rest.length % 2 ? rest[rest.length >> 1] : (rest[rest.length / 2 - 1] + rest[rest.length / 2]) / 2;
  console.log(JSON.stringify({total_ms: total, first_ms: times[0], median_step_ms: median, steps_ms: times, tokens}));
})().catch((e) => { console.error(e.message); process.exit(1); });
