"""PyTorch feedback speaks torch: a torch file's hints, fixes, briefs and messages are spelled from
checker/engine/torch_words.yaml, with no NumPy spelling left; a NumPy file's texts are untouched."""

import importlib.util
import re

import pytest

from checker.engine import catalog, prompts, spelling, torch_stubs

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
    with pytest.raises(spelling.SpellingError, match="rules 1"):
        spelling.rules(bad)
    bad.write_text("format_version: 1\nrules:\n  - ['np', '\\u']\n")
    with pytest.raises(spelling.SpellingError, match="rules 1"):
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


# --- PyTorch stubs: kata init --torch, kata reset NN --torch ------------------------------------------

STUBBED = [kata for kata in catalog.all_katas() if torch_stubs.torch_stub(kata) is not None]


def _defs(source):
    import ast

    tree = ast.parse(source, feature_version=(3, 10))
    return [(node.name, [a.arg for a in node.args.args], len(node.args.defaults))
            for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)] + \
        [node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]


@pytest.mark.parametrize("kata", STUBBED, ids=str)
def test_a_torch_stub_is_the_numpy_stubs_contract_in_torchs_words(kata):
    from checker.engine.workspace import pristine_stub
    from checker.sandbox.torch_bridge import imports_torch

    stub, numpy_stub = torch_stubs.torch_stub(kata), pristine_stub(kata)
    assert imports_torch(stub.encode()) and "import numpy" not in stub
    assert _defs(stub) == _defs(numpy_stub)  # the same functions, classes, parameters and defaults
    assert stub.count("raise NotImplementedError") == numpy_stub.count("raise NotImplementedError")
    assert stub.count(">>> ") == numpy_stub.count(">>> ")  # every worked example kept
    said = stub.replace(torch_stubs.NOTE, "")
    assert not NUMPY_SPELLING.findall(said) and not re.search(r"\barrays?\b", said), NUMPY_SPELLING.findall(said)


def _examples(source):
    import ast
    import doctest

    tree, found = ast.parse(source), []
    for node in [tree] + [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))]:
        doc = ast.get_docstring(node, clean=False)
        found += [(e.source.strip(), e.want.strip()) for e in doctest.DocTestParser().get_examples(doc or "")]
    return found


@pytest.mark.parametrize("kata", STUBBED, ids=str)
def test_a_torch_stubs_examples_say_what_the_numpy_stubs_say_where_no_tensor_prints(kata):
    """Outputs that are no array (a list of tokens, a score, a bool, a length) are the NumPy stub's own."""
    from checker.engine.workspace import pristine_stub

    pairs = list(zip(_examples(pristine_stub(kata)), _examples(torch_stubs.torch_stub(kata))))
    plain = [(numpy, torch) for (_, numpy), (_, torch) in pairs
             if "array(" not in numpy and not re.search(r"\(\(\d|^\d+$", numpy)]  # shapes, a 0-d int
    assert all(numpy == torch for numpy, torch in plain), plain


@pytest.mark.skipif(not HAS_TORCH, reason="the torch extra is not installed")
@pytest.mark.parametrize("kata", STUBBED, ids=str)
def test_a_shipped_torch_stub_is_what_its_numpy_stub_makes_with_torchs_printed_examples(kata):
    assert torch_stubs.made(kata) == torch_stubs.torch_stub(kata), "python -m checker.engine.torch_stubs rewrites it"


def test_kata_10_stays_numpy_and_reset_says_so(workspace):
    from click.testing import CliRunner

    from checker.cli import cli

    assert torch_stubs.torch_stub(catalog.find("10")) is None
    assert len(STUBBED) == len(catalog.all_katas()) - 1
    refused = CliRunner().invoke(cli, ["reset", "10", "--torch"])
    assert refused.exit_code == 2 and "NumPy decoder" in refused.output
    done = CliRunner().invoke(cli, ["reset", "03", "--torch"])
    assert done.exit_code == 0, done.output
    assert (workspace / "katas" / "03_causal_mask.py").read_text() == torch_stubs.torch_stub(catalog.find("03"))
    assert "kata reset 03 --restore" in done.output


