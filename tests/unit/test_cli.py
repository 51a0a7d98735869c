from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

from gate.cli import COMMANDS, build_parser, main
from tests.fakes import analyses


@pytest.mark.parametrize(("name", "module_name", "help_text"), COMMANDS)
def test_command_table_matches_the_modules(name, module_name, help_text):
    module = importlib.import_module(module_name)
    assert name == module.NAME
    assert help_text == module.HELP


def test_full_parser_knows_every_subcommand_option():
    parser = build_parser()
    args = parser.parse_args(["analyze", "t.csv", "--json", "a.json"])
    assert args.command == "analyze" and callable(args._run)


def test_help_and_run_do_not_import_the_analysis_stack():
    # Measured: importing every command costs ~2 s (scipy, pandas, matplotlib); `--help` and
    # `run` must not pay for that.
    code = (
        "import sys\n"
        "from gate.cli import main\n"
        "try:\n"
        "    main(['run', '--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(sorted(m for m in ('scipy', 'matplotlib', 'gate.analysis.compare') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"


def test_report_of_a_quiet_analysis_does_not_import_scipy_stats(tmp_path):
    # Measured (benchmarks/bench_cli_startup.py): scipy.stats is ~1.9 s of a process's start-up;
    # `report` needs it only for the head-noisier rank test, which a head spread below twice
    # base's never reaches.
    # The file is written here: building the fake analysis imports the analysis code.
    analysis = tmp_path / "analysis.json"
    analysis.write_text(json.dumps(analyses.mixed()), encoding="utf-8")
    code = (
        "import sys\n"
        "from gate.cli import main\n"
        f"assert main(['report', {str(analysis)!r}, '--format', 'comment']) == 0\n"
        "print('scipy.stats' in sys.modules, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "ordertrap-gate:comment" in done.stdout
    assert done.stderr.strip().splitlines()[-1] == "False"


def test_unknown_command_is_an_argparse_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["no-such-command"])
    assert exc.value.code == 2
    assert "invalid choice" in capsys.readouterr().err
