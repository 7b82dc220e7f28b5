"""PyTorch feedback speaks torch: a torch file's hints, fixes, briefs and messages are spelled from
checker/engine/torch_words.yaml, with no NumPy spelling left; a NumPy file's texts are untouched."""

import importlib.util
import re

import pytest

from checker.engine import catalog, prompts, spelling

HAS_TORCH = importlib.util.find_spec("torch") is not None
# a NumPy spelling: np.anything, the module's name, its keywords; `axis=` is the kata's own parameter only in
# the signatures of softmax and softmax_backward (the torch stub keeps the stub's names)
NUMPY_SPELLING = re.compile(r"\bnp\.\w+|\bnumpy\b|\bNumPy\b|\bkeepdims\b|(?<!softmax\(x, )(?<!dy, )\baxis=")


def _texts(kata, frontend):
    told = prompts.for_kata(kata, frontend)
    return [("task", told.task)] + [(f"hint {n}", hint) for n, hint in enumerate(told.hints, 1)] + \
        [(f"fix of {bug}", fix) for bug, fix in told.fixes.items()]


@pytest.mark.parametrize("kata", catalog.all_katas(), ids=str)
def test_every_hint_fix_and_brief_of_a_kata_reads_in_torch_without_a_numpy_spelling(kata):
    numpy_texts, torch_texts = dict(_texts(kata, "numpy")), dict(_texts(kata, "torch"))
    left = {what: NUMPY_SPELLING.findall(text) for what, text in torch_texts.items() if NUMPY_SPELLING.search(text)}
    assert not left, left
    # control: the rules had something to do, and NumPy's own texts are as prompts.yaml writes them
    assert numpy_texts == dict(_texts(kata, "numpy")) and numpy_texts["task"] == prompts.load()[kata.slug].task
    if any(NUMPY_SPELLING.search(text) for text in numpy_texts.values()):
        assert torch_texts != numpy_texts


def test_the_issues_spellings_come_out_as_torch_writes_them():
    gqa, mask = prompts.for_kata(catalog.find("07"), "torch"), prompts.for_kata(catalog.find("03"), "torch")
    assert "k.repeat_interleave(h_q // h_kv, dim=1)" in gqa.fixes["kv-heads-tiled"]
    assert "torch.tril(torch.ones(n_q, n_k, dtype=torch.bool), diagonal=n_k - n_q)" in mask.fixes["mask-top-left"]
    assert 'scores.masked_fill(~mask, float("-inf"))' in mask.fixes["mask-after-softmax"]
    assert "torch.where(torch.isneginf(m), 0, m)" in prompts.for_kata(catalog.find("02"), "torch").hints[2]
    # the contract's own names stay: the torch stub's softmax still takes `axis`
    assert "softmax(x, axis=-1)" in prompts.for_kata(catalog.find("02"), "torch").brief
    assert prompts.fix_of("kv-heads-tiled", "torch") == gqa.fixes["kv-heads-tiled"]


def test_a_line_of_the_learners_file_quoted_in_a_message_stays_as_they_wrote_it():
    message = ("softmax(x (3, 4)) returned nan: subtract each row's maximum before np.exp; the first NaN came "
               "from katas/02_softmax.py:7 e = np.exp(x)  -> overflow encountered in exp")
    spelled = spelling.in_frontend(message, "torch", "katas/02_softmax.py")
    assert "before torch.exp;" in spelled and "katas/02_softmax.py:7 e = np.exp(x)  -> overflow" in spelled
    assert spelling.in_frontend(message, "numpy", "katas/02_softmax.py") == message


def test_a_rule_that_does_not_compile_is_named_on_load(tmp_path):
    bad = tmp_path / "words.yaml"
    bad.write_text("format_version: 1\nrules:\n  - ['np\\.(', 'torch.']\n")
    with pytest.raises(spelling.SpellingError, match="rule 1"):
        spelling.rules(bad)
    bad.write_text("format_version: 1\nrules:\n  - ['np', '\\u']\n")
    with pytest.raises(spelling.SpellingError, match="rule 1"):
        spelling.rules(bad)


@pytest.mark.skipif(not HAS_TORCH, reason="the torch extra is not installed")
def test_every_torch_function_the_texts_name_exists_in_torch():
    import torch

    named = set()
    for kata in catalog.all_katas():
        for _, text in _texts(kata, "torch"):
            named |= set(re.findall(r"\btorch\.(\w+)", text))
            named |= {f".{method}" for method in re.findall(r"\w\.(\w+)\(", text)
                      if method in ("transpose", "permute", "repeat_interleave", "repeat", "masked_fill", "amax",
                                    "scatter", "clamp", "double", "clone", "flatten", "mT")}
    missing = [name for name in named if not (hasattr(torch.Tensor, name[1:]) if name.startswith(".")
                                              else hasattr(torch, name))]
    assert not missing, missing
    assert {"tril", "where", "cat", "searchsorted", "argsort"} <= named  # control: the scan found them
