"""The `kata` command as a user meets it, through click's CliRunner, in a fresh workspace."""

import json
import re
import shutil

import click
import pytest
from click.testing import CliRunner

from checker import __version__
from checker.engine import catalog, prompts
from checker.cli import cli
from conftest import CORRECT, ZOO


def run(*args, input=None):
    return CliRunner().invoke(cli, list(args), input=input)


def solve(workspace, slug):
    """Put a correct solution of `slug` in the workspace."""
    kata = catalog.find(slug)
    path = workspace / "katas" / kata.filename
    path.write_text(kata.solution_path.read_text())
    return path


def test_version():
    result = run("--version")
    assert result.exit_code == 0 and __version__ in result.output


@pytest.mark.parametrize("command", [[], ["list"], ["check"], ["hint"], ["solution"], ["reset"], ["bench"], ["quiz"],
                                     ["watch"], ["mock"], ["pack"], ["grade"], ["backups"], ["next"],
                                     ["init"], ["doctor"]])
def test_short_help_everywhere(command):
    result = run(*command, "-h")
    assert result.exit_code == 0 and "Example:" in result.output
    block = result.output.split("Example:")[1].split("Options:")[0]
    examples = [line for line in block.splitlines() if "kata " in line]
    commands = [re.findall(r"(?<![-\w])kata ", line) for line in examples]
    assert examples and all(len(found) == 1 for found in commands)  # one example a line, not re-wrapped


def test_stub_is_not_started_and_shows_the_task(workspace):
    result = run("check", "01")
    assert result.exit_code == 1
    assert "NOT STARTED" in result.output
    assert prompts.for_kata(catalog.find("01")).brief.splitlines()[0] in result.output
    assert "Traceback" not in result.output


def test_pass_exits_zero(workspace):
    solve(workspace, "softmax")
    result = run("check", "softmax")
    assert result.exit_code == 0 and "PASSED" in result.output


@pytest.mark.parametrize("key", ["02", "2", "softmax", "SOFTMAX"])
def test_kata_by_id_or_slug(workspace, key):
    solve(workspace, "02")
    assert run("check", key, "--json").exit_code == 0


def test_json_is_one_object_as_the_spec_says(workspace):
    shutil.copy(ZOO / "scores" / "missing-scale.py", workspace / "katas" / "01_scores.py")
    result = run("check", "01", "--json")
    assert result.exit_code == 1
    report = json.loads(result.output)
    assert set(report) == {"kata", "file", "status", "bugs", "tests", "seconds"}
    assert report["kata"] == "01" and report["status"] == "failed" and report["bugs"][0] == "missing-scale"
    assert report["file"] == "katas/01_scores.py"
    assert all(set(test) == {"name", "outcome", "bug", "message"} for test in report["tests"])
    failed = [t for t in report["tests"] if t["outcome"] == "failed"]
    assert any(t["bug"] == "missing-scale" and "3x the expected" in t["message"] for t in failed)


def test_text_names_the_bug_and_the_fix(workspace):
    shutil.copy(ZOO / "softmax" / "global-max.py", workspace / "katas" / "02_softmax.py")
    result = run("check", "02")
    assert "FAILED" in result.output and "global-max" in result.output
    assert prompts.for_kata(catalog.find("02")).fixes["global-max"] in result.output


