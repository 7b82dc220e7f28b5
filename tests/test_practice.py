"""Practice workflows: `kata watch`, `kata mock` and the progress they keep, driven by fake clocks
(which jump instead of waiting) or by tiny real intervals and a thread that saves the file."""

import json
import re
import shutil
import threading
import time

import pytest
from click.testing import CliRunner

from checker.engine import catalog, prompts
from checker.practice import mock, progress, quiz, watch
from checker.cli import cli
from conftest import CORRECT, ZOO

SOFTMAX = catalog.find("softmax")


class FakeClock:
    """Time that jumps on `sleep`, running each scheduled action once its moment has come."""

    def __init__(self, *events):
        self.now = 0.0
        self.events = sorted(events, key=lambda event: event[0])  # (seconds, action)
        self.slept = 0

    def monotonic(self):
        return self.now

    def wall(self):
        return 1_750_000_000 + self.now

    def sleep(self, seconds):
        self.slept += 1
        self.now += seconds
        while self.events and self.events[0][0] <= self.now:
            self.events.pop(0)[1]()


def interrupt():
    raise KeyboardInterrupt


def run(*args, input=None, clock=None):
    return CliRunner().invoke(cli, list(args), input=input, obj={"clock": clock} if clock else None)


def learner_file(workspace, kata=SOFTMAX):
    return workspace / "katas" / kata.filename


def save_as(workspace, source, kata=SOFTMAX):
    """An action: the learner saves `source`'s text as their file."""
    return lambda: learner_file(workspace, kata).write_text(source.read_text())


def mock_file(workspace, kata=SOFTMAX):
    return workspace / ".kata" / "mock" / kata.filename


def save_in_mock(workspace, source, kata=SOFTMAX):
    """An action: the learner saves `source`'s text as the mock's file."""
    return lambda: mock_file(workspace, kata).write_text(source.read_text())


def right_answer(asked):
    return "abcdefgh"[asked.expected] if asked.question.kind == "choice" else quiz.expected_text(asked)


def wrong_answer(asked):
    """A reply that reads as an answer, and is wrong (one that reads as nothing is asked again)."""
    return "abcdefgh"[(asked.expected + 1) % len(asked.choices)] if asked.question.kind == "choice" else "12345678"


# --- the watch loop --------------------------------------------------------------------------------

def test_the_loop_checks_at_start_and_on_each_change_only(tmp_path):
    path = tmp_path / "attempt.py"
    path.write_text("one\n")
    seen = []
    clock = FakeClock((1, lambda: path.write_text("two\n")),
                      (2, lambda: path.write_text("two\n")),  # saved with nothing new
                      (3, lambda: path.touch()),
                      (4, lambda: path.unlink()),  # an editor between delete and write
                      (5, lambda: path.write_text("three\n")))
    why = watch.loop(path, lambda p: seen.append(p.read_text()), poll=0.5, clock=clock, deadline=7)
    assert why == "deadline"
    assert seen == ["one\n", "two\n", "three\n"]
    assert clock.now == 7


def test_the_loop_stops_when_told(tmp_path):
    path = tmp_path / "attempt.py"
    path.write_text("x")
    clock = FakeClock((1, lambda: path.write_text("y")))
    assert watch.loop(path, lambda p: p.read_text() == "y", clock=clock, baseline=True) == "done"
    assert watch.loop(path, lambda p: False, clock=FakeClock(), max_checks=1) == "max-checks"


def test_a_baseline_is_not_checked(tmp_path):
    path = tmp_path / "attempt.py"
    path.write_text("x")
    seen = []
    watch.loop(path, seen.append, clock=FakeClock(), deadline=3, baseline=True)
    assert seen == []


# --- kata watch ----------------------------------------------------------------------------------

def test_watch_rechecks_when_the_file_is_saved(workspace):
    clock = FakeClock((1, save_as(workspace, ZOO / "softmax" / "global-max.py")))
    result = run("watch", "02", "--max-checks", "2", clock=clock)
    assert result.exit_code == 0, result.output
    screens = result.output.split("kata watch 02")[1:]
    assert len(screens) == 2
    assert "check 1" in screens[0] and "NOT STARTED" in screens[0]
    assert "check 2" in screens[1] and "FAILED" in screens[1] and "-> global-max" in screens[1]
    assert screens[1].count("-> ") == 1  # the first failure only
    entry = progress.load(workspace).of("02")
    assert entry.attempts == 1 and entry.status == "failed" and entry.bugs_seen[0] == "global-max"  # the stub: none


