"""Check one learner file against one kata's hidden tests: the sandbox runs the learner's calls,
the hidden tests compare here, and the outcome is a `Result`."""

import functools
import inspect
import os
import sys
import time
import zlib
from pathlib import Path

from checker.engine.proxy import Learner, SandboxSession
from checker.engine.results import Result, Status, TestOutcome, overall_status
from checker.sandbox import OUTPUT_LIMIT, Died, LearnerError, Limits, Sandbox, SandboxError, Timeout

DEFAULT_SEED = 2017  # "Attention Is All You Need"


def hidden_tests(hidden):
    """The hidden module's tests, in the order they are written."""
    tests = [f for name, f in vars(hidden).items() if name.startswith("test_") and callable(f)]
    return sorted(tests, key=lambda f: f.__code__.co_firstlineno)


def display_path(path):
    path = Path(os.path.realpath(path))  # never raises (Path.resolve does on a symlink loop)
    try:
        return os.path.relpath(path) if path.is_relative_to(Path.cwd()) else str(path)
    except ValueError:
        return str(path)


def check(kata, path, limits=None, seed=DEFAULT_SEED, source=None, author="your"):
    """Run `kata`'s hidden tests on the learner file at `path` (whose bytes are `source`, if the caller
    has read them itself); `author` is whose code the messages speak of ("your", "the candidate's")."""
    started = time.monotonic()
    boxes = [Sandbox(path, limits or Limits(), source=source)]  # first, so the child loads NumPy while we do
    file = display_path(path)
    try:
        outcomes = _run_all(kata, boxes, seed, file, author)
        output = "".join(_as_the_learner_sees_it(box.output(), box, path, file) for box in boxes)
    finally:
        for box in boxes:
            box.close()
    result = Result(kata.id, kata.slug, file, overall_status(outcomes), outcomes, time.monotonic() - started, output,
                    frontend=boxes[0].frontend.removesuffix("-missing"))
    if result.status == Status.NOT_STARTED:
        from checker.engine import stubs

        result.unreachable = stubs.unreachable(boxes[0].source)  # the bytes the sandbox read once, never again
    if result.frontend == "torch":
        from checker.engine import spelling

        result = spelling.result_in(result)  # the messages in torch's words, the learner's quoted lines as written
    return result


def _as_the_learner_sees_it(output, sandbox, path, file):
    """What the learner's code printed, with the sandbox's private copy named as the learner's own file (a
    warning's `file:line`), and without a traceback of the checker's own worker (a crash outside their code)."""
    try:
        output = output.replace(sandbox.private_path(path), file)
    except KeyError:  # the file could not be read: there is no copy
        pass
    start = output.find("Traceback (most recent call last):")
    if start >= 0 and "/sandbox/worker.py" in output[start:]:
        output = output[:start].rstrip("\n") + ("\n" if start else "")
    return output


def _run_all(kata, boxes, seed, file, author="your"):
    """Every hidden test on the learner's file, the `measured` ones first: the first in `boxes[0]`'s child, which
    has run nothing but the file's import, so its peak since hello is its own; a later one in a fresh child
    (appended to `boxes`). The others then get the whole time limit, in a fresh child if a measured test ended
    the first."""
    import numpy as np  # not before the learner's process is on its way

    sandbox, hidden = boxes[0], kata.hidden()
    tests = sorted(hidden_tests(hidden), key=lambda test: not getattr(test, "measured", False))
    try:
        missing = sandbox.load(hidden.API)
    except (LearnerError, SandboxError) as error:
        return [_load_failure(error)]
    if missing:
        names = ", ".join(f"{name}()" for name in missing)
        return [TestOutcome("load", Status.ERROR, message=f"the file defines no {names}: keep the stub's names")]
    changed = signature_problem(hidden.API, sandbox.signatures)
    if changed:
        return [TestOutcome("signature", Status.ERROR, message=changed)]
    from checker.engine.testkit import Failure, call_text  # imports NumPy, as above

    session = SandboxSession(sandbox, file, call_text, Failure)
    session.author = author
    memo = sys.modules.get("checker.engine.refmemo")  # not imported: nobody enabled it (a lone check)
    reference = memo.wrap(kata.id, kata.reference()) if memo else kata.reference()
    fixtures = {"kata": Learner(session, hidden.API), "ref": reference, "seed": seed}
    order = {test.__name__.removeprefix("test_"): n for n, test in enumerate(hidden_tests(hidden))}
    outcomes, after_measured = [], False
    for number, test in enumerate(tests):
        name, measured = test.__name__.removeprefix("test_"), getattr(test, "measured", False)
        if number and (measured or after_measured and sandbox.process.poll() is not None):
            boxes.append(sandbox.again())  # a peak of its own, or a child again after a measured test ended one
            session.sandbox = sandbox = boxes[-1]
            try:
                sandbox.load(hidden.API)
            except (LearnerError, SandboxError) as error:
                outcomes.append(_load_failure(error))
                break
        elif sandbox.process.poll() is not None:
            break  # timed out or died: nothing left to ask
        fixtures["rng"] = np.random.default_rng([seed, zlib.crc32(name.encode())])
        outcomes.append(run_test(test, name, fixtures, session))
        if outcomes[-1].message.endswith(MEMORY):
            break  # out of memory: nothing more to learn from asking again
        after_measured = measured
        if measured:
            sandbox.deadline = time.monotonic() + sandbox.limits.seconds  # the rest get the whole time limit
    return sorted(outcomes, key=lambda outcome: order.get(outcome.name, len(order)))


