"""An exception an in-contract input provokes is a failed check that quotes it; `error` is kept for what is not an
answer (SPEC). PyTorch's own ways to fail are read as NumPy's are, and a torch file's arguments are passed so a
change it makes in place is seen. A result that changes because of a later call fails."""

import importlib.util

import pytest

from checker.engine import catalog
from checker.engine.crashes import full_transpose_error, torch_fill_overflows, torch_matmul_error
from checker.engine.results import Status
from checker.engine.runner import check, not_an_answer
from checker.sandbox import Limits
from conftest import ZOO

HAS_TORCH = importlib.util.find_spec("torch") is not None
TORCH_LIMITS = Limits(seconds=60)
SCORES = "import numpy as np\n\n\ndef attention_scores(q, k):\n"


def _scores_file(tmp_path, body, name="01_scores.py"):
    path = tmp_path / name
    path.write_text(SCORES + body)
    return path


@pytest.mark.parametrize("raised", ["ValueError('only 2-D')", "IndexError('too many indices')", "RuntimeError('x')",
                                    "ZeroDivisionError('division by zero')", "UnboundLocalError('y')"])
def test_an_exception_on_an_in_contract_input_is_a_failed_check_quoting_it(tmp_path, raised):
    body = f"    if np.ndim(q) > 2:\n        raise {raised}\n    q, k = np.asarray(q, float), np.asarray(k, float)\n" \
           "    return q @ k.T / np.sqrt(q.shape[-1])\n"
    result = check(catalog.find("01"), _scores_file(tmp_path, body))
    crashed = [t for t in result.tests if t.outcome != Status.PASSED]
    assert result.status == Status.FAILED and result.bugs == []
    assert crashed and all(t.outcome == Status.FAILED and t.raised for t in crashed), crashed
    assert all(f"raised {raised.split('(')[0]}" in t.message for t in crashed), crashed
    assert any(t.outcome == Status.PASSED for t in result.tests)  # control: the 2-D checks ran and passed


@pytest.mark.parametrize("raised", ["NameError('helper')", "ModuleNotFoundError('scipy')", "PermissionError(1, 'x')",
                                    "SystemExit(0)", "KeyboardInterrupt"])
def test_what_is_not_an_answer_stays_an_error(tmp_path, raised):
    result = check(catalog.find("01"), _scores_file(tmp_path, f"    raise {raised}\n"))
    assert result.status == Status.ERROR and result.bugs == [], result.to_json()


def test_the_names_kept_for_error_are_read_from_builtins():
    for name in ("NameError", "ImportError", "ModuleNotFoundError", "OSError", "PermissionError", "BlockingIOError",
                 "SystemExit", "KeyboardInterrupt", "GeneratorExit"):
        assert not_an_answer(name), name
    for name in ("ValueError", "IndexError", "TypeError", "RuntimeError", "ZeroDivisionError", "UnboundLocalError",
                 "RecursionError", "AssertionError", "FloatingPointError", "KeyError"):
        assert not not_an_answer(name), name


def test_numpy_messages_of_a_batched_k_transpose_are_still_read():
    message = ("matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
               "(n?,k),(k,m?)->(n?,m?) (size 3 is different from 5)")
    assert full_transpose_error(message, (2, 3, 4, 5), (2, 3, 6, 5))
    assert not full_transpose_error(message, (2, 3, 4, 5), (2, 5, 6, 5))  # another k: another mistake


def test_torch_fill_overflow_is_recognised_only_for_its_own_words():
    assert torch_fill_overflows("value cannot be converted to type c10::Half without overflow")
    assert not torch_fill_overflows("value cannot be converted to type float without overflow")
    assert not torch_fill_overflows("The size of tensor a (3) must match the size of tensor b (6)")


SHAPES = [((3, 2, 3), (2, 2, 5, 3)), ((3, 2, 3), (2, 4, 3)), ((2, 3, 4, 5), (2, 3, 6, 5)), ((2, 3, 8), (2, 5, 8)),
          ((2, 3, 4, 6), (3, 5, 6)), ((4, 6), (2, 3, 5, 6)), ((2, 1, 4, 6), (3, 5, 6)), ((2, 1, 4, 6), (1, 3, 5, 6)),
          ((2, 2, 2, 3), (3, 3, 3)), ((5, 4, 3), (2, 2, 5, 3)), ((2, 2, 3, 5), (2, 2, 4, 5)), ((3, 4), (3, 5, 4)),
          ((2, 3, 2, 4), (2, 3, 9, 4)), ((6, 4, 6), (6, 6, 6)), ((2, 2, 1, 8), (2, 2, 9, 8))]


@pytest.mark.skipif(not HAS_TORCH, reason="the torch extra is not installed")
@pytest.mark.parametrize("q_shape, k_shape", SHAPES)
def test_torch_matmul_messages_are_reproduced_exactly(q_shape, k_shape):
    """The reading is exact text: each message is what torch itself raises for q @ k.T on these shapes (or no
    message where torch runs), so another shape mistake, with other sizes in its message, is never read as it."""
    import warnings

    import torch

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # .T on a >2-D tensor is deprecated: exactly the mistake read here
        try:
            torch.zeros(q_shape) @ torch.zeros(k_shape).T
            raised = None
        except RuntimeError as error:
            raised = str(error)
    assert torch_matmul_error(q_shape, k_shape[::-1]) == raised


@pytest.mark.skipif(not HAS_TORCH, reason="the torch extra is not installed")
def test_a_torch_file_that_grows_the_prompt_is_seen(tmp_path):
    """The front-end hands a torch file the very list the NumPy file gets: a prompt grown in place is named."""
    file = tmp_path / "12_beam_search.py"
    file.write_text("import torch  # a torch file\n" + (ZOO / "beam-search" / "mutates-input.py").read_text())
    result = check(catalog.find("12"), file, TORCH_LIMITS)
    assert result.frontend == "torch" and "mutates-input" in result.bugs, result.to_json()


def test_the_telling_sizes_separate_every_scale_bug_and_its_rivals():
    from checker.engine.telling import SIZES, separated

    assert all(separated(*sizes) for sizes in SIZES)
    assert not separated(6, 3, 6, 3)  # control: n_q = d_head, so sqrt(n_q) is the right divisor there


def test_a_name_whose_confirmation_disagrees_is_dropped_and_the_check_still_fails():
    from checker.engine.runner import _confirm
    from checker.engine.testkit import Failure

    for confirm, named in ((lambda kata: True, "scale-by-dk"), (lambda kata: False, None), (None, "scale-by-dk")):
        failure = Failure("scores wrong", "scale-by-dk", exact=True, confirm=confirm)
        _confirm(failure, kata=None, failure_type=Failure)
        assert failure.bug == named and (named is not None or "no bug is named" in failure.message)

    def crashes(kata):
        raise Failure("the confirming call went wrong")

    failure = Failure("scores wrong", "scale-by-dk", confirm=crashes)
    _confirm(failure, kata=None, failure_type=Failure)
    assert failure.bug is None