def test_watch_moves_on_to_the_next_kata_after_a_pass(workspace):
    scores = catalog.find("scores")
    clock = FakeClock((1, save_as(workspace, next((CORRECT / "scores").glob("*.py")), scores)),
                      (3, save_as(workspace, ZOO / "softmax" / "global-max.py")))
    result = run("watch", "--max-checks", "4", clock=clock)
    assert result.exit_code == 0, result.output
    screens = re.split(r"kata watch (?=\d\d )", result.output)[1:]
    assert [screen[:2] for screen in screens] == ["01", "02", "02"]
    assert "NOT STARTED" in screens[0]
    assert "✓ 01 scores passed" in screens[1] and "Next: 02 softmax" in screens[1] and "NOT STARTED" in screens[1]
    assert "-> global-max" in screens[2]
    assert progress.load(workspace).of("01").status == "passed"


def test_watch_of_a_passing_kata_stays_on_it(workspace):
    """`kata watch 01`, 01 passing: it watches 01 (a save is checked again) until Ctrl-C, never exits at once."""
    scores = catalog.find("scores")
    shutil.copy(scores.solution_path, learner_file(workspace, scores))
    clock = FakeClock((2, save_as(workspace, ZOO / "scores" / "missing-scale.py", scores)), (6, interrupt))
    result = run("watch", "01", clock=clock)
    assert result.exit_code == 0, result.output
    screens = result.output.split("kata watch 01")[1:]
    assert len(screens) == 2 and "✓ 01 scores passes. Watching it" in screens[0] and "-> missing-scale" in screens[1]
    assert result.output.rstrip().splitlines()[-1] == "Stopped watching 01 scores." and clock.now >= 6


@pytest.mark.parametrize("frontend", ["numpy", "torch"])
def test_one_memory_message_from_check_and_watch(workspace, frontend):
    """Kata 07 running out of memory in repeat_kv: NumPy's MemoryError and PyTorch's allocator (a RuntimeError)
    read the same, in `kata check` and `kata watch`, with the learner's own frames only."""
    gqa = catalog.find("gqa")
    if frontend == "torch":
        pytest.importorskip("torch")
        source = (gqa.folder / "torch" / "correct.py").read_text()
        planted = source.replace("return x if n_rep == 1 else torch.repeat_interleave(x, n_rep, dim=1)",
                                 "return torch.repeat_interleave(x, n_rep * 10**7, dim=1)")
    else:
        source = gqa.solution_path.read_text()
        planted = source.replace("    return np.repeat(x, n_rep, axis=1)", "    return np.repeat(x, n_rep * 10**7, axis=1)")
    assert planted != source
    learner_file(workspace, gqa).write_text(planted)
    checked = run("check", "07").output
    watched = run("watch", "07", clock=FakeClock((1, interrupt))).output

    def failure(output):
        block = output.split("! ", 1)[1].split("\n\n", 1)[0]
        return " ".join(block.split())

    assert failure(checked) == failure(watched), (checked, watched)
    assert failure(checked).startswith("repeat_kv_shape: repeat_kv(x (2, 3, 5, 4), n_rep=2) ran out of memory: "
                                       "the sandbox allows 1,024 MiB")
    frames = [line.strip() for line in checked.split("! ", 1)[1].split("\n\n", 1)[0].splitlines() if
              line.strip().startswith("at ")]
    assert frames and all(line.startswith("at katas/07_gqa.py:") for line in frames)


def test_watch_picks_up_a_save_to_any_kata_file(workspace):
    clock = FakeClock((1, save_as(workspace, ZOO / "softmax" / "global-max.py")))
    result = run("watch", "01", "--max-checks", "2", clock=clock)
    assert result.exit_code == 0
    assert "kata watch 01" in result.output and "kata watch 02" in result.output and "-> global-max" in result.output


def test_watch_after_a_reset_takes_the_kata_reset(workspace):
    record = progress.load(workspace)
    for kata in catalog.all_katas():
        shutil.copy(kata.solution_path, learner_file(workspace, kata))
    assert run("check", "--all").exit_code == 0
    assert "Every kata passes" in run("next").output
    assert run("reset", "04").exit_code == 0
    result = run("watch", "--max-checks", "1", clock=FakeClock())
    assert result.exit_code == 0 and "kata watch 04" in result.output and "NOT STARTED" in result.output
    assert run("next").output.startswith("Next: 04 multi-head")
    del record


