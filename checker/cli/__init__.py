"""The `kata` command. Each command parses, calls one function of the package, and prints.

Beyond click and the kata catalog, every module is imported inside the commands that use it, so
`kata --help` stays instant and `kata check` starts the learner's process before the parent loads
NumPy (or renders anything). The commands live by topic:
learn (list, check, hint, solution, reset), practice (quiz, watch, mock, bench), review (review), defend (defend),
hiring (pack, grade), setup (init, doctor), dev (dev check).
"""

import click

from checker import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="kata")
def cli():
    """Practise the attention questions of ML interviews by hand.

    Edit a stub in katas/, then let the checker tell you what is right and name what is wrong.

    Example:

    \b
        kata list
        kata check 01
        kata watch
        kata hint softmax
        kata mock --minutes 45
    """
    from checker.present import layout

    layout.use(layout.terminal_width())  # text fits the terminal; piped output is left unwrapped


from checker.cli import defend, dev, hiring, learn, practice, review, setup  # noqa: E402 - each module adds its commands to `cli`

__all__ = ["cli", "defend", "dev", "hiring", "learn", "practice", "review", "setup"]
