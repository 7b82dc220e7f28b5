"""`kata review` (issue 24, point 6): proposals from a backdated progress file, intervals that grow after a
clean review and start again otherwise, `--until` spreading the katas over the days left, the plan in
`kata list`, missed questions asked again."""

import json
import shutil
import time
from datetime import date, timedelta

import pytest
from click.testing import CliRunner

from checker.engine import catalog, prompts
from checker.practice import progress, review
from checker.cli import cli
from conftest import ZOO
from test_practice import FakeClock

DAY = 86400
KATAS = catalog.all_katas()


def backdate(workspace, history, quiz=None):
    """A progress file as if written over the past days: {id: (days since the pass, attempts, bug hits)}."""
    record = progress.load(workspace)
    now = time.time()
    for kata_id, (ago, attempts, hits) in history.items():
        entry = record.of(kata_id)
        entry.status, entry.attempts, entry.bug_hits = "passed", attempts, dict(hits)
        entry.first_seen, entry.seconds_to_pass = now - ago * DAY - 300, 300.0
    record.quiz = quiz or {}
    record.save()
    return progress.load(workspace)


@pytest.fixture
def at_a_terminal(monkeypatch):
    """A person at a terminal: the review waits for their saves (CliRunner's input is no terminal)."""
    from checker.cli import common

    monkeypatch.setattr(common, "terminal_attached", lambda: True)


def run(*args, input=None, clock=None):
    return CliRunner().invoke(cli, list(args), input=input, obj={"clock": clock} if clock else None)


def test_proposals_follow_the_history(workspace):
    record = backdate(workspace, {"01": (20, 1, {}), "02": (9, 6, {"global-max": 3}), "03": (0, 1, {}),
                                  "05": (12, 4, {"cache-wrong-axis": 2})})
    plan = review.plan(KATAS, record)
    (first,) = plan.now
    assert first.kata.id == "01" and first.reasons == ["passed 20 days ago"]  # the longest overdue
    later = {p.kata.id: (day, p.reasons) for day, ps in plan.days for p in ps}
    assert later["05"][1] == ["passed 12 days ago", "took 4 attempts", "hit cache-wrong-axis more than once"]
    assert later["02"][1] == ["passed 9 days ago", "took 6 attempts", "hit global-max more than once"]
    tomorrow = date.today() + timedelta(days=1)
    assert review.proposal(catalog.find("03"), record.of("03"), date.today()).due == tomorrow  # passed today
    assert later["03"][0] == max(day for day, _ in later.values())  # the least urgent, on the last day
    assert [day for day, _ in plan.days] == sorted({day for day, _ in plan.days})  # one kata a day
    assert set(later) == {"01", "02", "03", "05"}  # never a kata that has not passed


def test_a_heavier_history_comes_first_among_katas_as_overdue(workspace):
    record = backdate(workspace, {"01": (10, 1, {}), "02": (10, 7, {"global-max": 2})})
    assert review.plan(KATAS, record).now[0].kata.id == "02"


def test_until_spreads_every_passed_kata_over_the_days_left(workspace):
    record = backdate(workspace, {kid: (5, 1, {}) for kid in ("01", "02", "03", "04", "05")})
    until = date.today() + timedelta(days=1)
    plan = review.plan(KATAS, record, until=until)
    assert [day for day, _ in plan.days] == [date.today(), until]
    assert [len(ps) for _, ps in plan.days] == [3, 2]
    result = run("review", "--show", "--until", until.isoformat())
    assert result.exit_code == 0 and "2 days to" in result.output
    assert progress.load(workspace).interview == until.isoformat()  # kept for kata list
    assert "Review today: 01 scores" in run("list").output and "02 softmax" in run("list").output


def test_intervals_grow_after_each_clean_pass_and_start_again_otherwise():
    entry = progress.KataProgress()
    now = 1_750_000_000.0
    intervals = []
    for clean in (True, True, True, False, True):
        review.record_review(entry, clean, now)
        intervals.append(entry.interval_days)
        assert entry.due == now + entry.interval_days * DAY
    assert intervals == [2, 4, 8, 1, 2]


def test_missed_questions_are_asked_again_other_katas_first(workspace):
    record = backdate(workspace, {"02": (3, 1, {})},
                      quiz={"softmax-uniform": [2, 2], "gqa-group-size": [2, 2], "scores-divisor": [4, 1],
                            "heads-scale": [3, 0]})
    own = {q.id for q in prompts.for_kata(catalog.find("softmax")).questions}
    assert review.missed_questions(record, own) == ["gqa-group-size", "scores-divisor", "softmax-uniform"]