def test_a_pass_says_what_to_do_next(workspace):
    shutil.copy(next((CORRECT / "scores").glob("*.py")), learner_file(workspace, catalog.find("scores")))
    result = run("check", "01")
    assert result.exit_code == 0
    assert "Next: kata 02 softmax, katas/02_softmax.py: `kata check 02`" in result.output
    listed = run("next")
    assert listed.exit_code == 0 and listed.output.startswith("Next: 02 softmax")
    assert prompts.for_kata(SOFTMAX).brief.splitlines()[0] in listed.output


def test_attempts_count_only_new_versions_of_a_started_file(workspace):
    run("check", "02")  # the stub
    assert progress.load(workspace).of("02").attempts == 0
    shutil.copy(ZOO / "softmax" / "global-max.py", learner_file(workspace))
    run("check", "02")
    run("check", "02", "--json")  # the same file again
    run("check", "--all")
    assert progress.load(workspace).of("02").attempts == 1
    shutil.copy(ZOO / "softmax" / "wrong-axis.py", learner_file(workspace))
    run("check", "02", "--json")
    entry = progress.load(workspace).of("02")
    assert entry.attempts == 2 and entry.status == "failed"


def test_watch_does_not_recheck_an_unchanged_file(workspace):
    clock = FakeClock((3, interrupt))
    result = run("watch", "02", clock=clock)
    assert clock.slept >= 6  # looked many times, checked once
    assert result.output.count("kata watch 02") == 1
    assert progress.load(workspace).of("02").status == "not-started"


def test_ctrl_c_leaves_watch_with_one_line_and_exit_0(workspace):
    result = run("watch", "02", clock=FakeClock((1, interrupt)))
    assert result.exit_code == 0
    assert result.output.rstrip().splitlines()[-1] == "Stopped watching 02 softmax."
    assert "Traceback" not in result.output


def test_watch_with_every_kata_passed_congratulates_and_points_on(workspace):
    record = progress.load(workspace)
    for kata in catalog.all_katas():
        record.record_check(kata.id, "passed")
    record.save()
    result = run("watch")
    assert result.exit_code == 0 and "Every kata passes here: well done." in result.output
    assert all(f"`kata {command}" in result.output for command in ("quiz", "mock", "review"))


# --- kata mock -----------------------------------------------------------------------------------

def the_report(workspace):
    (saved,) = (workspace / ".kata" / "mocks").glob("*.json")
    assert saved.with_suffix(".md").is_file()
    return json.loads(saved.read_text())


def take_hint(workspace):
    def action():
        record = progress.load(workspace)
        record.of(SOFTMAX.id).hints_used += 1
        record.save()
    return action


def test_a_mock_that_passes(workspace):
    from checker.practice import defend

    passing = next((CORRECT / "softmax").glob("*.py"))  # two defence questions about it replace two quiz ones
    defence = defend.questions(SOFTMAX, passing, passing.read_bytes(), count=2, seed=7, kinds=("what-if", "predict"))
    asked = quiz.draw(prompts.for_kata(SOFTMAX).questions, 3, 7)[:1] + [q.asked for q in defence]
    assert len(asked) == 3
    replies = [right_answer(asked[0]), wrong_answer(asked[1]), right_answer(asked[2])]
    clock = FakeClock((10, save_in_mock(workspace, ZOO / "softmax" / "no-max-shift.py")),
                      (20, take_hint(workspace)),
                      (30, save_in_mock(workspace, ZOO / "softmax" / "global-max.py")),
                      (60, save_in_mock(workspace, next((CORRECT / "softmax").glob("*.py")))))
    result = run("mock", "--kata", "02", "--seed", "7", "--report", str(workspace / "mine.md"),
                 input="\n".join(replies) + "\n", clock=clock)
    assert result.exit_code == 0, result.output
    report = the_report(workspace)
    assert report["kata"] == "02" and report["slug"] == "softmax" and report["seed"] == 7
    assert report["status"] == "passed" and report["seconds_to_pass"] == 60.0
    assert report["attempts"] == 3
    assert report["bugs_hit"][:1] == ["no-max-shift"] and "global-max" in report["bugs_hit"]
    assert len(report["bugs_hit"]) == len(set(report["bugs_hit"]))
    assert report["hints_used"] == 1
    assert report["quiz"]["asked"] == 3 and report["quiz"]["correct"] == 2
    assert [q["id"] for q in report["quiz"]["questions"]] == [a.question.id for a in asked]
    assert [q["correct"] for q in report["quiz"]["questions"]] == [True, False, True]
    assert set(report["quiz"]["questions"][0]) == {"id", "prompt", "expected", "given", "correct"}
    assert "Time left" not in result.output and "30:00 left" in result.output and "29:00 left" in result.output
    markdown = (workspace / "mine.md").read_text()
    assert markdown in result.output
    assert "| status | passed |" in markdown and "| time to pass | 1 min 00 s of 30 min |" in markdown
    assert "`no-max-shift`" in markdown and "| quiz | 2 of 3 |" in markdown and "**wrong**" in markdown
    assert progress.load(workspace).of("02").attempts == 0  # the mock's own file: kata list is untouched
    assert learner_file(workspace).read_text() == SOFTMAX.pristine_path.read_text()
    (attempt,) = (workspace / ".kata" / "mocks").glob("*.py")
    assert attempt.read_text() == next((CORRECT / "softmax").glob("*.py")).read_text()


