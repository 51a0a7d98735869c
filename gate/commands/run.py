"""`ordertrap-gate run` — check out base and head, build each once, run the RMIT schedule.

Writes ``OUT/trials.csv`` (appended after every trial) and ``OUT/meta.json`` (docs/contracts.md).
Running the same command again with the same ``--out`` resumes; see docs/running.md "Running benchmarks".
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import os
import secrets
import socket
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import IO, Any

from gate import errors
from gate.adaptive import stage
from gate.config import config_changes, config_files, trusted_keys
from gate.config.project_config import ProjectConfig
from gate.engine import checkout, environment, measure, plan, process, record, sandbox, source_changes
from gate.engine.layout import Layout
from gate.engine.leftover import reap_leftover
from gate.engine.process import SubprocessRunner
from gate.engine.schedule import Trial
from gate.engine.shard import ShardSpec, parse_shard
from gate.errors import ConfigError, InputError, RunError
from gate.files import run_meta
from gate.files.run_meta import RunMeta
from gate.files.settings import BUDGET, MAX_ROUNDS, SANDBOX, SEED, SHARD
from gate.files.trial_log import TrialLog
from gate.host import programs, worktree
from gate.rounds.clock import BudgetClock
from gate.rounds.config import DEFAULT_MAX_ROUNDS, AdaptiveConfig, check_max_rounds, parse_duration
from gate.warning_codes import WarningCode
from gate.workflow_commands import emit

NAME = "run"
HELP = "run the benchmark suite for base and head in a randomized interleaved (RMIT) order"

EXIT_INTERRUPTED = 130


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        default=".ordertrap.toml",
        help="config file (default: %(default)s); inside the repository it is read from the base revision",
    )
    parser.add_argument("--base", metavar="REF", help="base revision (omit for a one-version run)")
    parser.add_argument(
        "--head", metavar="REF", required=True, help="head revision (branch, tag, SHA, HEAD~1)"
    )
    parser.add_argument(
        "--out", metavar="DIR", required=True, help="output directory; rerun with the same DIR to resume"
    )
    parser.add_argument(
        "--seed", type=SEED.argument("--seed"), help="schedule seed (default: random; recorded in meta.json)"
    )
    parser.add_argument(
        "--calibration",
        metavar="FILE",
        help="per-benchmark minimal configurations (calibrate); inside the repository read like --config",
    )
    parser.add_argument(
        "--config-from",
        choices=config_files.CHOICES,
        help="where --config and --calibration inside the repository are read: the base revision "
        "(default with --base: a pull request cannot choose what its own gate measures), head's "
        "commit, or the files on disk (the default without --base); changes in head are reported",
    )
    parser.add_argument(
        "--config-rev",
        metavar="REF",
        help="with --config-from base: the revision the files are read from (default: --base); for a "
        "pull request its base branch tip, while --base is the merge-base that is measured",
    )
    parser.add_argument(
        "--order-check",
        action="store_true",
        help="OrderSage protocol: alternate one fixed baseline order with random orders, reset before each run",
    )
    parser.add_argument(
        "--order-pairs",
        type=int,
        metavar="N",
        help="--order-check: number of (fixed, random) run pairs (default: [full] suite_runs × iterations)",
    )
    parser.add_argument("--instance", help="runner identity for the instance column (default: host name)")
    parser.add_argument(
        "--repo", metavar="DIR", help="git repository to check out from (default: the config's repo)"
    )
    parser.add_argument(
        "--budget",
        type=BUDGET.argument("--budget"),
        metavar="DURATION",
        help="follow-up rounds for benchmarks inconclusive for lack of data, within this wall time of "
        "measuring (900, 900s, 15m, 1h30m; 0 = off; default: [adaptive].budget); needs --base",
    )
    parser.add_argument(
        "--max-rounds",
        type=MAX_ROUNDS.argument("--max-rounds"),
        metavar="N",
        help=f"most follow-up rounds (default: [adaptive].max_rounds, else {DEFAULT_MAX_ROUNDS})",
    )
    parser.add_argument(
        "--shard",
        type=SHARD.argument("--shard", as_text=True),
        metavar="K/N",
        help="measure only shard K of N of the suite (split by expected time, the same on every runner; "
        "base and head of a benchmark stay together); analyze merges the shards' logs "
        "(docs/github-actions.md, 'Sharding a suite')",
    )
    parser.add_argument(
        "--sandbox",
        type=SANDBOX.argument("--sandbox"),
        metavar="{auto,on,off}",
        help="isolation of builds, benchmarks and resets, over the file's [suite] sandbox; on GitHub "
        "only this flag (the run action's input `sandbox`) can turn the sandbox off",
    )
    parser.add_argument(
        "--keep-worktrees",
        action="store_true",
        help="keep OUT/worktrees after a complete run (kept anyway on failure)",
    )


def _warn(warning: Mapping[str, str]) -> None:
    if os.environ.get("GITHUB_ACTIONS") == "true":
        emit(
            "warning",
            f"{warning['message']}. Fix: {warning['action']}",
            {"title": f"ordertrap-gate: {warning['code']}"},
        )
    else:
        print(f"warning: {warning['message']}\n  fix: {warning['action']}", file=sys.stderr)


def _lock(out: Path) -> IO[str]:
    """One run per output directory: two writers would interleave trials.csv."""
    fh = (out / ".lock").open("a")
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        fh.close()
        raise RunError(
            f"another `ordertrap-gate run` is using {out}",
            "wait for it to finish (or stop it), or pass a different --out",
        ) from None
    return fh


def _repo_for(args: RunRequest) -> Path:
    if args.repo:
        return worktree.toplevel(Path(args.repo).resolve())
    # the directory as written: a symbolic link committed as the config file must not pick the repository
    config_dir = Path(os.path.abspath(args.config)).parent
    try:
        return worktree.toplevel(config_dir)
    except RunError:
        return worktree.toplevel(Path.cwd())


@dataclass(frozen=True)
class RunRequest:
    """The keyword core's arguments: one field per flag of ``run`` (same names and meaning, None
    where the flag is not given). The run action (gate/action/run_action.py) builds one from its
    typed inputs; ``budget`` may be seconds (a number) as well as the flag's text."""

    head: str
    out: str | Path
    config: str | Path = ".ordertrap.toml"
    base: str | None = None
    seed: int | None = None
    calibration: str | None = None
    config_from: str | None = None
    config_rev: str | None = None
    order_check: bool = False
    order_pairs: int | None = None
    instance: str | None = None
    repo: str | Path | None = None
    budget: str | float | None = None
    max_rounds: int | None = None
    shard: str | None = None
    sandbox: str | None = None
    keep_worktrees: bool = False

    @classmethod
    def from_namespace(cls, args: argparse.Namespace) -> RunRequest:
        """From the parsed flags (a namespace built by hand may leave the later flags out)."""
        given = vars(args)
        return cls(**{f.name: given[f.name] for f in fields(cls) if f.name in given})


