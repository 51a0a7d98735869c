"""`ordertrap-gate run` — check out base and head, build each once, run the RMIT schedule.

Writes ``OUT/trials.csv`` (appended after every trial) and ``OUT/meta.json`` (docs/contracts.md).
Running the same command again with the same ``--out`` resumes; see docs/running.md "Running benchmarks".
"""

from __future__ import annotations

import argparse
import fcntl
import math
import os
import secrets
import shlex
import shutil
import socket
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from gate import __version__
from gate.adapters.base import Adapter, BenchmarkSpec, ProcessRunner, VersionContext
from gate.engine import config_source, environment, process, sandbox, worktree
from gate.engine.driver import DriverResult, StopFlag, run_reset, run_schedule
from gate.engine.layout import Layout
from gate.engine.process import SubprocessRunner, reap_leftover
from gate.engine.rounds import (
    DEFAULT_MAX_ROUNDS,
    AdaptiveConfig,
    BudgetClock,
    WallClock,
    adaptive_meta,
    check_max_rounds,
    parse_duration,
    prior_elapsed_s,
)
from gate.engine.schedule import LevelConfig, Trial, order_check_schedule, rmit_schedule
from gate.engine.settings import Config, substitute_worktree
from gate.errors import ConfigError, InputError, RunError
from gate.files import run_meta
from gate.files.calibration_json import Calibration
from gate.files.run_meta import BenchmarkConfig, Levels, RunMeta, VersionRecord
from gate.files.trial_log import TrialLog
from gate.github.workflow_commands import emit, print_untrusted
from gate.model import LEVELS, TRIAL_LOG_SCHEMA, VERDICT_CONFIDENCE, ConfigSource, rank_floor, utc_timestamp
from gate.warning_codes import WarningCode

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
    parser.add_argument("--seed", type=int, help="schedule seed (default: random; recorded in meta.json)")
    parser.add_argument(
        "--calibration",
        metavar="FILE",
        help="per-benchmark minimal configurations (calibrate); inside the repository read like --config",
    )
    parser.add_argument(
        "--config-from",
        choices=config_source.CHOICES,
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
        metavar="DURATION",
        help="follow-up rounds for benchmarks inconclusive for lack of data, within this wall time of "
        "measuring (900, 900s, 15m, 1h30m; 0 = off; default: [adaptive].budget); needs --base",
    )
    parser.add_argument(
        "--max-rounds",
        type=int,
        metavar="N",
        help=f"most follow-up rounds (default: [adaptive].max_rounds, else {DEFAULT_MAX_ROUNDS})",
    )
    parser.add_argument(
        "--keep-worktrees",
        action="store_true",
        help="keep OUT/worktrees after a complete run (kept anyway on failure)",
    )


@dataclass(frozen=True)
class Version:
    role: str  # "base" | "head"
    revision: str  # exactly as given
    sha: str
    dirname: str


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


def _repo_for(args: argparse.Namespace) -> Path:
    if args.repo:
        return worktree.toplevel(Path(args.repo).resolve())
    # the directory as written: a symbolic link committed as the config file must not pick the repository
    config_dir = Path(os.path.abspath(args.config)).parent
    try:
        return worktree.toplevel(config_dir)
    except RunError:
        return worktree.toplevel(Path.cwd())


def _level_configs(
    benchmarks: Sequence[str], config: Config, calibration: Calibration | None
) -> dict[str, LevelConfig]:
    full = LevelConfig(config.full.suite_runs, config.full.iterations, config.full.measurements)
    level, count = warmup_of(calibration)
    out: dict[str, LevelConfig] = {}
    for name in benchmarks:
        c = calibration.config_for(name) if calibration else None
        if c is None or _never_stable(calibration, name):
            # µOpTime §5: a benchmark no configuration made stable keeps the full configuration;
            # it is labelled full, so no report counts it as a calibrated minimal one
            out[name] = full
        else:
            # calibration.json counts positions *after* the warm-up (docs/contracts.md): run the
            # discarded warm-up positions too, so the analysis can drop them as calibrate did.
            out[name] = LevelConfig(
                c.get("suite_run", full.suite_runs),
                c.get("iteration", full.iterations) + (count if level == "iteration" else 0),
                c.get("measurement", full.measurements) + (count if level == "measurement" else 0),
                ConfigSource.CALIBRATION.value,
            )
    return out