def test_kata_init_torch_writes_the_torch_stubs_and_the_notebook_holds_them(tmp_path, monkeypatch):
    import json

    from click.testing import CliRunner

    from checker.cli import cli

    monkeypatch.chdir(tmp_path)
    made = CliRunner().invoke(cli, ["init", "--torch", "ws"])
    assert made.exit_code == 0 and "(in PyTorch)" in made.output, made.output
    for kata in catalog.all_katas():
        written = (tmp_path / "ws" / "katas" / kata.filename).read_text()
        assert written == (torch_stubs.torch_stub(kata) or kata.pristine_path.read_text())
    cells = ["".join(c["source"]) for c in json.loads((tmp_path / "ws" / "katas.ipynb").read_text())["cells"]]
    assert "%%kata 03\n" + torch_stubs.torch_stub(catalog.find("03")) in cells


@pytest.mark.skipif(not HAS_TORCH, reason="the torch extra is not installed")
def test_kata_05s_given_helpers_work_in_torch_as_in_numpy(tmp_path):
    import numpy as np
    import torch

    from checker.engine.workspace import pristine_stub

    kata = catalog.find("05")
    (tmp_path / "t.py").write_text(torch_stubs.torch_stub(kata))
    (tmp_path / "n.py").write_text(pristine_stub(kata))
    in_torch = catalog.load_module(tmp_path / "t.py", "stub_t")
    in_numpy = catalog.load_module(tmp_path / "n.py", "stub_n")
    x = np.random.default_rng(5).normal(size=(2, 3, 8))
    scores = x.copy()
    scores[0, 1, :2] = -np.inf
    assert np.allclose(in_torch.softmax(torch.tensor(scores)).numpy(), in_numpy.softmax(scores))
    heads = in_torch.split_heads(torch.tensor(x), 2)
    assert np.allclose(heads.numpy(), in_numpy.split_heads(x, 2))
    assert np.allclose(in_torch.merge_heads(heads).numpy(), x)


@pytest.mark.skipif(not HAS_TORCH, reason="the torch extra is not installed")
@pytest.mark.parametrize("kata_id", ["03", "05", "11"])
def test_a_torch_stub_checks_as_not_started_in_torch(tmp_path, kata_id):
    from checker.engine.results import Status
    from checker.engine.runner import check
    from checker.sandbox import Limits

    kata = catalog.find(kata_id)
    (tmp_path / kata.filename).write_text(torch_stubs.torch_stub(kata))
    result = check(kata, tmp_path / kata.filename, Limits(seconds=60))
    assert result.frontend == "torch" and result.status == Status.NOT_STARTED, [t.message for t in result.tests]


def test_kata_hint_for_a_torch_file_speaks_torch_and_for_a_numpy_file_numpy(workspace):
    from click.testing import CliRunner

    from checker.cli import cli

    kata = catalog.find("07")
    (workspace / "katas" / kata.filename).write_text(torch_stubs.torch_stub(kata))
    said = CliRunner().invoke(cli, ["hint", "07"]).output + CliRunner().invoke(cli, ["hint", "07"]).output
    assert "k.repeat_interleave(group, dim=1)" in said and not NUMPY_SPELLING.search(said), said
    (workspace / "katas" / kata.filename).write_text(kata.pristine_path.read_text())
    said = CliRunner().invoke(cli, ["hint", "07"]).output
    assert "np.repeat(k, group, axis=1)" in said, said


def test_kata_next_tells_a_torch_files_task_in_torchs_words(workspace):
    import hashlib
    import json

    from click.testing import CliRunner

    from checker.cli import cli

    def digest(kata):
        return hashlib.sha256((workspace / "katas" / kata.filename).read_bytes()).hexdigest()[:16]

    (workspace / ".kata").mkdir(exist_ok=True)  # katas 01-10 pass as they are: kata 11 is next
    (workspace / ".kata" / "progress.json").write_text(json.dumps({"format_version": 5, "katas": {
        k.id: {"status": "passed", "last_checked": digest(k)} for k in catalog.all_katas()[:10]}}))
    kata = catalog.find("11")
    assert "keepdims" in prompts.for_kata(kata).task  # control: the NumPy words would show
    (workspace / "katas" / kata.filename).write_text(torch_stubs.torch_stub(kata))
    told = CliRunner().invoke(cli, ["next"]).output
    assert told.startswith("Next: 11") and "keepdim=True" in told and not NUMPY_SPELLING.search(told), told