class SignallingClock(watch.Clock):
    """Real time, which says when the loop first waits between looks: the mock has started and checked."""

    def __init__(self):
        self.waiting = threading.Event()

    def sleep(self, seconds):
        self.waiting.set()
        super().sleep(seconds)


def test_a_mock_with_a_real_clock_and_a_learner_saving_from_another_thread(workspace):
    """The learner saves from another thread once the mock is watching (not after a guessed delay), then
    0.2 s more of real time passes: the pass is seen, and timed from the mock's start, whatever the load."""
    clock = SignallingClock()

    def learner():
        if clock.waiting.wait(timeout=30):
            time.sleep(0.2)
            save_in_mock(workspace, next((CORRECT / "softmax").glob("*.py")))()

    thread = threading.Thread(target=learner)
    thread.start()
    from checker.practice import defend

    passing = next((CORRECT / "softmax").glob("*.py"))  # two defence questions about it replace two quiz ones
    defence = defend.questions(SOFTMAX, passing, passing.read_bytes(), count=2, seed=7, kinds=("what-if", "predict"))
    asked = quiz.draw(prompts.for_kata(SOFTMAX).questions, 3, 7)[:1] + [q.asked for q in defence]
    replies = [wrong_answer(question) for question in asked]
    result = run("mock", "--kata", "softmax", "--minutes", "0.5", "--poll", "0.02", "--seed", "7", "--report",
                 str(workspace / "mine.json"), input="\n".join(replies) + "\n", clock=clock)
    thread.join()
    assert result.exit_code == 0, result.output
    report = json.loads((workspace / "mine.json").read_text())
    assert report == the_report(workspace)
    assert report["status"] == "passed" and report["attempts"] == 1 and 0.2 <= report["seconds_to_pass"] < 30
    assert report["quiz"]["asked"] == 3 and [q["given"] for q in report["quiz"]["questions"]] == replies


def test_running_out_of_time_ends_with_the_report(workspace):
    clock = FakeClock((30, save_in_mock(workspace, ZOO / "softmax" / "global-max.py")))
    result = run("mock", "--kata", "02", "--minutes", "2", clock=clock)
    assert result.exit_code == 1 and "Traceback" not in result.output  # 0 only for passed
    assert "Time is up." in result.output and "| status | out of time |" in result.output
    report = the_report(workspace)
    assert report["status"] == "out of time" and report["seconds_to_pass"] is None
    assert report["attempts"] == 1 and report["bugs_hit"][0] == "global-max"
    assert report["quiz"] == {"asked": 0, "correct": 0, "questions": []}
    assert clock.now == 120


def test_running_out_of_real_time(workspace):
    started = time.monotonic()
    result = run("mock", "--kata", "02", "--minutes", "0.005", "--poll", "0.02")
    assert time.monotonic() - started < 5
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert the_report(workspace)["status"] == "out of time"


def test_ctrl_c_stops_a_mock_and_still_writes_the_report(workspace):
    result = run("mock", "--kata", "02", clock=FakeClock((90, interrupt)))
    assert result.exit_code == 1 and "Traceback" not in result.output and "Stopped." in result.output
    report = the_report(workspace)
    assert report["status"] == "stopped" and report["attempts"] == 0