def signature_problem(api, signatures):
    """What differs between the stub's parameters (`api`: name -> names) and the learner's, or None.

    The checks pass arguments by position in the stub's order, so a parameter moved or renamed
    would silently receive another argument; extra parameters after the stub's are fine."""
    for name, wanted in api.items():
        found = signatures.get(name)
        if found is None or not wanted:
            continue
        for position, want in enumerate(wanted):
            got = found[position] if position < len(found) else None
            if got != want:
                stub = f"{name}({', '.join(wanted)})"
                if got is None:
                    return f"{name}() takes no parameter `{want}`: keep the stub's signature, {stub}"
                return (f"{name}()'s parameter {position + 1} is `{got}` where the stub has `{want}`: the checks "
                        f"pass `{want}` there, so keep the stub's signature, {stub}")
    return None


def run_test(test, name, fixtures, session):
    """One hidden test's outcome; a failure keeps the test's calls, for its repro."""
    wanted = _parameters(test)
    session.nonfinite_calls = []  # what this test's calls made, so its own failing call is traced
    session.calls = []  # every call of this test, kept with a failure for its repro
    outcome = _outcome(test, name, fixtures, session, wanted)
    if outcome.outcome != Status.PASSED:
        outcome.calls = session.calls
    return outcome


def _outcome(test, name, fixtures, session, wanted):
    import numpy as np  # loaded by _run_all by now; the module itself does not import NumPy

    from checker.engine.testkit import Failure  # imports NumPy, as above
    try:
        with np.errstate(all="ignore"):  # the learner's NaNs are diagnosed, not warned about
            test(**{param: fixtures[param] for param in wanted})
    except Failure as failure:
        _confirm(failure, fixtures["kata"], Failure)
        outcome = TestOutcome(name, Status.FAILED, failure.bug, failure.message, failure.exact, picture=failure.picture,
                              details=failure.details)
        if failure.nonfinite:
            _add_trace(outcome, session, failure.message)
        return outcome
    except LearnerError as error:
        call = getattr(error, "call", "the code")
        if error.not_implemented:
            return TestOutcome(name, Status.NOT_STARTED, message=f"{call} still raises NotImplementedError")
        if error.type == "MemoryError":
            return TestOutcome(name, Status.ERROR, where=error.frames, message=memory_message(call, session))
        if error.type == OUTPUT_LIMIT:
            return TestOutcome(name, Status.ERROR, where=error.frames, message=f"{call} printed more than the checker "
                               f"keeps ({session.sandbox.limits.output_bytes:,} bytes) and was stopped: print less")
        if not_an_answer(error.type):
            return TestOutcome(name, Status.ERROR, message=f"{call} raised {error}", where=error.frames)
        # an in-contract input made the learner's code raise: the check failed, and says how (SPEC)
        return TestOutcome(name, Status.FAILED, message=f"{call} raised {error}", where=error.frames, raised=True)
    except Timeout as timeout:
        return TestOutcome(name, Status.TIMEOUT, message=_timeout_message(timeout, session))
    except Died as died:
        if "MemoryError" in session.sandbox.output(limit=1 << 16)[-2000:]:  # it died allocating: in its last call
            call = session.calls[-1].text if session.calls else "the code"
            return TestOutcome(name, Status.ERROR, message=memory_message(call, session))
        return TestOutcome(name, Status.ERROR, message=str(died))
    except Exception as error:  # noqa: BLE001 - a result the test could not make sense of
        if os.environ.get("KATA_DEBUG"):
            raise
        return TestOutcome(name, Status.FAILED, message=f"could not check the result: {type(error).__name__}: {error}")
    return TestOutcome(name, Status.PASSED)