def _never_stable(calibration: Calibration | None, name: str) -> bool:
    return calibration is not None and calibration.never_stable(name)


def check_calibration(calibration: Calibration, config: Config, names: Sequence[str]) -> list[dict[str, str]]:
    """Refuse a calibration that does not fit this suite; warn when it covers few benchmarks.

    A file calibrated on other levels (e.g. the µOpTime data's ``second``) or for a larger [full]
    would otherwise be applied silently, half of it ignored or more work run than the full
    configuration itself."""
    fix = "recalibrate from a full run of this suite: `ordertrap-gate calibrate TRIALS.csv --out FILE`"
    if tuple(calibration.levels) != LEVELS:
        raise InputError(
            f"calibration {calibration.path} has levels {', '.join(calibration.levels)}; runs use "
            f"{', '.join(LEVELS)}",
            fix,
        )
    full = {"suite_run": config.full.suite_runs, "iteration": config.full.iterations,
            "measurement": config.full.measurements}  # fmt: skip
    for name, levels in calibration.configs.items():
        over = {k: v for k, v in levels.items() if v > full.get(k, v)}
        if over:
            raise InputError(
                f"calibration {calibration.path}: {name} asks for {over}, more than [full] "
                f"({full['suite_run']}×{full['iteration']}×{full['measurement']}) of {config.path}",
                fix + " (the file was made for another [full] configuration)",
            )
    # `calibrate --discard-warmup N` refuses an N that drops every position of the level, so a file
    # calibrated from a full run of this suite discards fewer than [full] has; runs execute the
    # discarded positions on top of the calibrated ones.
    level, count = warmup_of(calibration)
    if count >= full.get(level, count + 1):
        raise InputError(
            f"calibration {calibration.path} discards the first {count} {level}(s) as warm-up, but [full] "
            f"of {config.path} has only {full[level]}",
            fix + f" (with --discard-warmup below {full[level]})",
        )
    warnings = []
    known = [n for n in names if calibration.config_for(n) is not None]
    if len(known) < len(names) / 2:
        warnings.append(
            {
                "code": WarningCode.CALIBRATION_COVERAGE.value,
                "message": f"calibration {calibration.path} covers {len(known)} of {len(names)} benchmarks; "
                "the others run the full configuration",
                "action": "recalibrate (the nightly workflow does) if benchmarks were renamed or added",
            }
        )
    # A calibration made before the verdict's rank-test guard may give 3-4 values per version:
    # with those, no change can be called at 99 % (gate/analysis/compare.py, rank_floor).
    floor = rank_floor(VERDICT_CONFIDENCE)
    small = {
        n: math.prod(c.values())
        for n in known
        if (c := calibration.config_for(n)) and math.prod(c.values()) < floor
    }
    if small:
        shown = ", ".join(f"{n} ({v})" for n, v in list(small.items())[:5]) + (" …" if len(small) > 5 else "")
        warnings.append(
            {
                "code": WarningCode.CALIBRATION_TOO_SMALL.value,
                "message": f"calibration {calibration.path} gives {len(small)} benchmark(s) fewer than {floor} "
                f"values per version: {shown}; with so few values no change can be called at 99 %, "
                "they come out inconclusive",
                "action": (
                    "recalibrate with this gate version (`ordertrap-gate calibrate` picks at least "
                    f"{floor} values), or run without --calibration"
                    if config.full.values >= floor
                    else f"raise [full].iterations or [full].suite_runs (their product with measurements "
                    f"≥ {floor}; now {config.full.values}), rerun the full configuration and recalibrate"
                ),
            }
        )
    return warnings


def warmup_of(calibration: Calibration | None) -> tuple[str, int]:
    """(level, count) of the warm-up that calibrate discarded (µOpTime RQ3), ("measurement", 0) if none."""
    if calibration is None:
        return "measurement", 0
    level = str(calibration.discard_warmup.get("level") or "measurement")
    count = int(calibration.discard_warmup.get("count") or 0)
    if level not in ("measurement", "iteration") and count:
        raise InputError(
            f"calibration {calibration.path} discards warm-up at level {level!r}, which runs cannot repeat",
            "recalibrate with --warmup-level measurement or iteration",
        )
    return level, count


