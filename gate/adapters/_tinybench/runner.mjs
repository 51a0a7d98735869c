// Runs one task of a tinybench suite for the ordertrap-gate `tinybench` adapter.
//
//   node runner.mjs FILE OUT list
//   node runner.mjs FILE OUT run NAME ITERATIONS [WARMUP_ITERATIONS WARMUP_TIME_MS]
//
// FILE is the suite: an ES module whose default export (or export `bench`) is a tinybench
// `Bench` with its tasks added, not yet run. The runner loads tinybench from FILE's own
// node_modules (the same module instance FILE imports) and makes every task keep its samples
// (tinybench discards them unless `retainSamples` is set when the task is added), removes every
// other task, and runs NAME for exactly ITERATIONS iterations (`time = 0`: tinybench stops at
// whichever of time and iterations comes last). It writes JSON to OUT:
//   {"tasks": [names], "samples": [ms, ...] | null, "error": message | null, "version": "x.y.z"}
// Names and messages are the suite's own (untrusted): they are data for the gate, never printed here.
import { writeFileSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [file, out, mode, name, iterations, warmupIterations, warmupTime] = process.argv.slice(2);
const suite = resolve(file);
const write = (data) => writeFileSync(out, JSON.stringify(data));

const require = createRequire(suite);
let entry;
try {
  entry = require.resolve("tinybench");
} catch (err) {
  write({ tasks: [], samples: null, error: `cannot find tinybench from ${file}: ${err.message}`, setup: true });
  process.exit(0);
}
let version = null;
try {
  version = JSON.parse(readFileSync(join(dirname(entry), "..", "package.json"), "utf8")).version ?? null;
} catch {
  // the version is informative only
}
const tinybench = await import(pathToFileURL(entry).href);
const add = tinybench.Bench.prototype.add;
tinybench.Bench.prototype.add = function (taskName, fn, fnOpts) {
  return add.call(this, taskName, fn, { ...fnOpts, retainSamples: true });
};

const mod = await import(pathToFileURL(suite).href);
const bench = mod.default ?? mod.bench;
if (!(bench instanceof tinybench.Bench)) {
  write({ tasks: [], samples: null, error: `${file} exports no tinybench Bench as default or as "bench"`, setup: true, version });
  process.exit(0);
}
const tasks = bench.tasks.map((t) => t.name);
if (mode === "list" || !tasks.includes(name)) {
  write({ tasks, samples: null, error: null, version });
  process.exit(0);
}
for (const other of tasks) {
  if (other !== name) bench.remove(other);
}
bench.iterations = Number(iterations);
bench.time = 0;
if (warmupIterations !== undefined && warmupIterations !== "") {
  bench.warmupIterations = Number(warmupIterations);
  bench.warmupTime = Number(warmupTime);
  bench.warmup = Number(warmupIterations) > 0 || Number(warmupTime) > 0;
}
bench.throws = false;
await bench.run();
const result = bench.getTask(name).result;
if (result.state !== "completed") {
  const message = result.error ? String(result.error.message ?? result.error) : `task ended ${result.state}`;
  write({ tasks, samples: null, error: message, version });
  process.exit(0);
}
write({ tasks, samples: Array.from(result.latency.samples ?? []), error: null, version });