def test_file_with_any_name_anywhere(workspace, tmp_path_factory):
    folder = tmp_path_factory.mktemp("elsewhere")
    attempt = folder / "my-try.v2.py"
    shutil.copy(next((CORRECT / "scores").glob("*.py")), attempt)
    result = run("check", "01", "--file", str(attempt), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["file"] == str(attempt)


def test_check_all(workspace):
    solve(workspace, "01")
    result = run("check", "--all", "--json")
    reports = json.loads(result.output)["katas"]
    assert [r["kata"] for r in reports] == [k.id for k in catalog.all_katas()]
    assert reports[0]["status"] == "passed" and reports[1]["status"] == "not-started"
    assert result.exit_code == 1


@pytest.mark.parametrize("args, words", [
    (["check", "99"], "unknown kata '99'"),
    (["check", "nope"], "unknown kata 'nope'"),
    (["check", "01", "--file", "missing.py"], "no such file: missing.py"),
    (["check"], "give one kata ID"),
    (["hint", "99"], "unknown kata"),
    (["bench", "01"], "kata bench times kata 05 (kv-cache) only"),
    (["bench", "05", "--sizes", "16,x"], "--sizes takes cache lengths"),
    (["bench", "05", "--file", "missing.py"], "no such file: missing.py"),
])
def test_usage_mistakes_are_one_line_and_exit_2(workspace, args, words):
    result = run(*args)
    assert result.exit_code == 2
    assert words in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert "Traceback" not in result.output


def test_missing_learner_file_is_a_usage_mistake(workspace):
    (workspace / "katas" / "01_scores.py").unlink()
    result = run("check", "01")
    assert result.exit_code == 2 and "no such file" in result.output


def test_list_shows_status(workspace):
    solve(workspace, "01")
    run("check", "01")
    run("check", "02")
    rows = {row["id"]: row for row in json.loads(run("list", "--json").output)}
    assert rows["01"]["status"] == "passed" and rows["02"]["status"] == "not-started"
    assert rows["01"]["title"] == prompts.for_kata(catalog.find("01")).title
    text = run("list").output
    assert "scores" in text and "passed" in text


def test_hints_are_revealed_one_level_at_a_time(workspace):
    hints = prompts.for_kata(catalog.find("02")).hints
    first = run("hint", "02").output
    assert hints[0] in first and hints[1] not in first
    second = run("hint", "02").output
    assert hints[0] in second and hints[1] in second and hints[2] not in second
    for _ in hints:
        last = run("hint", "02").output
    assert all(hint in last for hint in hints) and "last hint" in last


def test_solution_asks_on_the_terminal_before_a_pass(workspace, monkeypatch):
    from checker.cli import common

    monkeypatch.setattr(common, "terminal_attached", lambda: True)
    reference = catalog.find("01").solution_path.read_text()
    refused = CliRunner().invoke(cli, ["solution", "01"], input="n\n")
    assert refused.exit_code == 0 and reference not in refused.stdout and "Aborted" not in refused.output
    assert "Show the reference solution anyway?" in refused.stderr and "Not shown." in refused.stderr
    accepted = CliRunner().invoke(cli, ["solution", "01"], input="y\n")
    assert accepted.exit_code == 0 and accepted.stdout == reference + "\n"  # the question is not in the pipe


def test_solution_without_a_terminal_refuses_cleanly(workspace):
    result = run("solution", "01")  # CliRunner's input is no terminal, as in `kata solution 01 < /dev/null`
    assert result.exit_code == 1 and "no terminal to ask on" in result.output and "--yes" in result.output
    assert "def attention_scores" not in result.output and "Traceback" not in result.output
    assert run("solution", "01", "--yes").output.startswith(catalog.find("01").solution_path.read_text()[:40])


def test_solution_after_a_pass_needs_no_confirmation(workspace):
    solve(workspace, "01")
    run("check", "01")
    result = run("solution", "01")
    assert result.exit_code == 0 and "def attention_scores" in result.output


def test_reset_restores_the_stub_and_keeps_a_backup(workspace):
    path = workspace / "katas" / "02_softmax.py"
    path.write_text("my attempt\n")
    result = run("reset", "02")
    assert result.exit_code == 0, result.output
    assert path.read_text() == catalog.find("02").pristine_path.read_text()
    backups = list((workspace / ".kata" / "backups").glob("02_softmax.*.py"))
    assert [b.read_text() for b in backups] == ["my attempt\n"]
    assert "kata reset 02 --restore" in result.output
    again = run("reset", "02")
    assert again.exit_code == 0 and "already the stub" in again.output
    assert len(list((workspace / ".kata" / "backups").iterdir())) == 1


def test_reset_after_a_commit_restores_the_shipped_stub_not_git_head(workspace):
    import subprocess

    def git(*args):
        subprocess.run(["git", "-c", "user.name=l", "-c", "user.email=l@example.com", *args], cwd=workspace,
                       check=True, capture_output=True)

    path = solve(workspace, "03")
    git("init", "-q")
    git("add", "-A")
    git("commit", "-qm", "my solution")
    result = run("reset", "03")
    assert result.exit_code == 0, result.output
    assert path.read_text() == catalog.find("03").pristine_path.read_text()
    assert "NotImplementedError" in path.read_text()
    (backup,) = (workspace / ".kata" / "backups").glob("03_causal_mask.*.py")
    assert backup.read_text() == catalog.find("03").solution_path.read_text()
    listed = run("backups", "03")
    assert listed.exit_code == 0 and backup.name in listed.output and "--restore" in listed.output
    restored = run("reset", "03", "--restore")
    assert restored.exit_code == 0, restored.output
    assert path.read_text() == catalog.find("03").solution_path.read_text()
    assert len(list((workspace / ".kata" / "backups").iterdir())) == 1  # the stub it replaced needs none
    path.write_text("a third try\n")
    assert run("reset", "03", "--restore", str(backup)).exit_code == 0
    assert path.read_text() == catalog.find("03").solution_path.read_text()
    assert "a third try\n" in [b.read_text() for b in (workspace / ".kata" / "backups").iterdir()]


def test_restore_without_a_backup_is_a_usage_mistake(workspace):
    result = run("reset", "04", "--restore")
    assert result.exit_code == 2 and "no backup of 04" in result.output and "Traceback" not in result.output
    assert "No backups yet" in run("backups").output


def test_the_shipped_stubs_are_the_repositorys_stubs():
    for kata in catalog.all_katas():  # a new kata: copy katas/NN_slug.py to checker/hidden/<slug>/stub.py
        assert kata.pristine_path.is_file(), f"{kata}: no {kata.pristine_path}, the stub `kata reset` restores"
        assert kata.pristine_path.read_text() == kata.stub_path.read_text(), kata


def test_corrupted_progress_warns_and_is_rebuilt(workspace):
    (workspace / ".kata").mkdir()
    (workspace / ".kata" / "progress.json").write_text("{not json")
    result = CliRunner().invoke(cli, ["check", "01"])
    assert "warning:" in result.output and "Traceback" not in result.output
    assert json.loads((workspace / ".kata" / "progress.json").read_text())["katas"]["01"]["status"] == "not-started"


def test_no_color_means_no_escape_codes(workspace):
    result = CliRunner().invoke(cli, ["check", "01"], color=True)
    assert "\x1b[" not in result.output


def test_bench_times_the_cache_against_recomputing(workspace):
    solve(workspace, "05")
    result = run("bench", "05", "--sizes", "16,32")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    header = next(line for line in lines if "yours" in line and "recompute" in line)
    assert header.split() == ["n", "yours", "reference", "recompute", "cache", "speed-up", "spread"]
    assert "timing your code: round 1 of 3" in result.stderr and "timing kata 04's reference: round 3 of 3" in result.stderr
    assert "median of 3 rounds" in result.stdout
    table = [line.split() for line in lines if line.split()[:1] in (["16"], ["32"])]
    assert [row[0] for row in table] == ["16", "32"] and all(row[-2].endswith("x") for row in table)
    assert all(row[-1].endswith("%") for row in table)
    assert any(line.startswith("Speed-up at n = 32: ") for line in lines)
    assert "█" in result.output


def test_bench_of_the_stub_says_to_finish_the_kata(workspace):
    result = run("bench", "05", "--sizes", "16")
    assert result.exit_code == 1 and "NotImplementedError" in result.output and "kata check 05" in result.output


def test_bench_text_shows_the_numbers_it_is_given():
    from checker.practice.bench import BenchResult, BenchRow
    from checker.present.reports import bench_text

    rows = [BenchRow(128, 0.0001, 0.0001, 0.002, 0.12), BenchRow(2048, 0.0002, 0.0002, 0.5, 0.4)]
    text = click.unstyle(bench_text(BenchResult("05", "kv-cache", "katas/05_kv_cache.py", 1, 64, 4, 9, rows, True, 3)))
    assert "the median of 3 rounds of 9 decode steps" in text
    assert re.search(r"^ +128 .* 12%$", text, re.M) and re.search(r"^ +2048 .* 40%$", text, re.M)
    assert "Speed-up at n = 2048: 2500x (your cache 0.200 ms per token, recomputing 500.0 ms)." in text
    assert "2500.0x" in text and "20.0x" in text
    assert "(16x the context) your decode step took 2.0x as long, recomputing 250.0x." in text
    assert "differ from the reference" not in text


def test_a_kata_file_may_say_more_than_its_slug(tmp_path, monkeypatch):
    """`08_flash_attention.py` beside a folder `flash/` is kata 08, slug flash; the file keeps its name."""
    (tmp_path / "solutions").mkdir()
    for name in ("08_flash_attention.py", "09_sampling.py"):
        (tmp_path / "solutions" / name).write_text("")
    for folder in ("flash", "sampling"):
        (tmp_path / "checker" / "hidden" / folder).mkdir(parents=True)
        (tmp_path / "checker" / "hidden" / folder / "tests.py").write_text("")
    monkeypatch.setattr(catalog, "ROOT", tmp_path)
    monkeypatch.setattr(catalog, "DATA", tmp_path)
    monkeypatch.setattr(catalog, "HIDDEN", tmp_path / "checker" / "hidden")
    flash, sampling = catalog.all_katas()
    assert (flash.slug, flash.filename, flash.folder.name) == ("flash", "08_flash_attention.py", "flash")
    assert (sampling.slug, sampling.filename) == ("sampling", "09_sampling.py")
    assert catalog.find("flash") == catalog.find("8") == flash


def test_check_verbose_shows_every_check(workspace):
    shutil.copy(ZOO / "causal-mask" / "mask-inverted.py", workspace / "katas" / "03_causal_mask.py")
    short, verbose = run("check", "03"), run("check", "03", "--verbose")
    assert short.exit_code == verbose.exit_code == 1
    assert "more: `kata check 03 --verbose` shows every check" in short.output
    assert "more:" not in verbose.output and "✓ " in verbose.output
    report = json.loads(run("check", "03", "--json").output)
    for test in report["tests"]:
        assert test["name"] in verbose.output
    assert verbose.output.count("✗ ") == sum(t["outcome"] == "failed" for t in report["tests"])


def test_failures_that_name_a_bug_and_draw_a_picture_come_first():
    from types import SimpleNamespace

    from checker.present import render
    from checker.engine.results import Result, Status, TestOutcome

    picture = SimpleNamespace(got=[[1.0]], want=[[1.0, 0.0]], allowed=None, title="weights")  # drawn as nothing
    tests = [TestOutcome("plain", "failed", message="m1"), TestOutcome("crash", "error", message="raised X"),
             TestOutcome("named", "failed", bug="bug-a", message="m3"),
             TestOutcome("pictured", "failed", bug="bug-b", message="m4", picture=picture),
             TestOutcome("fine", "passed")]
    result = Result("03", "causal-mask", "katas/03_causal_mask.py", Status.FAILED, tests, 0.1)
    assert [t.name for t in result.ranked_failures] == ["pictured", "named", "plain", "crash"]
    text = click.unstyle(render.check_text(result))
    assert text.index("pictured") < text.index("named") < text.index("plain") < text.index("crash")
    watching = click.unstyle(render.check_text(result, watching=True))
    assert "pictured" in watching and "named:" not in watching


def test_check_all_ends_with_a_summary_line_per_kata(workspace):
    solve(workspace, "01")
    shutil.copy(ZOO / "softmax" / "global-max.py", workspace / "katas" / "02_softmax.py")
    result = run("check", "--all")
    summary = result.output.split("Summary\n")[1].splitlines()
    assert len(summary) == len(catalog.all_katas())
    assert re.match(r"  01 scores +PASSED +\d+ of +\d+ checks$", summary[0]), summary[0]
    assert re.match(r"  02 softmax +FAILED +\d+ of +\d+ checks  bugs: global-max", summary[1]), summary[1]
    assert "NOT STARTED" in summary[2]


def test_check_help_names_no_file_the_project_does_not_ship():
    text = run("check", "-h").output
    assert "SPEC.md" not in text and "--verbose" in text
