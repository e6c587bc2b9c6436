/**
 * One fuzz batch in a child process (the parent sets --max-old-space-size and kills it on a
 * stall). Protocol, one JSON object per stdout line:
 *   {"at":i}                      about to run input i (the parent blames a stall or OOM on it)
 *   {"i":i,"r":"ok"|"rejected"}   input i ended
 *   {"i":i,"r":"crash","error":…,"min":base64}   input i threw something not ours (minimised)
 *   {"done":true}
 * `--replay TARGET FILE` runs one saved input and prints {"r":…,"error":…}.
 */
import { readFileSync } from 'node:fs';
import { classify, crashKey } from './classify.js';
import { inputFor } from './mutate.js';
import { makeTarget, type Target } from './targets.js';

const out = (o: object) => process.stdout.write(JSON.stringify(o) + '\n');

async function runOne(t: Target, input: Uint8Array) {
  try {
    await t.run(input);
    return classifyOk();
  } catch (e) {
    return classify(e);
  }
}
const classifyOk = () => ({ kind: 'ok' as const });

/** Cheap delta debugging: drop chunks while the same crash (by key) remains; at most 120 tries. */
async function minimise(t: Target, input: Uint8Array, key: string): Promise<Uint8Array> {
  let best = input;
  let tries = 0;
  for (let chunk = Math.max(1, best.length >> 1); chunk >= 1 && tries < 120; chunk >>= 1) {
    for (let at = 0; at < best.length && tries < 120; ) {
      const cand = Uint8Array.from([...best.subarray(0, at), ...best.subarray(at + chunk)]);
      tries++;
      const r = await runOne(t, cand);
      if (r.kind === 'crash' && crashKey(r.error) === key) best = cand;
      else at += chunk;
    }
  }
  return best;
}

let current = -1;
process.on('uncaughtException', (e) => {
  out({ i: current, r: 'crash', error: `uncaught ${classify(e).kind === 'crash' ? '' : '(ours) '}${(e as Error)?.constructor?.name}: ${String((e as Error)?.message).split('\n')[0]}` });
  process.exit(3);
});
process.on('unhandledRejection', (e) => {
  out({ i: current, r: 'crash', error: `unhandled rejection ${(e as Error)?.constructor?.name}: ${String((e as Error)?.message).split('\n')[0]}` });
  process.exit(3);
});

async function main(argv: string[]): Promise<void> {
  if (argv[0] === '--replay') {
    const t = await makeTarget(argv[1]!);
    try {
      const r = await runOne(t, new Uint8Array(readFileSync(argv[2]!)));
      out({ r: r.kind, ...(r.kind === 'ok' ? {} : { error: r.error }) });
    } finally {
      await t.cleanup();
    }
    return;
  }
  const [name, seed, from, count, minimiseFlag] = [argv[0]!, Number(argv[1]), Number(argv[2]), Number(argv[3]), argv[4] === 'minimise'];
  const t = await makeTarget(name);
  try {
    for (let i = from; i < from + count; i++) {
      current = i;
      out({ at: i });
      const input = inputFor(name, seed, i, t.seeds, t.dict);
      const r = await runOne(t, input);
      if (r.kind === 'crash') {
        const min = minimiseFlag ? await minimise(t, input, crashKey(r.error)) : input;
        out({ i, r: 'crash', error: r.error, min: Buffer.from(min).toString('base64') });
      } else out({ i, r: r.kind });
    }
  } finally {
    await t.cleanup();
  }
  out({ done: true });
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`fuzz worker: ${(e as Error).message}\n`);
    process.exit(2);
  },
);
