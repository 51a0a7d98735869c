// Writes data-grown-1.js and data-grown-2.js the way github-action-benchmark does: each run loads
// data.js, appends one entry per suite (src/write.ts addBenchmarkEntry) and writes
// SCRIPT_PREFIX + JSON.stringify(data, null, 2). data-grown-1.js is the file after night 8,
// data-grown-2.js the same file four nights later. Two suites: `cargo` (ns/iter, as hyper's
// `cargo bench` output) with a +30 % step at night 9 in `parse`, and a customSmallerIsBetter
// suite whose `latency` switches its unit from ns to us at night 6 (same speed) and whose
// `size` switches from ns to bytes at night 10 (another measure under the same name).
// Run: node make_grown_data_js.js   (Node.js only, no packages)
const fs = require('fs');
const SCRIPT_PREFIX = 'window.BENCHMARK_DATA = ';
const START = Date.parse('2026-10-01T03:00:00Z');
const noise = [0, 3, -2, 1, -1, 2, -3, 0, 1, -2, 2, -1];  // per-mille, fixed so the files are reproducible
function sha(i) { return (i.toString(16).padStart(2, '0') + 'ab12cd34ef').repeat(4).slice(0, 40); }
function commit(i) {
  return {
    author: { email: 'dev@example.com', name: 'dev', username: 'dev' },
    committer: { email: 'noreply@github.com', name: 'GitHub', username: 'web-flow' },
    distinct: true,
    id: sha(i),
    message: `change ${i}`,
    timestamp: new Date(START + i * 86400000 - 3600000).toISOString().replace('.000Z', '+00:00'),
    tree_id: sha(i + 100),
    url: `https://github.com/acme/widgets/commit/${sha(i)}`,
  };
}
function night(data, i) {
  const date = START + i * 86400000;
  const f = 1 + noise[i] / 1000;
  const parse = Math.round(52000 * (i >= 9 ? 1.3 : 1) * f);
  const cargo = [
    { name: 'parse', value: parse, range: '± 812', unit: 'ns/iter' },
    { name: 'write', value: Math.round(18000 * f), range: '± 240', unit: 'ns/iter' },
  ];
  const latency = i >= 6 ? { name: 'latency', value: 7.5 * f, unit: 'us' } : { name: 'latency', value: Math.round(7500 * f), unit: 'ns' };
  const size = i >= 10 ? { name: 'size', value: 4096, unit: 'bytes' } : { name: 'size', value: Math.round(900 * f), unit: 'ns' };
  for (const [suite, tool, benches] of [['cargo', 'cargo', cargo], ['custom', 'customSmallerIsBetter', [latency, size]]]) {
    data.entries[suite] = data.entries[suite] || [];
    data.entries[suite].push({ commit: commit(i), date, tool, benches });
  }
  data.lastUpdate = date + 5000;
}
const data = { lastUpdate: 0, repoUrl: 'https://github.com/acme/widgets', entries: {} };
for (let i = 0; i < 8; i++) night(data, i);
fs.writeFileSync('data-grown-1.js', SCRIPT_PREFIX + JSON.stringify(data, null, 2), 'utf8');
for (let i = 8; i < 12; i++) night(data, i);
fs.writeFileSync('data-grown-2.js', SCRIPT_PREFIX + JSON.stringify(data, null, 2), 'utf8');
