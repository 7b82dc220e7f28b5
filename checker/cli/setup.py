"""Commands that set kata up: `kata init` (a workspace) and `kata doctor` (what the machine gives the sandbox)."""

from pathlib import Path

import click

from checker.present import escape
from checker.cli import cli
from checker.cli.common import Problem


@cli.command()
@click.argument("folder", metavar="[DIR]", default="kata-practice", type=click.Path(path_type=Path))
@click.option("--torch", "torch", is_flag=True, help="Write the stubs in PyTorch (kata 10 stays NumPy).")
def init(folder, torch):
    """Make a workspace in DIR (default: ./kata-practice): katas/ with every kata's stub, a README, a starter
    notebook (katas.ipynb: one cell per kata, the magic loaded) and .kata/ for your progress. On a folder
    that has katas already, every file of yours is kept and only what is missing is added.

    Example:

    \b
        kata init
        kata init --torch my-torch-katas
        cd kata-practice && kata check 01
    """
    from checker.practice import scaffold

    try:
        layout = scaffold.init(folder, torch)
    except (scaffold.InitError, OSError) as error:
        raise Problem(f"cannot make a workspace in {folder}: {error}") from None
    from checker.present.layout import fit

    shown, said = escape.terminal(str(folder)), []
    if layout.fresh:
        katas = sum(name.startswith("katas/") for name in layout.written)
        said.append(f"Made a workspace in {shown}: {katas} katas in katas/{' (in PyTorch)' if torch else ''}, "
                    f"a README.md, {scaffold.NOTEBOOK}, .kata/")
    else:
        added = ", ".join(layout.written) or "nothing: it had every file"
        said.append(f"{shown} is a workspace already: added {escape.terminal(added)}")
        if layout.kept:
            said.append(f"kept {len(layout.kept)} of your files as they are ({escape.terminal(', '.join(layout.kept))});"
                        " `kata reset ID` restores a kata's stub, keeping a backup")
    import importlib.util

    lab = f"jupyter lab {scaffold.NOTEBOOK}"  # only where the notebook extra put JupyterLab: else say how to get it
    if importlib.util.find_spec("jupyterlab") is None:
        lab += " after pip install 'kata[notebook]'"
    said.append(f"next: cd {shown} && kata check 01 (in a notebook: {lab})")
    click.echo("\n".join(fit(said)))


@cli.command()
def doctor():
    """Say what this machine gives the sandbox (user namespaces, Landlock, seccomp, the tmpfs, memory limits),
    which extras are installed, what `kata grade` refuses without --insecure, and how to fix each gap.

    Example:

    \b
        kata doctor
    """
    from checker.engine import doctor as examination
    from checker.present.doctor_text import doctor_text

    click.echo(doctor_text(examination.examine()))