def _discover(
    adapter: Adapter, runner: ProcessRunner, contexts: Mapping[str, VersionContext], config: Config
) -> tuple[dict[str, dict[str, BenchmarkSpec]], dict[str, list[str]]]:
    """The benchmarks to run per version, and every name the adapter found (before include/exclude)."""
    settings = config.adapter_settings()
    per_version: dict[str, dict[str, BenchmarkSpec]] = {}
    found: dict[str, list[str]] = {}
    produced: set[str] = set()  # names found, and the [[benchmark]] patterns they were expanded from
    for revision, ctx in contexts.items():
        specs = adapter.discover(ctx, runner, settings)
        found[revision] = [s.name for s in specs]
        produced.update(n for s in specs for n in (s.name, s.options.get("pattern")) if isinstance(n, str))
        per_version[revision] = {s.name: config.override(s) for s in specs if config.selects(s.name)}
    lost = [b.name for b in config.benchmarks if b.name not in produced]
    if lost:
        raise ConfigError(
            f"[[benchmark]] {lost[0]!r} matches no benchmark in {' or '.join(contexts)}",
            "correct the name (a pattern such as BenchmarkSum64/* is matched level by level, * standing "
            'for any characters within a level; docs/frameworks.md, "[go]"), or remove the entry',
        )
    if not any(per_version.values()):
        raise ConfigError(
            "no benchmark is left to run after [suite].include/exclude",
            "widen [suite].include or narrow [suite].exclude (names are matched with re.search)",
        )
    return per_version, found


def _check_resume(meta: RunMeta, fresh: RunMeta, out: Path) -> None:
    for key in ("seed", "config_hash", "mode", "base", "head", "instance", "calibration", "order_pairs"):
        was, now = getattr(meta, key), getattr(fresh, key)
        if was != now:
            raise InputError(
                f"{out} holds a run with a different {key} ({was!r}, now {now!r})",
                f"pass a new --out to start a new run, or resume with the same seed/config/flags "
                f"(--seed {meta.seed})",
            )
    for rev, info in fresh.versions.items():
        old = meta.versions.get(rev, VersionRecord())
        if old.sha != info.sha:
            raise InputError(
                f"revision {rev!r} now points to {str(info.sha)[:12]}, but the run in {out} started at "
                f"{str(old.sha)[:12]}",
                # Resuming must measure the same code, and the version name is part of the log, so a
                # moved branch cannot continue this run (passing the SHA would rename the version).
                f"start a new run with a new --out (this one keeps its finished trials); to measure the "
                f"old code again, `git branch old-{info.role} {old.sha}` and pass that name",
            )