def test_the_mock_draws_a_kata_not_passed_yet_and_says_why(workspace):
    katas = catalog.all_katas()
    assert {mock.pick(katas, katas[-1:], seed)[0].id for seed in range(10)} == {katas[-1].id}
    assert "the one kata that does not pass" in mock.pick(katas, katas[-1:], 0)[1]
    assert len({mock.pick(katas, [], seed)[0] for seed in range(40)}) > 1
    assert "Every kata passes here" in mock.pick(katas, [], 3)[1]
    assert mock.pick(katas, katas, 3) == mock.pick(katas, katas, 3)
    record = progress.load(workspace)
    for kata in katas[:-2]:
        shutil.copy(kata.solution_path, learner_file(workspace, kata))
        record.record_check(kata.id, "passed")
    record.save()
    result = run("mock", "--seed", "3", "--minutes", "1", clock=FakeClock())
    assert result.exit_code == 1  # out of time
    drawn = mock.pick(katas, katas[-2:], 3)[0]
    assert the_report(workspace)["kata"] == drawn.id
    assert f"Mock interview: {drawn}" in result.output
    assert f"Drawn (seed 3) among the 2 katas that do not pass here yet: {katas[-2].id}, {katas[-1].id}." in result.output


def test_a_mock_starts_from_the_stub_in_its_own_file_even_when_the_kata_passes(workspace):
    shutil.copy(SOFTMAX.solution_path, learner_file(workspace))
    assert run("check", "02").exit_code == 0
    clock = FakeClock((30, save_in_mock(workspace, ZOO / "softmax" / "global-max.py")))
    result = run("mock", "--kata", "02", "--minutes", "1", clock=clock)
    assert "You chose it (--kata)." in result.output and ".kata/mock/02_softmax.py (a fresh stub)" in result.output
    report = the_report(workspace)
    assert report["status"] == "out of time" and report["attempts"] == 1  # the solution in katas/ did not pass it
    assert learner_file(workspace).read_text() == SOFTMAX.solution_path.read_text()


def test_a_mock_is_strict_unless_coached(workspace):
    fix = prompts.for_kata(SOFTMAX).fixes["global-max"]
    clock = FakeClock((30, save_in_mock(workspace, ZOO / "softmax" / "global-max.py")))
    strict = run("mock", "--kata", "02", "--minutes", "1", clock=clock)
    screen = strict.output.split("Attempt 1:")[1].split("Time is up")[0]
    assert "FAILED" in screen and "✗ " in screen
    assert "global-max" not in screen and fix not in screen and "->" not in screen and "Strict mode" in strict.output
    assert "`global-max`" in strict.output.split("Time is up")[1]  # the report afterwards names it
    clock = FakeClock((30, save_in_mock(workspace, ZOO / "softmax" / "global-max.py")))
    coached = run("mock", "--kata", "02", "--minutes", "1", "--coach", clock=clock)
    screen = coached.output.split("Attempt 1:")[1].split("Time is up")[0]
    assert "-> global-max" in screen and fix in screen


@pytest.mark.parametrize("args, words", [
    (["mock", "--kata", "99"], "unknown kata '99'"),
    (["mock", "--report", "no/such/folder/report.md"], "no such folder for the report: no/such/folder"),
    (["watch", "99"], "unknown kata '99'"),
])
def test_usage_mistakes(workspace, args, words):
    result = run(*args)
    assert result.exit_code == 2 and words in result.output and "Traceback" not in result.output


def test_the_report_as_markdown_and_json():
    from checker.present.reports import mock_markdown

    answer = mock.QuizAnswer("softmax-uniform", "What is softmax([0, 0, 0])?", "[0.333, 0.333, 0.333]", None, False)
    report = mock.MockReport("02", "softmax", 7, 20, "2025-06-15T17:06:40+00:00", "2025-06-15T17:26:40+00:00",
                             "out of time", None, 4, ["global-max", "no-max-shift"], 2, mock.QuizScore(1, 0, [answer]))
    data = report.to_json()
    assert list(data) == ["format_version", "kata", "slug", "seed", "minutes", "started", "ended", "status",
                          "seconds_to_pass", "attempts", "bugs_hit", "hints_used", "quiz"]
    assert json.loads(json.dumps(data))["quiz"]["questions"][0]["given"] is None
    text = mock_markdown(report)
    assert text.startswith("# Mock interview: 02 softmax\n")
    for row in ["| status | out of time |", "| time to pass | - |", "| attempts | 4 |",
                "| bugs hit | `global-max`, `no-max-shift` |", "| hints used | 2 |", "| quiz | 0 of 1 |"]:
        assert row in text
    assert "1. What is softmax([0, 0, 0])?" in text and "given -: **unanswered**" in text