def test_a_review_from_a_fresh_stub_then_the_questions(workspace, at_a_terminal):
    backdate(workspace, {"02": (4, 3, {"global-max": 2})}, quiz={"gqa-group-size": [1, 1]})
    own = workspace / "katas" / catalog.find("02").filename
    own.write_text("# my own file\n")
    redo = workspace / ".kata" / "review" / catalog.find("02").filename
    solution = catalog.find("02").solution_path
    clock = FakeClock((5, lambda: redo.write_text(solution.read_text())))
    result = run("review", "--poll", "0.5", input="4\n1\n1\n", clock=clock)
    assert result.exit_code == 0, result.output
    assert "Review for" in result.output and "02 softmax: passed 4 days ago; took 3 attempts" in result.output
    assert "clean, so the next review is in 2 days" in result.output and "Score:" in result.output
    assert own.read_text() == "# my own file\n"  # the learner's file is left alone
    entry = progress.load(workspace).of("02")
    assert entry.interval_days == 2 and entry.reviews == 1 and entry.due > time.time() + DAY
    assert progress.load(workspace).quiz["gqa-group-size"][0] == 2  # asked again
    assert "Nothing due today" in run("review", "--show").output


def test_a_review_with_a_bug_on_the_way_comes_back_tomorrow(workspace, at_a_terminal):
    backdate(workspace, {"02": (4, 1, {})})
    redo = workspace / ".kata" / "review" / catalog.find("02").filename
    clock = FakeClock((5, lambda: shutil.copy(ZOO / "softmax" / "global-max.py", redo)),
                      (9, lambda: redo.write_text(catalog.find("02").solution_path.read_text())))
    result = run("review", input="\n\n\n", clock=clock)
    assert "comes back tomorrow" in result.output
    assert progress.load(workspace).of("02").interval_days == 1


def test_review_before_any_pass_and_a_bad_date(workspace):
    assert "Nothing to review yet" in run("review").output
    assert run("review", "--until", "someday").exit_code == 2
    assert json.loads((workspace / ".kata" / "progress.json").read_text() if (workspace / ".kata").exists() else "{}") \
        .get("interview") is None


# --- issue 36, point 6: the whole history, each item's reason, and no wait without a terminal -------------

def test_a_kata_failed_many_times_and_never_passed_is_proposed_today(workspace):
    record = progress.load(workspace)
    for attempt in range(3):
        record.record_check("07", "failed", bugs=["causal-ignored"], digest=f"version {attempt}")
    record.record_check("06", "failed", digest="once")  # one failure: still being learned, `kata next` has it
    record.save()
    plan = review.plan(KATAS, progress.load(workspace))
    (first,) = plan.now
    assert first.kata.id == "07"
    assert first.reasons == ["failed 3 times and never passed", "hit causal-ignored more than once"]
    assert "06" not in {p.kata.id for _, ps in plan.days for p in ps}
    shown = run("review", "--show").output
    assert "07 gqa: failed 3 times and never passed; hit causal-ignored more than once" in shown


def test_a_hard_history_brings_a_kata_back_sooner_and_says_so(workspace):
    record = backdate(workspace, {"01": (1, 1, {}), "02": (1, 6, {"global-max": 2})},
                      quiz={"softmax-uniform": [2, 1], "softmax-spread": [1, 1]})
    for kata_id in ("01", "02"):  # both after a clean review with 8 days to wait
        entry = record.of(kata_id)
        entry.interval_days, entry.due = 8.0, time.time() - DAY + 8 * DAY
    record.save()
    from checker.cli import common

    plan = common.review_plan(progress.load(workspace))
    when = {p.kata.id: (day, p.reasons) for day, ps in plan.days for p in ps}
    assert when["02"][0] < when["01"][0]  # the same interval, the harder history sooner
    assert "took 6 attempts" in when["02"][1] and "hit global-max more than once" in when["02"][1]
    assert "missed 2 of its quiz questions" in when["02"][1]
    assert any(reason.startswith("due ") and reason.endswith(" sooner for it") for reason in when["02"][1])
    assert when["01"][1] == ["passed 1 day ago"]


def test_a_review_without_a_terminal_ends_with_a_clear_line(workspace):
    backdate(workspace, {"02": (4, 1, {})})
    result = run("review", clock=FakeClock())  # CliRunner's stdin is no terminal, and holds nothing
    assert result.exit_code == 1
    assert "02 softmax: passed 4 days ago" in result.output
    assert result.output.rstrip().splitlines()[-1].endswith("`kata review --show` prints the plan alone.")
    assert "No terminal here" in result.output
    assert not (workspace / ".kata" / "review").exists()  # nothing started


def test_a_review_with_stdin_closed_ends_in_a_real_process(workspace):
    import subprocess
    import sys

    backdate(workspace, {"02": (4, 1, {})})
    ran = subprocess.run([sys.executable, "-m", "checker", "review"], stdin=subprocess.DEVNULL, capture_output=True,
                         text=True, timeout=60, cwd=workspace)
    assert ran.returncode == 1 and "No terminal here" in ran.stdout, (ran.stdout, ran.stderr)
