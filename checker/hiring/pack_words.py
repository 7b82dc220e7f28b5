"""A pack speaks only of what it holds: the packed copies' text, rewritten for a candidate.

The stubs and briefs are written for a learner, who has the `kata` command and every kata: "`kata check
10` says how many remain", "as kata 03", "kata 04's multi_head_attention". A candidate has `python
check.py` and the katas of the pack only. `for_pack` rewrites the packed copies (never the files of
katas/ or prompts.yaml): each command a candidate does not have, and each reference to a kata the pack
does not hold, is replaced by words that stand alone. Whitespace (a docstring's line breaks and indent)
is kept where a phrase spans lines.
"""

import re

# (pattern, replacement): commands only a learner has; a candidate's pack has check.py, which checks shapes
COMMANDS = [
    (r"`kata check 10` says how many planted bugs remain, never which;(\s+)`kata hint 10`(\s+)narrows it down one "
     r"level at a time\.",
     r"The graders' tests count the planted bugs that remain;\1`python check.py 10`\2checks shapes only."),
    (r"`kata check 10` says how many remain, never(\s+)which\.",
     r"The graders' tests count how many remain;\1`python check.py 10` checks shapes only."),
    (r"\(`kata check` measures it; `kata bench 08` shows it against plain attention\)",
     "(the graders' tests measure it)"),
    (r"\(`kata check` measures ([^)]*)\)", r"(the graders' tests measure \1)"),
    (r"`kata check (\d\d)`", r"`python check.py \1`"),
]
# (pattern, replacement) for a reference to kata NN (the pattern's group "kata") the pack does not hold
REFERENCES = [
    (r" in the style of katas \d\d-\d\d", ""),
    (r"a mistake from(\s+)the(\s+)catalogue of(\s+)katas \d\d-\d\d", r"a classic\1attention mistake"),
    (r"as kata (?P<kata>\d\d) returns it", "as the forward pass returns it"),
    (r"exactly as kata (?P<kata>\d\d)\b", "exactly as in masked attention"),
    (r"forward pass of kata (?P<kata>\d\d)\b", "forward pass of masked attention"),
    (r"kata (?P<kata>\d\d)'s(\s+)attention", r"the\2attention"),
    (r"is kata (?P<kata>\d\d)'s(\s+)\(", r"is masked attention's\2("),
    (r",? as (?:in )?kata (?P<kata>\d\d)\b", ""),
    (r"kata (?P<kata>05)'s contract", "the KV-cache contract"),
    (r"kata (?P<kata>\d\d)'s(\s+)(causal(\s+))?multi_head_attention", r"a plain\2\3multi_head_attention"),
    (r"kata (?P<kata>\d\d)'s(\s+)bottom-right", r"the\2bottom-right"),
]
# what must never remain in a pack (tests/test_hiring.py greps every pack for it)
LEARNER_COMMAND = re.compile(r"`kata (check|hint|bench|solution|reset|quiz|watch|mock|next|list)\b")
KATA_REFERENCE = re.compile(r"\bkatas? (\d\d)(?:-(\d\d))?\b")


def for_pack(text, katas):
    """`text` of a packed stub or brief, speaking only of `katas` (the pack's) and its own commands."""
    held = {kata.id for kata in katas}
    for pattern, replacement in COMMANDS:
        text = re.sub(pattern, replacement, text)
    for pattern, replacement in REFERENCES:
        def replace(found, replacement=replacement):
            kata = found.groupdict().get("kata")
            return found.group(0) if kata in held else found.expand(replacement)

        text = re.sub(pattern, replace, text)
    return text


def foreign(text, katas):
    """The learner commands and references to katas outside `katas` that `text` still holds."""
    held = {kata.id for kata in katas}
    found = [match.group(0) for match in LEARNER_COMMAND.finditer(text)]
    for match in KATA_REFERENCE.finditer(text):
        first, last = match.group(1), match.group(2) or match.group(1)
        if any(f"{number:02d}" not in held for number in range(int(first), int(last) + 1)):
            found.append(match.group(0))
    return found
