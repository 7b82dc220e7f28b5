"""The starter notebook `kata init` writes (katas.ipynb): the magic loaded, then a cell per kata holding its stub
under `%%kata NN`, each ready to run. nbformat 4 JSON, written here by code (nbformat itself is not needed).

Running a stub cell as it is gives NOT STARTED and the task; edit the cell and run it again. A cell's check is
kept as the cell's own in the progress record (checker/practice/notebook.py), apart from `katas/`'s files."""

import json

NBFORMAT, NBFORMAT_MINOR = 4, 5

INTRO = """# Attention katas in a notebook

Run the first cell once: it loads the `%%kata` magic. Each cell below is a kata's stub under `%%kata NN`:
running it checks the cell's code as that kata's file, in the same sandbox as `kata check` (never in this
kernel), and shows the verdict. The untouched stub says NOT STARTED and shows the task; write your code in
the cell and run it again.

`%kata list` shows your progress, `%kata hint NN` the next hint, `%kata solution NN` the reference,
`%kata repro NN` the first failing call of your latest cell as a snippet, `%kata check NN` checks the file
`katas/NN_slug.py` itself. A cell's result is the cell's own: what your files earned stays as it is."""


def _cell_id(number):
    return f"kata-{number:02d}"  # nbformat 4.5 asks every cell for an id


def _markdown(text, number):
    return {"cell_type": "markdown", "id": _cell_id(number), "metadata": {}, "source": text.splitlines(True)}


def _code(text, number):
    return {"cell_type": "code", "id": _cell_id(number), "metadata": {}, "execution_count": None, "outputs": [],
            "source": text.splitlines(True)}


def notebook(stubs):
    """The notebook's JSON text for `stubs`, (kata, stub text) pairs in kata order."""
    from checker.engine import prompts

    cells = [_markdown(INTRO, 0), _code("%load_ext checker", 1)]
    for kata, stub in stubs:
        number = len(cells)
        cells.append(_markdown(f"## {kata.id} {kata.slug}: {prompts.for_kata(kata).title}", number))
        cells.append(_code(f"%%kata {kata.id}\n{stub}", number + 1))
    document = {"cells": cells, "metadata": {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"}}, "nbformat": NBFORMAT, "nbformat_minor": NBFORMAT_MINOR}
    return json.dumps(document, indent=1, ensure_ascii=False) + "\n"