# --- progress --------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["{not json", "[]", '{"format_version": 99, "katas": {}}',
                                  '{"format_version": 2, "katas": {"01": {"attempts": "many"}}}',
                                  '{"format_version": 2, "katas": {"01": {"colour": "blue"}}}',
                                  '{"format_version": 2, "katas": {"01": {"bugs_seen": [1]}}}',
                                  '{"format_version": 2, "katas": []}'])
def test_a_corrupted_or_foreign_progress_file_warns_and_is_rebuilt(workspace, text):
    (workspace / ".kata").mkdir()
    (workspace / ".kata" / "progress.json").write_text(text)
    listed = run("list")
    assert listed.exit_code == 0 and "Traceback" not in listed.output
    assert [line for line in listed.output.splitlines() if line.startswith("warning:")] != []
    checked = run("check", "01")
    assert checked.exit_code == 1 and "Traceback" not in checked.output
    data = json.loads((workspace / ".kata" / "progress.json").read_text())
    assert data["format_version"] == progress.FORMAT_VERSION and data["katas"]["01"]["status"] == "not-started"
    assert "warning:" not in run("list").output


def test_a_version_1_file_is_still_read(workspace):
    (workspace / ".kata").mkdir()
    (workspace / ".kata" / "progress.json").write_text(json.dumps({"format_version": 1, "katas": {"01": {
        "status": "passed", "attempts": 4, "hints_used": 2, "first_seen": 1.0, "seconds_to_pass": 125.0}}}))
    listed = run("list", "--json")
    assert "warning" not in listed.output
    row = json.loads(listed.output)[0]
    assert row == {"id": "01", "slug": "scores", "title": prompts.for_kata(catalog.find("01")).title,
                   "status": "passed", "attempts": 4, "hints_used": 2, "seconds_to_pass": 125.0, "bugs_seen": []}


def test_list_shows_attempts_hints_and_time_to_first_pass(workspace):
    shutil.copy(ZOO / "scores" / "missing-scale.py", workspace / "katas" / "01_scores.py")
    run("check", "01")
    run("hint", "01")
    shutil.copy(next((CORRECT / "scores").glob("*.py")), workspace / "katas" / "01_scores.py")
    run("check", "01")
    row = json.loads(run("list", "--json").output)[0]
    assert row["status"] == "passed" and row["attempts"] == 2 and row["hints_used"] == 1
    assert row["seconds_to_pass"] is not None and row["bugs_seen"] == ["missing-scale"]
    lines = run("list").output.splitlines()
    assert lines[0].split() == ["id", "kata", "status", "attempts", "hints", "time", "to", "pass"]
    assert lines[1].startswith("01  scores") and re.search(r" passed +2 +1  \d+ s$", lines[1]), lines[1]
    assert lines[2].startswith("02  softmax") and re.search(r" unchecked +0 +0  -$", lines[2]), lines[2]


def test_progress_writes_are_atomic(tmp_path, monkeypatch):
    record = progress.load(tmp_path)
    record.record_check("01", "failed", ["missing-scale", "missing-scale"])
    record.save()
    before = record.path.read_text()

    def broken(*args):
        raise OSError("disk full")

    monkeypatch.setattr(progress.os, "replace", broken)
    record.record_check("01", "passed")
    with pytest.raises(OSError):
        record.save()
    assert record.path.read_text() == before
    assert [p.name for p in record.path.parent.iterdir()] == ["progress.json"]
    assert json.loads(before)["katas"]["01"]["bugs_seen"] == ["missing-scale"]


def test_ctrl_c_during_the_quiz_stops_but_keeps_the_pass_and_the_answers(tmp_path):
    from checker.engine.results import Result, Status

    path = tmp_path / "02_softmax.py"
    path.write_text("stub")
    session = mock.Session(SOFTMAX, path, 10, 7, FakeClock((5, lambda: path.write_text("solved"))))

    def ask(asked):
        quiz.grade(asked[0], "0.5")
        raise KeyboardInterrupt

    passing = Result("02", "softmax", str(path), Status.PASSED, [], 0.1)
    status = session.run(lambda p: passing, lambda result: None, ask, prompts.for_kata(SOFTMAX).questions)
    report = session.report(status, 0)
    assert report.status == "stopped" and report.seconds_to_pass == 5.0 and report.attempts == 1
    assert report.quiz.asked == 3 and [q.given for q in report.quiz.questions] == ["0.5", None, None]