def run(args: argparse.Namespace, clock: BudgetClock | None = None) -> int:
    """``clock``: the budget clock of follow-up rounds (default :class:`WallClock`); an evaluation
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
        if not process.is_disk_full(exc):
            raise
        # anywhere else the run writes (the lock, a build marker, the log's header): the same fix
        where = exc.filename or out
        raise process.disk_full_error(f"writing {where}", str(exc.strerror), where) from None


def _adaptive(args: argparse.Namespace, config: Config) -> AdaptiveConfig:
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


def _check_adaptive_resume(meta: RunMeta, adaptive: AdaptiveConfig, out: Path) -> None:
    old = meta.adaptive or {}
    was = (float(old.get("budget_s", 0) or 0), int(old.get("max_rounds", adaptive.max_rounds) or 0))
    now = (adaptive.budget_s, adaptive.max_rounds if adaptive.on else was[1])
    if not old and not adaptive.on:
        return
    if was != now:
        raise InputError(
            f"{out} holds a run with follow-up budget {was[0]:g} s and at most {was[1]} rounds, now "
            f"{now[0]:g} s and {now[1]}",
            f"resume with --budget {was[0]:g}s --max-rounds {was[1]} (the per-look confidence depends "
            "on them), or pass a new --out to start a new run",
        )


def _recorded_seed(existing: RunMeta | None) -> int:
    """The seed of the run being resumed, else a new random one."""
    if existing is not None and existing.seed is not None:
        return existing.seed
    return secrets.randbits(32)


def _run(args: argparse.Namespace, out: Path, clock: BudgetClock | None = None) -> int:
    if getattr(args, "budget", None) is not None:
        parse_duration(args.budget, "--budget")  # a typo is reported before any checkout
    if getattr(args, "max_rounds", None) is not None:
        check_max_rounds(args.max_rounds, "--max-rounds")
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
    repo = _repo_for(args)
    roles = ([("base", args.base)] if args.base is not None else []) + [("head", args.head)]
    versions = [
        Version(role, rev, worktree.resolve(repo, rev), worktree.safe_name(role, rev)) for role, rev in roles
    ]
    revisions = {v.role: config_source.Revision(v.role, v.revision, v.sha) for v in versions}
    config_rev = None
    if args.config_rev is not None:
        if args.base is None:
            raise ConfigError(
                "--config-rev needs --base",
                "pass --base REF, or drop --config-rev (a one-version run reads the files on disk)",
            )
        config_rev = config_source.Revision("base", args.config_rev, worktree.resolve(repo, args.config_rev))
    inputs = config_source.read_inputs(
        args.config,
        args.calibration,
        args.config_from,
        repo,
        revisions.get("base"),
        revisions["head"],
        config_rev,
    )
    for line in inputs.log:
        print(f"ordertrap-gate run: {line}", file=sys.stderr)
    config, calibration = inputs.config, inputs.calibration
    adaptive = _adaptive(args, config)
    headers = worktree.persisted_auth_headers(repo)
    if headers:
        # The benchmarks run the revision's code in worktrees that share this config.
        key, config_file = headers[0]
        raise RunError(
            f"the repository's git config holds an authorization header ({key} in {config_file}), "
            "where the benchmarks (the code under test) could read the token",
            "check out with `persist-credentials: false` (actions/checkout), or remove it: "
            f"git config --file {shlex.quote(str(config_file))} --unset-all {shlex.quote(key)}",
        )
    meta_path, log_path = out / run_meta.FILE_NAME, out / "trials.csv"
    existing: RunMeta | None = None
    if meta_path.exists():
        existing = run_meta.read(meta_path)
    elif log_path.exists() and log_path.stat().st_size > 0:
        raise InputError(f"{log_path} exists without meta.json", "pass a new --out, or delete the directory")

    seed = args.seed if args.seed is not None else _recorded_seed(existing)
    instance = args.instance or socket.gethostname()
    mode = "order-check" if args.order_check else "rmit"
    order_pairs = None
    if args.order_check:  # --order-pairs 0 is an error (the schedule says so), not the default
        default_pairs = config.full.suite_runs * config.full.iterations
        order_pairs = args.order_pairs if args.order_pairs is not None else default_pairs
    calib_meta = None
    if calibration is not None:
        calib_meta = {
            "path": calibration.path,
            "metric": calibration.metric,
            "threshold": calibration.threshold,
            "sha256": inputs.calibration_sha256,
        }
    fresh = RunMeta(
        seed=seed,
        config_hash=config.config_hash,
        mode=mode,
        base=args.base,
        head=args.head,
        instance=instance,
        calibration=calib_meta,
        order_pairs=order_pairs,
        versions={v.revision: VersionRecord(v.role, v.sha) for v in versions},
    )
    if existing is not None:
        _check_resume(existing, fresh, out)
        _check_adaptive_resume(existing, adaptive, out)
        old_schedule = existing.planned_trials() + existing.round_trials()
        complete = not adaptive.on or (existing.adaptive or {}).get("final") is not None
        if log_path.exists():
            done = TrialLog(log_path).recover(old_schedule)
            if complete and (len(done) == len(old_schedule) or adaptive.on):
                print(
                    f"ordertrap-gate run: all {len(done)} trials are already in {log_path}", file=sys.stderr
                )
                if not args.keep_worktrees:  # a kill during the final clean-up left some behind
                    for v in versions:
                        wt = out / "worktrees" / v.dirname
                        if wt.exists():
                            worktree.remove(repo, wt)
                        (out / "worktrees" / f"{v.dirname}.built").unlink(missing_ok=True)
                return 0

    env = environment.fingerprint()
    warnings = environment.check(env) + list(inputs.warnings)
    for w in warnings:
        _warn(w)
    # Head's changes to the config or calibration are reported before the build (which may fail
    # with base's [suite].build); only adapters that discover benchmarks need head's names first.
    discovers = config.suite.adapter != "command"
    changes_by_file = {} if discovers else _report_changes(inputs, None, warnings)
    if args.order_check and not config.suite.reset:
        w = {
            "code": WarningCode.NO_RESET.value,
            "message": "--order-check without [suite].reset: runs do not start from a clean state "
            "(OrderSage §3 step 2)",
            "action": 'set [suite] reset = "..." to a command that restores a clean state',
        }
        warnings.append(w)
        _warn(w)

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
    isolation = sandbox.decide(
        config.suite.sandbox,
        lambda bwrap: sandbox.plan(repo=repo, out=out, versions=areas, bwrap=bwrap),
        cwd=repo,
    )
    if isolation.warning is not None:
        warnings.append(isolation.warning)
        _warn(isolation.warning)
    runner = SubprocessRunner(
        pid_file=out / ".running", pass_env=config.suite.pass_env, sandbox=isolation.sandbox
    )
    contexts: dict[str, VersionContext] = {}
    for v in versions:
        wt = out / "worktrees" / v.dirname
        if worktree.add(repo, wt, v.sha, v.revision):
            (out / "worktrees" / f"{v.dirname}.built").unlink(
                missing_ok=True
            )  # a fresh checkout needs its build
        scratch = out / "scratch" / v.dirname
        scratch.mkdir(parents=True, exist_ok=True)
        contexts[v.revision] = VersionContext(
            name=v.revision,
            workdir=wt,
            prefix=tuple(substitute_worktree(p, wt) for p in config.suite.prefix),
            python=substitute_worktree(config.suite.python, wt),
            scratch=scratch,
        )
        _build(config, runner, v, wt, out, from_base=inputs.config_source.kind == "base")

    from gate.adapters.registry import get_adapter  # imported late: adapters import optional tools

    adapter = get_adapter(config.suite.adapter)
    per_version, found = _discover(adapter, runner, contexts, config)
    if discovers:
        changes_by_file = _report_changes(inputs, found.get(args.head), warnings)
    names = sorted({name for specs in per_version.values() for name in specs})
    if mode == "order-check":
        assert order_pairs is not None
        levels = {n: LevelConfig(1, 1, config.full.measurements) for n in names}
        schedule = order_check_schedule(
            seed, names, [v.revision for v in versions], order_pairs, config.full.measurements, instance
        )
    else:
        floor = rank_floor(VERDICT_CONFIDENCE)
        if config.full.values < floor and len(versions) == 2:
            w = {
                "code": WarningCode.FULL_TOO_SMALL.value,
                "message": f"[full] in {config.path} gives {config.full.values} values per version, fewer "
                f"than {floor}: with so few values no change can be called at 99 %, every change comes "
                "out inconclusive",
                "action": "raise [full].iterations or [full].suite_runs (suite_runs × iterations × "
                f"measurements ≥ {floor})",
            }
            warnings.append(w)
            _warn(w)
        if calibration is not None:
            for w in check_calibration(calibration, config, names):
                warnings.append(w)
                _warn(w)
        levels = _level_configs(names, config, calibration)
        schedule = rmit_schedule(seed, names, [v.revision for v in versions], levels, instance)
    warmup_level, warmup = warmup_of(calibration)
    layout = Layout(seed, enabled=config.suite.randomise_layout)
    meta = RunMeta(
        schema_version=TRIAL_LOG_SCHEMA,
        tool_version=__version__,
        created_at=utc_timestamp(),
        seed=seed,
        mode=mode,
        config_path=str(args.config),
        config_hash=config.config_hash,
        # where each file came from (a pull request's run reads them from base) and what head changes
        sources={
            "config": inputs.config_source.meta(
                changes_by_file.get("config"), changes_by_file.get("config_since_branch")
            ),
            "calibration": None
            if inputs.calibration_source is None
            else inputs.calibration_source.meta(
                changes_by_file.get("calibration"), changes_by_file.get("calibration_since_branch")
            ),
        },
        adapter=config.suite.adapter,
        versions={
            v.revision: VersionRecord(v.role, v.sha, str(contexts[v.revision].workdir)) for v in versions
        },
        base=args.base,
        head=args.head,
        instance=instance,
        full=Levels(config.full.suite_runs, config.full.iterations, config.full.measurements),
        calibration=calib_meta,
        order_pairs=order_pairs,
        benchmark_configs={
            n: BenchmarkConfig(
                c.suite_runs,
                c.iterations,
                c.measurements,
                source=c.source,
                discard_warmup=warmup if c.source == ConfigSource.CALIBRATION.value else 0,
                warmup_level=warmup_level,
                never_stable=_never_stable(calibration, n),
            )
            for n, c in levels.items()
        },
        benchmarks=_benchmark_meta(names, per_version),
        thresholds=_thresholds(config, names, per_version),
        schedule=[t.as_meta() for t in schedule],
        environment=env,
        sandbox=isolation.meta,
        layout=layout.meta([t.trial for t in schedule]),
        warnings=warnings,
        adaptive=adaptive_meta(adaptive),
    )
    log = TrialLog(log_path)
    if existing is not None:
        if [t.as_meta() for t in schedule] != [dict(t) for t in existing.schedule]:
            raise InputError(
                f"the benchmarks found now differ from the run in {out} (discovery or filters changed)",
                "pass a new --out to start a new run",
            )
        meta = existing  # its recorded rounds are part of the run
        done = log.recover(schedule + existing.round_trials())
    else:
        run_meta.write(meta_path, meta)
        done = log.recover(schedule)
    if done:
        print(
            f"ordertrap-gate run: resuming, {len(done)}/{len(schedule) + len(meta.round_trials())} trials "
            "already done",
            file=sys.stderr,
        )

    reset = None
    if config.suite.reset:
        reset_cmd, reset_timeout = config.suite.reset, config.suite.reset_timeout or config.suite.timeout

        def reset() -> None:
            run_reset(reset_cmd, runner, repo, reset_timeout)

    def drive(trials: Sequence[Trial], may_start: Any = None) -> DriverResult:
        return run_schedule(
            trials,
            adapter=adapter,
            runner=runner,
            versions=contexts,
            benchmarks=per_version,
            settings=config.adapter_settings(),
            timeout=config.suite.timeout,
            log=log,
            finished=done,
            reset=reset,
            progress=sys.stderr,
            stop=StopFlag(),
            layout=layout,
            may_start=may_start,
        )

    def interrupted() -> int:
        print(
            f"ordertrap-gate run: stopped; every finished trial is in {log_path}. "
            "Run the same command again to resume.",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED

    if clock is None:  # the budget counts from the first planned trial (docs/running.md)
        clock = WallClock(log_path, prior_s=prior_elapsed_s(log_path, done))
    result = drive(schedule)
    if result.interrupted:
        return interrupted()
    statuses = ", ".join(f"{k} {n}" for k, n in sorted(result.statuses.items()))
    print(
        f"ordertrap-gate run: {len(schedule)} trials done ({statuses}) in {result.elapsed_s:.1f} s; "
        f"log: {log_path}",
        file=sys.stderr,
    )
    if result.ran and result.failed == result.ran:
        raise RunError(
            f"all {result.ran} trials failed",
            f"read the reasons in {log_path} (column reason) and run one benchmark by hand in its worktree (kept in OUT/worktrees)",
        )
    if adaptive.on:
        from gate.engine.followup import Rounds  # the analysis stack, only with a budget

        meta = _warn_planned_over_budget(meta, adaptive, clock)
        rounds = Rounds(
            meta=meta,
            save_meta=lambda doc: run_meta.write(meta_path, doc),
            log_path=log_path,
            planned=schedule,
            levels=levels,
            versions=[v.revision for v in versions],
            instance=instance,
            seed=seed,
            clock=clock,
            drive=drive,
        )
        if not rounds.run(done):
            return interrupted()
    if not args.keep_worktrees:
        for v in versions:
            worktree.remove(repo, contexts[v.revision].workdir)
            (out / "worktrees" / f"{v.dirname}.built").unlink(missing_ok=True)
            shutil.rmtree(contexts[v.revision].scratch, ignore_errors=True)
    return 0


def _warn_planned_over_budget(meta: RunMeta, adaptive: AdaptiveConfig, clock: BudgetClock) -> RunMeta:
    """Planned trials always all run; when they alone used the budget, no round can follow: the
    warning is shown, and recorded in the returned meta (written with the first round's save)."""
    used = clock.used_s()
    if used < adaptive.budget_s or (meta.adaptive or {}).get("rounds"):
        return meta
    w = {
        "code": WarningCode.PLANNED_OVER_BUDGET.value,
        "message": f"the planned trials alone took {used:.0f} s, more than the follow-up budget of "
        f"{adaptive.budget_s:.0f} s, so no follow-up round can run",
        "action": "raise --budget / [adaptive].budget above the planned suite's time (see the nightly's "
        "time line), or measure fewer values per benchmark with a calibration",
    }
    _warn(w)
    return meta.with_warning(w)


def _report_changes(
    inputs: config_source.Inputs, discovered: Sequence[str] | None, warnings: list[dict[str, str]]
) -> dict[str, list[str]]:
    changed, changes_by_file = config_source.change_warnings(inputs, discovered)
    for w in changed:
        warnings.append(w)
        _warn(w)
    return changes_by_file


def _thresholds(
    config: Config, names: Sequence[str], per_version: Mapping[str, Mapping[str, BenchmarkSpec]]
) -> dict[str, float]:
    """``threshold_pct`` of each benchmark whose [[benchmark]] entry (its name, or the pattern it
    was expanded from) sets one; analyze uses it instead of the suite-wide threshold."""
    given = {b.name: b.options["threshold_pct"] for b in config.benchmarks if "threshold_pct" in b.options}
    out: dict[str, float] = {}
    for n in names:
        spec = next((specs[n] for specs in per_version.values() if n in specs), None)
        pattern = spec.options.get("pattern") if spec is not None else None
        t = given.get(n, given.get(pattern) if isinstance(pattern, str) else None)
        if t is not None:
            out[n] = float(t)
    return out


def _benchmark_meta(
    names: Sequence[str], per_version: Mapping[str, Mapping[str, BenchmarkSpec]]
) -> dict[str, Any]:
    """Unit, direction and the versions that have each benchmark (a missing one is ``skipped``)."""
    out: dict[str, Any] = {}
    for n in names:
        have = [rev for rev, specs in per_version.items() if n in specs]
        spec = per_version[have[0]][n]
        out[n] = {"unit": spec.unit, "higher_is_better": spec.higher_is_better, "versions": have}
        if isinstance(spec.options.get("pattern"), str):  # expanded from this [[benchmark]] pattern
            out[n]["pattern"] = spec.options["pattern"]
    return out


def _build(
    config: Config, runner: ProcessRunner, v: Version, wt: Path, out: Path, from_base: bool = False
) -> None:
    """``[suite].build`` once per version, untimed; a marker file makes a resume skip it."""
    if not config.suite.build:
        return
    marker = out / "worktrees" / f"{v.dirname}.built"
    if marker.exists() and marker.read_text(encoding="utf-8").strip() == v.sha:
        return
    print(f"ordertrap-gate run: building {v.revision} ({v.sha[:12]}) in {wt}", file=sys.stderr)
    result = runner(config.suite.build, cwd=wt, timeout=config.suite.build_timeout)
    if result.timed_out or result.returncode != 0:
        print_untrusted((result.stdout + result.stderr)[-4000:], stream=sys.stderr)
        what = "timed out" if result.timed_out else f"exited with status {result.returncode}"
        raise RunError(
            f"build of version {v.revision!r} {what}",
            f"run `{config.suite.build}` by hand in {wt} (kept for you) and fix it, or fix [suite].build; "
            "then rerun the same command"
            + (
                " (this build command is base's: a change to [suite].build in head applies once merged, "
                "so head's code must build with base's command until then)"
                if from_base
                else ""
            ),
        )
    marker.write_text(v.sha + "\n", encoding="utf-8")
