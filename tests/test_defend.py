"""`kata defend`: questions about the learner's own file, each answered by running it.

The what-if answers are checked here independently of checker/practice/defend*.py: the test applies the edit to
the file's text itself, runs the edited file in a sandbox of its own on the call the JSON gives (decoded here),
and compares with the answer the defence computed.
"""

import json
import os
import re
import time
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from checker.cli import cli
from checker.engine import catalog
from checker.practice import defend
from checker.sandbox import LearnerError, Sandbox, Timeout
from conftest import CORRECT, ZOO

ROOT = Path(__file__).parent.parent
PAIRS = {  # two correct files written differently, per kata
    "02": (ROOT / "solutions" / "02_softmax.py", CORRECT / "softmax" / "logsumexp.py"),
    "03": (ROOT / "solutions" / "03_causal_mask.py", CORRECT / "causal-mask" / "row_loops.py"),
    "05": (ROOT / "solutions" / "05_kv_cache.py", CORRECT / "kv-cache" / "preallocated_capacity.py"),
    "08": (ROOT / "solutions" / "08_flash_attention.py", CORRECT / "flash" / "logsumexp_state.py"),
    "12": (ROOT / "solutions" / "12_beam_search.py", CORRECT / "beam-search" / "heap.py"),
}
SEED = 5


@lru_cache(maxsize=None)
def asked(kata_id, path, seed=SEED):
    """The defence's questions for one file, as `kata defend --json` gives them (computed once)."""
    kata = catalog.find(kata_id)
    return [q.to_json() for q in defend.questions(kata, path, path.read_bytes(), count=4, seed=seed)]


# --- decoding the JSON and running a call, independently ---------------------------------------------

def decoded(spec):
    if isinstance(spec, str):
        return float(spec)
    if isinstance(spec, list):
        return np.array(_floats(spec), dtype=np.float64)
    if not isinstance(spec, dict):
        return spec
    if "random" in spec:
        return np.round(np.random.default_rng(spec.get("seed", 0)).standard_normal(tuple(spec["random"])), 2)
    (key, body), = spec.items()
    with np.errstate(divide="ignore"):
        return {"bool": lambda: np.array(body, dtype=bool), "int": lambda: np.array(body, dtype=np.int64),
                "list": lambda: list(body), "logprobs": lambda: np.log(np.array(body, dtype=np.float64)),
                "object": lambda: ("object", body)}[key]()


def _floats(items):
    return [_floats(x) if isinstance(x, list) else float(x) for x in items]


def run_json_call(source, call, name="mine.py"):
    """("value", the picked result) or ("error", its type) of the JSON call on a file's bytes, in a fresh child."""
    box = Sandbox(name, source=source)
    try:
        box.load([])
        made, result = {}, None
        for step in call["steps"]:
            args = [decoded(a) for a in step["args"]]
            args = [made[a[1]] if isinstance(a, tuple) else a for a in args]
            kwargs = {k: decoded(v) for k, v in step["kwargs"].items()}
            target = made[step["self"]] if "self" in step else None
            result = box.call(step["call"], args, kwargs, target)
            if "as" in step:
                made[step["as"]] = result
        for index in call["pick"]:
            result = result[index]
        return "value", result
    except LearnerError as error:
        return "error", error.type
    except Timeout:
        return "timeout", None
    finally:
        box.close()


def edited(text, edit):
    """The file with the edit applied, as the JSON describes it: each changed line's whole new text; the line the
    edit names holds what `old` says before and `new` after."""
    lines = text.split("\n")
    assert lines[edit["lines"][0] - 1].strip() == edit["old"]
    for number, new in edit["changes"]:
        lines[number - 1] = new
    assert lines[edit["lines"][0] - 1].strip() == edit["new"]
    return "\n".join(lines)


