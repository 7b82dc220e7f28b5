"""`kata doctor`'s screen: one screen of at most 80 columns, from a doctor.Report."""

import textwrap

from checker.present import escape

WIDTH = 80


def _wrapped(text, indent="", hang="    "):
    return textwrap.wrap(escape.terminal(text), WIDTH, initial_indent=indent, subsequent_indent=indent + hang,
                         break_on_hyphens=False)


def doctor_text(report):
    lines = [f"kata doctor: {escape.terminal(report.system)}", ""]
    if report.error:
        lines += _wrapped(f"No sandbox starts here: {report.error}", hang="  ")
    else:
        standing = len(report.walls) - len(report.missing)
        lines.append(f"The sandbox's walls ({standing} of {len(report.walls)} stand, Landlock ABI "
                     f"{report.landlock_abi or 'none'}):")
        width = max(len(wall.name) for wall in report.walls)
        for wall in report.walls:
            mark = "ok " if wall.stands else "NO "
            lines += _wrapped(f"{wall.name:<{width}}  {wall.what}", indent=f"  {mark}", hang=" " * (width + 2))
            if not wall.stands:
                lines += _wrapped(f"missing: {wall.why}", indent=" " * (width + 7), hang="  ")
    lines += _wrapped(f"Memory: {report.memory}" + (f"; this machine: {report.machine_memory}"
                                                     if report.machine_memory else ""), hang="  ")
    lines += _wrapped(f"Extras: {_extras(report.extras)}", hang="  ")
    lines += _wrapped("Practice (kata check, watch, mock, quiz): works" +
                      ("" if report.walls and report.missing == [] else ", with the walls above"), hang="  ")
    if report.grading:
        lines.append("Grading (kata grade): runs, every wall standing")
    else:
        missing = ", ".join(wall.name for wall in report.missing) or "no sandbox"
        lines += _wrapped(f"Grading (kata grade): REFUSED without --insecure (missing: {missing})", hang="  ")
    if report.not_linux:
        lines += _wrapped(report.not_linux, hang="  ")
    fixes = {}
    for wall in report.missing:
        fixes.setdefault(wall.fix, []).append(wall.name)
    if fixes and report.linux:
        lines.append("To fix:")
        for fix, names in fixes.items():
            lines += _wrapped(f"{', '.join(names)}: {fix}", indent="  ", hang="  ")
    return "\n".join(lines)


def _extras(extras):
    """`PyTorch: 2.13.0; JupyterLab: no (pip install "kata[notebook]")`; the missing ones share one command."""
    missing = [extra for extra in extras if not extra.version]
    said = [f"{extra.what}: {extra.version or 'no'}" for extra in extras]
    if len(missing) == 1:
        return "; ".join(said) + f" ({missing[0].fix})"
    return "; ".join(said) + (f" (pip install \"kata[{','.join(extra.name for extra in missing)}]\")" if missing else "")