def run(args: argparse.Namespace, clock: BudgetClock | None = None) -> int:
    """The argparse front end of :func:`run_benchmarks`."""
    return run_benchmarks(RunRequest.from_namespace(args), clock)


def run_benchmarks(args: RunRequest, clock: BudgetClock | None = None) -> int:
    """Check out base and head, build, run the schedule (module docstring); the exit status.
    ``clock``: the budget clock of follow-up rounds (default :class:`WallClock`); an evaluation
    passes one that replays recorded durations in simulated time."""
    out = Path(args.out).resolve()
    try:
        out.mkdir(parents=True, exist_ok=True)
        lock = _lock(out)
        try:
            return _run(args, out, clock)
        finally:
            lock.close()
    except OSError as exc:
        if not errors.is_disk_full(exc):
            raise
        # anywhere else the run writes (the lock, a build marker, the log's header): the same fix
        where = exc.filename or out
        raise errors.disk_full_error(f"writing {where}", str(exc.strerror), where) from None


def _adaptive(args: RunRequest, config: ProjectConfig) -> AdaptiveConfig:
    """``[adaptive]`` of the config, overridden by ``--budget`` / ``--max-rounds``."""
    budget = config.adaptive.budget_s
    if getattr(args, "budget", None) is not None:
        budget = parse_duration(args.budget, "--budget")
    max_rounds = config.adaptive.max_rounds
    if getattr(args, "max_rounds", None) is not None:
        max_rounds = check_max_rounds(args.max_rounds, "--max-rounds")
    adaptive = AdaptiveConfig(budget, max_rounds)
    if adaptive.on and args.base is None:
        raise ConfigError(
            "a follow-up budget needs two versions: rounds resolve base-vs-head comparisons",
            "pass --base REF, or --budget 0 (or remove [adaptive].budget) for a one-version run",
        )
    if adaptive.on and args.order_check:
        raise ConfigError(
            "--order-check cannot be combined with a follow-up budget: --order-check measures the full "
            "configuration",
            "pass --budget 0 with --order-check (or run the order check without [adaptive].budget)",
        )
    return adaptive