NUMBER = re.compile(r"-?inf|nan|-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def flat(value):
    if isinstance(value, (tuple, list)):
        return [x for item in value for x in flat(item)]
    return list(np.asarray(value, dtype=np.float64).ravel())


def agrees(answer, prompt, original, mutant):
    """Whether the answer text says what the mutant gave (and, for `the same as now`, what the file gives)."""
    row = re.search(r"\(row ([\d, ]+) of the result\)", prompt)
    index = tuple(int(i) for i in row.group(1).split(",")) if row else ()

    def part(value):
        return value[index] if index else value

    if answer.startswith("an error ("):
        return mutant == ("error", answer[len("an error ("):-1])
    if answer.startswith("it never returns"):
        return mutant[0] == "timeout"
    if mutant[0] != "value":
        return False
    got = flat(part(mutant[1]))
    if answer.startswith("the same as now: "):
        want = flat(part(original[1]))
        return len(want) == len(got) and np.allclose(got, want, rtol=1e-6, atol=1e-9, equal_nan=True)
    want = [float(x) for x in NUMBER.findall(answer)]
    return len(want) == len(got) and np.allclose(got, want, rtol=6e-3, atol=6e-3, equal_nan=True)


# --- the proof -------------------------------------------------------------------------------------

@pytest.mark.parametrize("kata_id", sorted(PAIRS))
def test_two_correct_files_get_different_questions_each_about_its_own_lines(kata_id):
    found = []
    for path in PAIRS[kata_id]:
        questions = asked(kata_id, path)
        assert len(questions) >= 3, (path, questions)
        lines = path.read_text().splitlines()
        for q in questions:
            assert q["kind"] in ("what-if", "predict", "cost")
            if q["kind"] != "cost":
                code = lines[q["line"] - 1].strip()
                assert 1 <= q["line"] <= len(lines) and f"`{code}`" in q["prompt"], (path, q)
        assert any(q["kind"] == "what-if" for q in questions), questions
        found.append({(q["kind"], q["line"], q["prompt"]) for q in questions if q["kind"] != "cost"})
    assert found[0] != found[1] and found[0] and found[1]


@pytest.mark.parametrize("kata_id", sorted(PAIRS))
def test_every_what_if_answer_is_what_the_edited_file_returns(kata_id):
    checked = 0
    for path in PAIRS[kata_id]:
        text = path.read_text()
        for q in asked(kata_id, path):
            if q["kind"] != "what-if":
                continue
            assert q["answer"] in q["choices"] and len(set(q["choices"])) == len(q["choices"])
            original = run_json_call(text.encode(), q["call"])
            mutant = run_json_call(edited(text, q["edit"]).encode(), q["call"])
            assert agrees(q["answer"], q["prompt"], original, mutant), (path.name, q, mutant)
            wrong = [c for c in q["choices"] if c != q["answer"]]
            assert not any(agrees(c, q["prompt"], original, mutant) for c in wrong), (path.name, q, mutant)
            checked += 1
    assert checked >= 2


def _peak_beyond_inputs(path, call, source=None):
    """A fresh measurement: the kernel's peak for the call's steps, beyond the last step's array inputs."""
    box = Sandbox(path.name, source=path.read_bytes() if source is None else source)
    try:
        box.load([])
        made, inputs = {}, 0
        for number, step in enumerate(call["steps"]):
            args = [decoded(a) for a in step["args"]]
            target = made[step["self"]] if "self" in step else None
            if number == len(call["steps"]) - 1:
                _, figures = box.measure(step["call"], args, {}, target)
                inputs = sum(a.nbytes for a in args if isinstance(a, np.ndarray))
            else:
                result = box.call(step["call"], args, {}, target)
                if "as" in step:
                    made[step["as"]] = result
        return figures["peak_bytes"] - inputs
    finally:
        box.close()


@pytest.mark.parametrize("kata_id", ["02", "05"])
def test_a_cost_answer_is_within_its_tolerance_of_a_fresh_measurement(kata_id):
    entry = next(e for e in defend.spec(catalog.find(kata_id))["cost"] if e["kind"] == "peak")
    figures = []
    for path in PAIRS[kata_id]:
        cost = [q for q in asked(kata_id, path) if q["kind"] == "cost"]
        assert len(cost) == 1 and cost[0]["choices"] is None
        base = _peak_beyond_inputs(path, cost[0]["call"], entry["baseline"].encode()) if "baseline" in entry else 0
        fresh = (_peak_beyond_inputs(path, cost[0]["call"]) - base) / entry["unit_bytes"]
        assert abs(cost[0]["answer"] - fresh) <= entry["tolerance"], (path.name, cost[0]["answer"], fresh)
        figures.append(fresh)


def test_a_growth_answer_is_what_a_fresh_measurement_says():
    entry = defend.spec(catalog.find("08"))["cost"][0]
    for path in PAIRS["08"]:
        (cost,) = [q for q in asked("08", path) if q["kind"] == "cost"]
        small, large = (_peak_beyond_inputs(path, {"steps": entry[size], "pick": []})
                        - _peak_beyond_inputs(path, {"steps": entry[size], "pick": []}, entry["baseline"].encode())
                        for size in ("small", "large"))
        assert cost["answer"] == entry["choices"][0 if large - small < entry["flat_below"] else 1], (small, large)


def test_a_question_the_same_for_every_implementation_is_dropped():
    """The reference's and its rivals' shared traces (a quiz fact) never come back as a predict question."""
    kata = catalog.find("02")
    for path in PAIRS["02"]:
        for q in asked("02", path):
            if q["kind"] == "predict":
                assert "shape does `x`" not in q["prompt"]  # x keeps the input's shape in every softmax


# --- the command -----------------------------------------------------------------------------------

def test_a_failing_file_is_refused_with_one_line(workspace):
    result = CliRunner().invoke(cli, ["defend", "02", "--file", str(ZOO / "softmax" / "no-max-shift.py")])
    assert result.exit_code == 1
    assert result.output.strip() == "defend a passing solution: `kata check 02` first"


def _reply(q):
    if q["choices"]:
        return "abcdefgh"[q["choices"].index(q["answer"])]
    if isinstance(q["answer"], list):
        return ", ".join(str(x) for x in q["answer"])
    return str(q["answer"])


def test_answers_fed_on_stdin_are_scored_and_kept(workspace):
    (workspace / "katas" / "02_softmax.py").write_text((ROOT / "solutions" / "02_softmax.py").read_text())
    runner = CliRunner()
    listing = runner.invoke(cli, ["defend", "02", "--seed", "9", "--json"])
    assert listing.exit_code == 0, listing.output
    data = json.loads(listing.stdout)
    assert set(data) == {"kata", "file", "questions"} and data["kata"] == "02"
    assert all(set(q) == {"kind", "line", "edit", "call", "prompt", "choices", "answer"} for q in data["questions"])
    replies = [_reply(q) for q in data["questions"]]
    replies[-1] = "wrong" if data["questions"][-1]["choices"] else "123456"
    result = runner.invoke(cli, ["defend", "02", "--seed", "9"], input="this is not an answer\n" + "\n".join(replies) + "\n")
    assert result.exit_code == 0, result.output
    assert "Could not read that" in result.output  # asked again, never marked wrong
    total = len(data["questions"])
    assert f"Score: {total - 1} of {total}" in result.output
    assert "kata defend 02 -n 4 --seed 9" in result.output
    listed = runner.invoke(cli, ["list"])
    assert f"Defended: 02 {total - 1}/{total}" in listed.output
    plan = runner.invoke(cli, ["review", "--show"])  # the missed question joins the review's plan
    assert "Defend again:" in plan.output and f"`kata defend 02 -n {total} --seed 9` asks them again" in plan.output


def tree_cpu(pid):
    """utime + stime + cutime + cstime of `pid` (its reaped children included), in seconds (as bench/defend_cpu.py)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def test_four_questions_take_under_a_second_of_cpu():
    """The defence of kata 05's reference: this process and every sandbox child (forked by the zygote, which
    reaps them: its cutime) together, after the first use of the zygote."""
    from checker.sandbox import warm

    kata, path = catalog.find("05"), PAIRS["05"][0]
    source = path.read_bytes()
    defend.questions(kata, path, source, count=1, seed=1)  # the zygote started, the reference loaded
    zygote = warm.current()
    ours, theirs = time.process_time(), tree_cpu(zygote.process.pid)
    found = defend.questions(kata, path, source, count=4, seed=2)
    cpu = time.process_time() - ours + tree_cpu(zygote.process.pid) - theirs
    assert len(found) == 4 and cpu < 1.0, cpu


def test_a_hiring_team_gets_three_follow_ups_about_the_candidates_lines_with_computed_answers():
    import hashlib

    from checker.hiring import grade, review_page
    from checker.sandbox import Limits

    path = PAIRS["02"][1]
    data = path.read_bytes()
    check = grade.check_one("02", path, Limits(), 2017, read=(data, hashlib.sha256(data).hexdigest(), None))
    assert check["status"] == "passed" and len(check["follow_up"]) == 3
    lines = path.read_text().splitlines()
    for question in check["follow_up"]:
        assert question["ask"].endswith(": ask why.") and f"line {question['line']}" in question["ask"].lower()
        assert f"`{lines[question['line'] - 1].strip()}`" in question["prompt"]
    assert not any("the same as now" in q["ask"] for q in check["follow_up"])  # each tells something
    page = review_page._follow_ups([{"ask": "If line 3 (`<script>`) were removed: ask why."}])
    assert "<script>" not in page and "&lt;script&gt;" in page
    failing = ZOO / "softmax" / "no-max-shift.py"
    data = failing.read_bytes()
    check = grade.check_one("02", failing, Limits(), 2017, read=(data, hashlib.sha256(data).hexdigest(), None))
    assert "follow_up" not in check


def test_ctrl_c_in_a_defence_prints_the_score_so_far_and_the_replay_command(workspace):
    from test_ctrl_c import in_a_terminal

    os.environ.pop("PYTEST_XDIST_WORKER", None)
    (workspace / "katas" / "02_softmax.py").write_text((ROOT / "solutions" / "02_softmax.py").read_text())
    code, text = in_a_terminal(["defend", "02", "--seed", "4"], workspace, "Your answer")
    assert code == 1, text
    text = " ".join(text.split())  # wrapped at 80 columns
    assert "Stopped. Score so far: 0 of 0 answered (4 asked)" in text, text
    assert "`kata defend 02 -n 4 --seed 4` asks the same questions again" in text and "Aborted!" not in text


def test_edits_keep_every_other_line_and_never_remove_a_loop_counter():
    from checker.practice import defend_edits

    source = (b"def f(x, n):\n    i = 0\n    total = x * 2  # twice\n    while i < n:\n        i += 1\n"
              b"        total = total - 1\n    return total\n")
    found = defend_edits.mutants(source, ["remove", "drop-subtraction"])
    assert {(e.kind, e.line) for e in found} == {("remove", 3), ("remove", 6), ("drop-subtraction", 6),
                                                ("remove", 4)}  # never line 2 or 5: the loop would never end
    for edit in found:
        assert len(edit.source.splitlines()) == len(source.splitlines())
        assert defend_edits.compiles(edit)
    with pytest.raises(defend_edits.Unparsable):
        defend_edits.mutants(b"x = 1\n" * 20000, ["remove"])


@pytest.mark.parametrize("kata", [k for k in catalog.all_katas() if defend.spec(k)], ids=str)
def test_every_defend_yaml_names_in_contract_calls_that_the_reference_answers(kata):
    """Each kata's defend.yaml: calls the reference answers (no error), at least one edge call, rivals that
    exist, edit kinds the editor knows, cost entries with what their kind needs."""
    from checker.practice import defend_edits, defend_host, defend_run

    definition = defend.spec(kata)
    calls = defend_run.calls_of(definition)
    assert calls and any(call.edge for call in calls) and len({c.id for c in calls}) == len(calls)
    assert all((kata.folder / rival).is_file() for rival in definition.get("rivals", []))
    known = {"remove", "drop-subtraction", "div-drop", "add-to-mul", "compare", "axis", "keepdims", "k-zero", "sqrt",
             "exp-drop", "max-drop", "where", "fill", "mask-after-softmax"}
    assert set(definition["edits"]) <= known
    source = kata.solution_path.read_bytes()
    assert defend_edits.mutants(source, definition["edits"])  # the reference offers edits of these kinds
    host = defend_host.Host(kata.solution_path, [source])
    try:
        found = defend_run.outcomes(host, 0, calls)
    finally:
        host.close()
    assert found is not None and not any(o.is_error for o in found), [(c.id, o) for c, o in zip(calls, found)]
    for entry in definition.get("cost", []):
        need = {"peak": {"steps", "unit_bytes", "tolerance", "prompt"}, "growth": {"small", "large", "flat_below",
                                                                                    "choices", "prompt"}}
        assert need[entry["kind"]] <= set(entry), entry["id"]


def test_what_the_child_names_is_shown_escaped():
    """An exception's type name and a value's text are the child's to set: no control character reaches the
    terminal, and an unreadable probe report is no report."""
    from checker.practice import defend_run
    from checker.present import defend_text

    shown = defend_text.outcome_text(defend_run.Outcome(error="Boom\x1b[2J\x1b[31m\n"), None)
    assert "\x1b" not in shown and "\n" not in shown and shown.startswith("an error (Boom")
    assert defend_run._probe_report("kata-probe:" + "[" * 5000) is None
    assert defend_run._probe_report('kata-probe:{"shape": "x"}') is None
    assert defend_run._probe_report("kata-probe:" + json.dumps({"shape": [2], "kind": "f", "size": 2,
                                                                 "values": [1.0, 2.0]}))["shape"] == (2,)


def test_the_mask_moved_after_the_softmax_is_an_edit_the_json_describes_and_it_changes_the_answer():
    from checker.practice import defend_edits, defend_run

    path = PAIRS["05"][0]
    text = path.read_text()
    (edit,) = defend_edits.mutants(path.read_bytes(), ["mask-after-softmax"])
    assert "applied after the softmax" in edit.description and len(edit.changes) == 2
    assert edited(text, edit.to_json()).encode() == edit.source  # what the JSON says is the whole edit
    call = next(c for c in defend_run.calls_of(defend.spec(catalog.find("05"))) if c.id == "prefill")
    as_json = defend_run.call_json(call)
    original, mutant = run_json_call(text.encode(), as_json), run_json_call(edit.source, as_json)
    assert original[0] == mutant[0] == "value" and not np.allclose(original[1], mutant[1])


def test_a_removed_block_is_explained_as_the_block_the_question_removed():
    """The question says "if lines 4-6 were removed"; its explanation said "with line 4 as `pass`" (walk of 13),
    which reads as if only the block's first line went. It names the same lines the question removed."""
    from types import SimpleNamespace

    from checker.practice import defend_edits
    from checker.present import defend_text

    source = (b"def f(x, n):\n    total = x * 2\n    for i in range(n):\n        total = total - 1\n"
              b"        total = total * 1\n    return total\n")
    block = next(e for e in defend_edits.mutants(source, ["remove"]) if e.line == 3)
    assert block.last == 5
    question = defend_text.what_if_prompt(block, SimpleNamespace(say="f(2, 1)"), None)
    mine = SimpleNamespace(error=None, is_error=False, value=3.0)
    theirs = SimpleNamespace(error=None, is_error=False, value=4.0)
    said = defend_text.what_if_explanation(block, SimpleNamespace(say="f(2, 1)"), mine, theirs, None)
    assert "lines 3-5" in question and "lines 3-5 removed" in said and "line 3 as" not in said
    single = next(e for e in defend_edits.mutants(source, ["remove"]) if e.line == 2)
    said = defend_text.what_if_explanation(single, SimpleNamespace(say="f(2, 1)"), mine, theirs, None)
    assert "line 2 as `pass`" in said