def _outside_the_answer():
    """The names of the built-in exceptions that say the code was not an answer to run (SPEC: `error` is kept for
    a syntax or import error, a missing name): ImportError and NameError (a typo, a missing helper; not
    UnboundLocalError, which an input's branch provokes), the OSError family (the sandbox's walls refused
    something), and what is not an Exception at all (sys.exit, KeyboardInterrupt). Read from `builtins`."""
    import builtins

    names = set()
    for name, value in vars(builtins).items():
        if not (isinstance(value, type) and issubclass(value, BaseException)):
            continue
        if (not issubclass(value, Exception) or issubclass(value, (ImportError, OSError))
                or issubclass(value, NameError) and not issubclass(value, UnboundLocalError)):
            names.add(name)
    return frozenset(names)


_NOT_AN_ANSWER = _outside_the_answer()


def not_an_answer(error_type):
    """True when a learner's exception of this type is an `error` (the file could not answer), False when it is
    the answer failing: any other exception a hidden test's in-contract input provokes."""
    return error_type in _NOT_AN_ANSWER


def _confirm(failure, kata, failure_type):
    """Keep a failure's bug name only if its `confirm` (inputs that tell that bug apart) agrees on the learner's code;
    else the failure stands, unnamed. A crash or a failure while confirming is disagreement."""
    if not failure.bug or failure.confirm is None:
        return
    try:
        agreed = bool(failure.confirm(kata))
    except (failure_type, LearnerError, SandboxError):
        agreed = False
    if not agreed:
        failure.message += f" (inputs chosen to tell {failure.bug} apart disagree: no bug is named from this check)"
        failure.bug, failure.exact = None, False


MEMORY = "(a loop that keeps allocating, or a table too big?); the other checks were not run"


def memory_message(call, session):
    """Running out of memory, said the same way wherever it happens (a call, the reply, the process)."""
    return f"{call} ran out of memory: the sandbox allows {session.sandbox.limits.memory_mb:,} MiB {MEMORY}"


@functools.lru_cache(maxsize=None)
def _parameters(test):
    """The fixtures a hidden test asks for (its parameters): read once per test, not once per file checked."""
    return tuple(inspect.signature(test).parameters)


def _timeout_message(timeout, session):
    """The time-out, and the line of the file the code was running when it was stopped."""
    message = f"{session.author} code gave {timeout}"
    if timeout.frames:
        line, function, code = timeout.frames[-1]
        loops = _enclosing_loops(getattr(session.sandbox, "source", b""), [frame[0] for frame in timeout.frames])
        message += f"; when stopped it was running {session.file}:{line} in {function}: {code}"
        if loops and "while" not in loops:
            message += (" (inside for loops only, no while: most likely code too slow for the time limit rather than "
                        "an endless loop; do the inner loops' work with whole arrays)")
        else:
            message += " (an endless loop?)"
    return message


def _enclosing_loops(source, lines):
    """The kinds of loop ("for", "while") around any of the learner's `lines`, read from the file's own bytes
    (a comprehension counts as a for loop)."""
    import ast

    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    bounded = (ast.For, ast.AsyncFor, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
    kinds = set()
    for node in ast.walk(tree):
        if isinstance(node, bounded + (ast.While,)) and any(node.lineno <= line <= node.end_lineno for line in lines):
            kinds.add("while" if isinstance(node, ast.While) else "for")
    return kinds


def _add_trace(outcome, session, message=""):
    """Say which line of the learner's file made the first NaN or inf of the failing call."""
    try:
        trace = session.trace_nonfinite(message)
    except (SandboxError, LearnerError):
        return
    if trace:
        line, _, code = trace["frames"][-1]
        outcome.message += f"; the first NaN/inf came from {session.file}:{line} {code}  -> {trace['message']}"
        from checker.engine.evidence import trace_contradicts

        if outcome.bug and trace_contradicts(outcome.bug, code, trace["message"]):
            outcome.message += f" (which is not how {outcome.bug} makes its NaN: no bug is named from this check)"
            outcome.bug, outcome.exact = None, False


def _load_failure(error):
    if isinstance(error, Timeout):
        return TestOutcome("load", Status.TIMEOUT, message=f"importing the file gave {error}")
    if isinstance(error, LearnerError):
        if error.not_implemented:
            return TestOutcome("load", Status.NOT_STARTED, message="importing the file raises NotImplementedError")
        where = ""
        if error.type in ("SyntaxError", "IndentationError", "TabError") and error.frames:
            line, _, code = error.frames[-1]
            where = f" at line {line}" + (f": {code}" if code else "")
        return TestOutcome("load", Status.ERROR, message=f"importing the file raised {error}{where}",
                           where=error.frames)
    return TestOutcome("load", Status.ERROR, message=f"importing the file: {error}")