def _recorded_seed(
    existing: RunMeta | None,
    shard: ShardSpec | None,
    config: ProjectConfig,
    versions: Sequence[checkout.Version],
) -> int:
    """The seed of the run being resumed, else a new one: random, or for a shard one every shard
    of the same revisions and config derives alike (the split depends on it; gate/engine/shard.py)."""
    if existing is not None and existing.seed is not None:
        return existing.seed
    if shard is not None:
        parts = [str(config.config_hash), *(f"{v.role}={v.sha}" for v in versions)]
        return int.from_bytes(hashlib.sha256("\0".join(parts).encode()).digest()[:4], "big")
    return secrets.randbits(32)


def _run(args: RunRequest, out: Path, clock: BudgetClock | None = None) -> int:
    """Composition: check the arguments, read the inputs, then plan, check out, record, measure."""
    _check_arguments(args)
    repo = _repo_for(args)
    # Before any code of the revisions runs: git, bwrap, go and java from outside every place
    # that code can write (gate/host/programs.py), for the whole run.
    programs.pin(extra_places=[out, repo])
    versions = checkout.resolve_versions(repo, args.base, args.head)
    inputs = _read_inputs(args, repo, versions)
    config, trust_warnings = trusted_keys.apply(
        inputs.config,
        chosen_by_head=inputs.config_source.kind in ("head", "worktree"),
        sandbox_flag=getattr(args, "sandbox", None),
        env=os.environ,
        where=inputs.config_source.label,
    )
    calibration = inputs.calibration
    # the cache binds are writable in the sandbox too: no program of the gate's from there
    programs.pin(extra_places=[out, repo, *_caches(config)])
    adaptive = _adaptive(args, config)
    checkout.refuse_persisted_credentials(repo)
    meta_path, log_path = out / run_meta.FILE_NAME, out / "trials.csv"
    existing = record.read_existing(out)
    shard = parse_shard(args.shard) if args.shard else None
    seed = args.seed if args.seed is not None else _recorded_seed(existing, shard, config, versions)
    instance = args.instance or socket.gethostname()
    fresh = record.identity(
        seed=seed,
        config=config,
        mode="order-check" if args.order_check else "rmit",
        base=args.base,
        head=args.head,
        instance=instance,
        calibration=record.calibration_ref(calibration, inputs.calibration_sha256),
        order_pairs=_order_pairs(args, config),
        versions=versions,
    )
    if existing is not None:
        record.check_shard_resume(existing, None if shard is None else str(shard), out)
        record.check_resume(existing, fresh, out)
        record.check_adaptive_resume(existing, adaptive, out)
        if _complete(existing, adaptive, log_path):
            if not args.keep_worktrees:  # a kill during the final clean-up left some behind
                checkout.remove(repo, out, versions)
            return 0

    env = environment.fingerprint()
    warnings = environment.check(env) + list(inputs.warnings) + trust_warnings
    for w in warnings:
        _warn(w)
    # Head's changes to the config or calibration are reported before the build (which may fail
    # with base's [suite].build); only adapters that discover benchmarks need head's names first.
    discovers = config.suite.adapter != "command"
    changes_by_file = {} if discovers else _report_changes(inputs, None, warnings)
    if args.order_check and not config.suite.reset:
        _warn_and_record(
            {
                "code": WarningCode.NO_RESET.value,
                "message": "--order-check without [suite].reset: runs do not start from a clean state "
                "(OrderSage §3 step 2)",
                "action": 'set [suite] reset = "..." to a command that restores a clean state',
            },
            warnings,
        )
    runner, isolation = _runner(config, repo, out, versions, warnings)
    contexts = checkout.check_out(
        repo, out, versions, config, runner, from_base=inputs.config_source.kind == "base"
    )

    from gate.adapters.registry import get_adapter  # imported late: adapters import optional tools

    adapter = get_adapter(config.suite.adapter)
    per_version, found = plan.discover(adapter, runner, contexts, config)
    if args.base is not None:
        in_both = set(per_version.get(args.base, {})) & set(per_version.get(args.head, {}))
        edited = source_changes.changed_benchmarks(adapter, repo, versions[0].sha, versions[-1].sha, in_both)
        edited_warning = source_changes.source_changed_warning(edited, args.base, args.head)
        if edited_warning is not None:
            _warn_and_record(edited_warning, warnings)
    if discovers:
        changes_by_file = _report_changes(inputs, found.get(args.head), warnings)
    run_plan = plan.plan_run(
        per_version,
        config,
        calibration,
        order_check=args.order_check,
        revisions=[v.revision for v in versions],
        seed=seed,
        instance=instance,
        order_pairs=fresh.order_pairs,
        shard=shard,
    )
    if run_plan.shard is not None:
        split = run_plan.shard
        unit = "s" if split.cost_unit == "s" else " values"
        print(
            f"ordertrap-gate run: shard {split.spec}: {len(run_plan.names)} of {len(split.suite)} benchmarks, "
            f"expected {split.expected[split.spec.index - 1]:g}{unit} (slowest shard "
            f"{max(split.expected):g}{unit}, ideal {sum(split.expected) / split.spec.count:g}{unit})",
            file=sys.stderr,
        )
    for w in run_plan.warnings:
        _warn_and_record(w, warnings)
    calibrated = plan.calibration_line(calibration, run_plan.levels)
    if calibrated is not None:
        print(f"ordertrap-gate run: {calibrated}", file=sys.stderr)
    layout = Layout(seed, enabled=config.suite.randomise_layout)
    meta = record.new_meta(
        fresh,
        config_path=str(args.config),
        config=config,
        inputs=inputs,
        changes_by_file=changes_by_file,
        contexts=contexts,
        plan=run_plan,
        calibration=calibration,
        environment=env,
        sandbox=isolation,
        layout=layout,
        warnings=warnings,
        adaptive=adaptive,
    )
    log = TrialLog(log_path)
    meta, done = _start(meta, existing, run_plan.schedule, log, out)
    session = measure.Session(config, adapter, runner, contexts, per_version, repo, log, done, layout)
    # the budget counts from the first planned trial (docs/running.md "Follow-up rounds")
    then = None
    if adaptive.on:
        then = stage.after_planned(
            adaptive, clock or stage.budget_clock(log_path, done), run_plan.levels, _warn
        )
    completed = measure.measure(session, meta, meta_path=meta_path, schedule=run_plan.schedule, then=then)
    if not completed:
        print(
            f"ordertrap-gate run: stopped; every finished trial is in {log_path}. "
            "Run the same command again to resume.",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    if not args.keep_worktrees:
        checkout.remove(repo, out, versions)
    return 0


def _start(
    meta: RunMeta, existing: RunMeta | None, schedule: Sequence[Trial], log: TrialLog, out: Path
) -> tuple[RunMeta, set[int]]:
    """A new run writes its meta.json; a resumed one keeps its own (with the rounds it recorded)
    when it plans the same trials. Returns the run's meta and the trials its log already holds."""
    if existing is None:
        run_meta.write(out / run_meta.FILE_NAME, meta)
        return meta, log.recover(schedule)
    if [t.as_meta() for t in schedule] != [dict(t) for t in existing.schedule]:
        raise InputError(
            f"the benchmarks found now differ from the run in {out} (discovery or filters changed)",
            "pass a new --out to start a new run",
        )
    done = log.recover([*schedule, *existing.round_trials()])
    if existing.adaptive is None and meta.adaptive is not None:
        # a budget added to a run made without one (record.check_adaptive_resume): its rounds follow
        # the planned trials already in the log
        existing = existing.with_adaptive(meta.adaptive)
        run_meta.write(out / run_meta.FILE_NAME, existing)
        print(
            f"ordertrap-gate run: adding follow-up rounds (budget {meta.adaptive.budget_s:g} s, counted from "
            f"the first planned trial) to the run in {out}",
            file=sys.stderr,
        )
    if done:
        print(
            f"ordertrap-gate run: resuming, {len(done)}/{len(schedule) + len(existing.round_trials())} "
            "trials already done",
            file=sys.stderr,
        )
    return existing, done


def _check_arguments(args: RunRequest) -> None:
    """Flags that contradict each other, reported before any checkout."""
    if getattr(args, "budget", None) is not None:
        parse_duration(args.budget, "--budget")  # a typo is reported before any checkout
    if getattr(args, "max_rounds", None) is not None:
        check_max_rounds(args.max_rounds, "--max-rounds")
    if args.shard:
        parse_shard(args.shard)  # a typo is reported before any checkout
    if args.order_check and args.calibration:
        raise ConfigError(
            "--order-check and --calibration cannot be combined",
            "the order check measures the full configuration; drop --calibration",
        )
    if args.order_pairs is not None and not args.order_check:
        raise ConfigError("--order-pairs needs --order-check", "add --order-check or drop --order-pairs")
    if args.base is not None and args.base == args.head:
        raise ConfigError(
            f"--base and --head are the same string {args.head!r}; the version column could not tell them apart",
            "for an A/A run pass the branch to one and its SHA to the other",
        )
    if args.config_rev is not None and args.base is None:
        raise ConfigError(
            "--config-rev needs --base",
            "pass --base REF, or drop --config-rev (a one-version run reads the files on disk)",
        )


def _read_inputs(args: RunRequest, repo: Path, versions: Sequence[checkout.Version]) -> config_files.Inputs:
    """The config and calibration, from the revision --config-from names (docs/running.md)."""
    revisions = {v.role: config_files.Revision(v.role, v.revision, v.sha) for v in versions}
    config_rev = None
    if args.config_rev is not None:
        config_rev = config_files.Revision("base", args.config_rev, worktree.resolve(repo, args.config_rev))
    inputs = config_files.read_inputs(
        str(args.config),
        args.calibration,
        args.config_from,
        repo,
        revisions.get("base"),
        revisions["head"],
        config_rev,
    )
    for line in inputs.log:
        print(f"ordertrap-gate run: {line}", file=sys.stderr)
    return inputs


def _order_pairs(args: RunRequest, config: ProjectConfig) -> int | None:
    if not args.order_check:
        return None
    # --order-pairs 0 is an error (the schedule says so), not the default
    return (
        args.order_pairs if args.order_pairs is not None else config.full.suite_runs * config.full.iterations
    )


def _complete(existing: RunMeta, adaptive: AdaptiveConfig, log_path: Path) -> bool:
    """The run in OUT has every trial in its log (and, with a budget, its final look recorded)."""
    if not log_path.exists():
        return False
    old_schedule = existing.planned_trials() + existing.round_trials()
    final = not adaptive.on or (existing.adaptive is not None and existing.adaptive.final is not None)
    done = TrialLog(log_path).recover(old_schedule)
    given_up = {(g.benchmark, g.version) for g in existing.given_up}  # not run, not missing
    left = [t for t in old_schedule if t.trial not in done and (t.benchmark, t.version) not in given_up]
    if final and (not left or adaptive.on):
        print(f"ordertrap-gate run: all {len(done)} trials are already in {log_path}", file=sys.stderr)
        return True
    return False


def _runner(
    config: ProjectConfig,
    repo: Path,
    out: Path,
    versions: Sequence[checkout.Version],
    warnings: list[dict[str, str]],
) -> tuple[SubprocessRunner, dict[str, Any]]:
    """The process runner for builds, benchmarks and resets, and its sandbox's meta.json entry."""
    # A run killed with SIGKILL may have left its last trial (or build, or reset) running: reap it first,
    # or it would compete with the resumed trials for the CPU.
    reaped = reap_leftover(out / ".running", out)
    if reaped:
        _warn(
            {
                "code": WarningCode.REAPED.value,
                "message": f"killed {reaped} process(es) that the previous, interrupted run left running",
                "action": "none: they would have disturbed the resumed trials",
            }
        )
    # Builds, benchmarks and resets run the revision's code: in a sandbox (gate/engine/sandbox.py).
    areas = [(out / "worktrees" / v.dirname, out / "scratch" / v.dirname) for v in versions]
    pull_request = process.runs_pull_request_code()
    # no network on a pull request's event unless base's [suite] network = true (docs/configuration.md)
    network = config.suite.network if config.suite.network is not None else not pull_request
    isolation = sandbox.choose_isolation(
        config.suite.sandbox,
        lambda bwrap: sandbox.plan(
            repo=repo,
            out=out,
            versions=areas,
            bwrap=bwrap,
            network=network,
            unix_sockets=config.suite.unix_sockets,
            caches=config.suite.caches,
            toolchain_dirs=config.suite.toolchains,
        ),
        cwd=repo,
    )
    if isolation.sandbox is not None:
        isolation = sandbox.Isolation(
            isolation.sandbox,
            # unix_sockets: whether socket(AF_UNIX) works inside (opted in, or no filter for this host)
            {**isolation.meta, "network": network, "unix_sockets": isolation.sandbox.seccomp is None},
            isolation.warning,
        )
    if isolation.warning is not None:
        _warn_and_record(isolation.warning, warnings)
    runner = SubprocessRunner(
        pid_file=out / ".running",
        pass_env=config.suite.pass_env,
        sandbox=isolation.sandbox,
        allowlist=pull_request,
    )
    return runner, isolation.meta


def _caches(config: ProjectConfig) -> list[Path]:
    return [sandbox.expand(c, os.environ.get("HOME", "")) for c in config.suite.caches]


def _warn_and_record(w: dict[str, str], warnings: list[dict[str, str]]) -> None:
    warnings.append(w)
    _warn(w)


def _report_changes(
    inputs: config_files.Inputs, discovered: Sequence[str] | None, warnings: list[dict[str, str]]
) -> dict[str, list[str]]:
    changed, changes_by_file = config_changes.change_warnings(inputs, discovered)
    for w in changed:
        warnings.append(w)
        _warn(w)
    return changes_by_file
