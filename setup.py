"""The build's one step beyond pyproject.toml: the repository's top-level data goes into the wheel.

`solutions/` and `prompts.yaml` stay at the top of the repository (the design card's layout, the one source);
building a wheel copies them into the package as `checker/_data/`, where an installed `kata` reads them by
path (checker/engine/catalog.py). An editable install copies nothing: it reads the checkout itself.
The stubs need no copy: the package ships them as checker/hidden/<slug>/stub.py, which `kata init` writes out.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
DATA = ("solutions", "prompts.yaml")  # beside this file -> checker/_data/ in the wheel


class BuildWithData(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "checker" / "_data"
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        for name in DATA:
            source = HERE / name
            if source.is_dir():
                shutil.copytree(source, target / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            else:
                shutil.copy2(source, target / name)


setup(cmdclass={"build_py": BuildWithData})
