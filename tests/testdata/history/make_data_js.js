// Writes data.js and data.json the way github-action-benchmark does (src/write.ts:
// SCRIPT_PREFIX + JSON.stringify(data, null, 2); the external JSON file is the same object
// without the prefix), from the two real pytest-benchmark runs beside this file, mapped as its
// pytest extractor does (src/extract.ts: value = ops, unit "iter/sec", range "stddev: …").
// Run: node make_data_js.js   (Node.js only, no packages)
const fs = require('fs');
const SCRIPT_PREFIX = 'window.BENCHMARK_DATA = ';
const runs = ['pytest-benchmark-save.json', 'pytest-benchmark-json.json'].map((f) => JSON.parse(fs.readFileSync(f, 'utf8')));
const entries = runs.map((run, i) => ({
  commit: {
    author: { email: 't@example.com', name: 't', username: 't' },
    committer: { email: 't@example.com', name: 't', username: 't' },
    distinct: true,
    id: run.commit_info.id,
    message: i === 0 ? 'bench' : 'second',
    timestamp: run.commit_info.time,
    tree_id: '4b825dc642cb6eb9a060e54bf8d69288fbee4904',
    url: `https://github.com/acme/widgets/commit/${run.commit_info.id}`,
  },
  date: Date.parse(run.datetime),
  tool: 'pytest',
  benches: run.benchmarks.map((b) => ({
    name: b.fullname,
    value: b.stats.ops,
    unit: 'iter/sec',
    range: `stddev: ${b.stats.stddev}`,
    extra: `mean: ${b.stats.mean} sec\nrounds: ${b.stats.rounds}`,
  })),
}));
const data = { lastUpdate: entries[1].date + 1000, repoUrl: 'https://github.com/acme/widgets', entries: { 'Python Benchmark with pytest-benchmark': entries } };
fs.writeFileSync('data.js', SCRIPT_PREFIX + JSON.stringify(data, null, 2), 'utf8');
fs.writeFileSync('data.json', JSON.stringify(data, null, 2), 'utf8');
