"""Which characters are hidden (invisible, or reordering the text around them) and how one is shown: the one rule
for every channel. Here, at the bottom floor, because the sandbox's own errors quote the learner's exception
messages on one line (`errors.LearnerError`); `checker.present.escape` builds every channel's escaping on it."""

import unicodedata

HIDDEN = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})  # controls, format (bidi, zero-width), surrogates, separators


def hidden(char):
    """Whether `char` is invisible or reorders the text around it (tab and newline excepted)."""
    return char not in "\t\n" and unicodedata.category(char) in HIDDEN


def name(char):
    """`<U+202E>`: how a hidden character is shown."""
    return f"<U+{ord(char):04X}>"


def visible(text, newlines=False):
    """`text` with every hidden character (and, unless `newlines`, every newline) shown by its code point."""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(name(char) if hidden(char) or (char == "\n" and not newlines) else char for char in text)
