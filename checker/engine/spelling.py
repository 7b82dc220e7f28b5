"""The checker's texts in the learner's language: a kata file written in PyTorch gets every message, hint, fix
and brief with torch's spelling (`repeat_interleave`, `torch.tril(..., diagonal=n_k - n_q)`, `masked_fill`,
`dim=`), from the rules of torch_words.yaml. Numbers, shapes and the weight pictures are never touched, and
neither is what the learner's own file says (a line of it quoted in a message stays as they wrote it)."""

import dataclasses
import re
from functools import lru_cache
from pathlib import Path

import yaml

WORDS = Path(__file__).with_name("torch_words.yaml")
FORMAT_VERSION = 1


class SpellingError(ValueError):
    """torch_words.yaml is not what the checker expects; the message names the file and the rule."""


@lru_cache(maxsize=None)
def rules(path=WORDS, key="rules"):
    """The compiled (pattern, replacement) pairs of `key` ("rules", or "stub_rules"), in order, validated."""
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as error:
        raise SpellingError(f"{path}: cannot read it: {error}") from None
    if not isinstance(data, dict) or data.get("format_version") != FORMAT_VERSION or \
            not {"format_version", "rules"} <= set(data) <= {"format_version", "rules", "stub_rules"}:
        raise SpellingError(f"{path}: expected format_version {FORMAT_VERSION}, rules and stub_rules, "
                            f"found {sorted(data or ())}")
    compiled = []
    for number, rule in enumerate(data.get(key) or [], start=1):
        if not (isinstance(rule, list) and len(rule) == 2 and all(isinstance(part, str) for part in rule)):
            raise SpellingError(f"{path}: {key} {number}: expected [pattern, replacement], found {rule!r}")
        try:
            compiled.append((re.compile(rule[0], re.M), rule[1]))
            compiled[-1][0].sub(rule[1], "")  # a replacement's escapes are checked here, not at the first match
        except re.error as error:
            raise SpellingError(f"{path}: {key} {number}: {error}") from None
    return tuple(compiled)


def torch_text(text):
    """`text` as a PyTorch user reads it: every rule applied in order."""
    for pattern, replacement in rules():
        text = pattern.sub(replacement, text)
    return text


def in_frontend(text, frontend, quoted=None):
    """`text` for a file of `frontend` ("numpy": as it is). `quoted`: the learner file's name as messages quote
    it, `file:line code  -> warning`: such a quote of their own line is kept as they wrote it."""
    if frontend != "torch" or not text:
        return text
    if not quoted:
        return torch_text(text)
    parts = re.split(f"({re.escape(quoted)}:\\d+ .*?(?:  -> |$))", text, flags=re.M)
    return "".join(part if index % 2 else torch_text(part) for index, part in enumerate(parts))


def prompts_in(prompts, frontend):
    """A kata's prompts (prompts.KataPrompts) spelled for `frontend`: its brief, method, hints, fixes and what each
    bug is."""
    if frontend != "torch":
        return prompts
    return dataclasses.replace(prompts, brief=torch_text(prompts.brief),
                               method=torch_text(prompts.method),
                               hints=tuple(torch_text(hint) for hint in prompts.hints),
                               fixes={bug: torch_text(fix) for bug, fix in prompts.fixes.items()},
                               means={bug: torch_text(said) for bug, said in (prompts.means or {}).items()})


def result_in(result, frontend=None):
    """A check's Result with its messages spelled for its frontend (a NumPy file's result is returned as it is)."""
    frontend = frontend or result.frontend
    if frontend != "torch":
        return result
    tests = [dataclasses.replace(test, message=in_frontend(test.message, frontend, result.file))
             for test in result.tests]
    return dataclasses.replace(result, tests=tests)

