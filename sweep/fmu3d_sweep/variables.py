"""The FMU's variables, read from its modelDescription on the machine that starts the sweep, so
that a misspelt name is refused before a cluster starts and thousands of runs fail one by one."""

import difflib
from pathlib import Path

import fmpy

from .errors import UsageError

#: Columns of the results file besides the parameters and outputs (docs/sweep.md, "Results").
RESERVED_COLUMNS = ("case", "status", "error", "attempts", "seconds", "time")

#: Causalities whose start value an importer may set before the run (FMI 2.0, 2.2.7).
SETTABLE = ("parameter", "input")


def describe(fmu):
    """The modelDescription of an .fmu file; a Co-Simulation FMU is required."""
    path = Path(fmu)
    if not path.is_file():
        raise UsageError(f"{fmu}: no such FMU file")
    try:
        description = fmpy.read_model_description(str(path))
    except Exception as error:  # fmpy raises plain Exceptions for zip and XML problems
        raise UsageError(f"{fmu}: not a readable FMU ({error})") from None
    if description.coSimulation is None:
        raise UsageError(f"{fmu}: not a Co-Simulation FMU (fmu3d-sweep runs FMI 2.0 "
                         f"Co-Simulation FMUs)")
    return description


def unknown(kind, name, candidates, where):
    """The error for a name not among `candidates`, with the closest one as a suggestion."""
    close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    listed = ", ".join(candidates[:12]) + (", ..." if len(candidates) > 12 else "")
    return UsageError(f"unknown {kind} {name!r}: {where} has no such variable{hint} "
                      f"(its {kind}s: {listed})")


def check_names(description, parameters, outputs):
    """Refuses (UsageError) a parameter that is not a settable variable of the FMU, an output
    that is not a variable, and a name that would make two columns of the results file."""
    variables = {v.name: v for v in description.modelVariables}
    settable = [v.name for v in description.modelVariables if v.causality in SETTABLE]
    model = description.modelName
    for name in parameters:
        if name not in variables:
            raise unknown("parameter", name, settable, f"the FMU {model}")
        if name not in settable:
            raise UsageError(f"{name!r} is {variables[name].causality!r} in the FMU {model}, "
                             f"not a parameter or input: its value cannot be set "
                             f"(settable: {', '.join(settable)})")
    if not outputs:
        raise UsageError("no output chosen: give --outputs NAME ...")
    for name in outputs:
        if name not in variables:
            recorded = [v.name for v in description.modelVariables if v.causality == "output"]
            raise unknown("output", name, recorded or list(variables), f"the FMU {model}")
    for name in [*parameters, *outputs]:
        if name in RESERVED_COLUMNS:
            raise UsageError(f"the variable {name!r} has the name of a column of the results "
                             f"file ({', '.join(RESERVED_COLUMNS)})")
    for names, what in ((parameters, "parameter"), (outputs, "output")):
        repeated = sorted({n for n in names if list(names).count(n) > 1})
        if repeated:
            raise UsageError(f"the {what} {repeated[0]!r} is given more than once")
    both = sorted(set(parameters) & set(outputs))
    if both:
        raise UsageError(f"{both[0]!r} is both a parameter of the sweep and an output; its "
                         f"value is in the parameter column already")
