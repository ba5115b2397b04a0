"""The crank and the drive train as one SSP 1.0 system, written by `fmu3d ssp` and run by
libcosim: the connections, the parameter values and the communication step come from the
system's SystemStructure.ssd, not from a script.

    python ssp_libcosim.py [--step 0.001] [--stop-time 2]

The system is `ssp_crank_drive.ssp`, made next to this script (with crank.m3d and
drive_train.fmu) by the command in `ssp_crank_drive.sh`:

    fmu3d ssp crank.m3d --fmu drive_crank=drive_train.fmu \\
        --connect drive_crank.tau_load=crank.crank.tau \\
        --connect crank.crank.phi=drive_crank.phi_load \\
        --connect crank.crank.w=drive_crank.w_load --connect crank.crank.a=drive_crank.a_load \\
        --param crank.J_drive=0.002 --step 0.001 --stop-time 2 -o ssp_crank_drive.ssp

The same instances and connections as libcosim_master.py (its `connections(CRANK)`), which
declares them through libcosimpy: the two runs must agree.
"""

import argparse
import subprocess
import xml.etree.ElementTree as ElementTree
import zipfile
from pathlib import Path

from libcosimpy.CosimExecution import CosimExecution

from fmpy_master import HERE, example_fmus, fmu3d_executable
from libcosim_master import connections, record
from mechanisms import CRANK


def build_ssp(out, drive_fmu, step=1e-3, stop_time=2.0, J_drive=None, drive_parameters=None):
    """`fmu3d ssp` for the crank (built from crank.m3d) and the drive FMU. `J_drive`: the
    crank's parameter (the motor inertia reflected through the gear), by default J_m*ratio^2
    from the drive's parameters. `drive_parameters`: values for the drive's own parameters
    (float, int or bool, written as ssv:Real, ssv:Integer or ssv:Boolean)."""
    (drive,) = CRANK.drives
    if J_drive is None:
        J_drive = drive.reflected_inertia()
    command = [fmu3d_executable(), "ssp", str(CRANK.model),
               "--fmu", f"{drive.instance_name}={drive_fmu}"]
    for source, output, target, input_ in connections(CRANK):
        command += ["--connect", f"{source}.{output}={target}.{input_}"]
    for name, value in (drive_parameters or {}).items():
        text = str(value).lower() if isinstance(value, bool) else repr(value)
        command += ["--param", f"{drive.instance_name}.{name}={text}"]
    command += ["--param", f"{CRANK.name}.{drive.inertia_parameter}={J_drive!r}",
                "--step", repr(step), "--stop-time", repr(stop_time), "-o", str(out)]
    subprocess.run(command, check=True, capture_output=True, text=True)
    return Path(out)


def experiment(ssp):
    """(stop time [s], step [ns]) as the system declares them."""
    with zipfile.ZipFile(ssp) as archive:
        root = ElementTree.fromstring(archive.read("SystemStructure.ssd"))
    ns = {"ssd": "http://ssp-standard.org/SSP1/SystemStructureDescription",
          "osp": "http://opensimulationplatform.com/SSP/OSPAnnotations"}
    default = root.find("ssd:DefaultExperiment", ns)
    step = float(default.find(".//osp:FixedStepAlgorithm", ns).get("baseStepSize"))
    return float(default.get("stopTime")), int(round(step * 1e9))


def run(ssp):
    """Loads the SSP into libcosim (its own step from the annotation) and runs it to the stop
    time it declares; returns a Result (fmpy_master.Result)."""
    stop_time, step_ns = experiment(ssp)
    execution = CosimExecution.from_ssp_file(str(ssp))
    drives = [execution.slave_index_from_instance_name(d.instance_name) for d in CRANK.drives]
    crank = execution.slave_index_from_instance_name(CRANK.name)
    assert min(drives) >= 0 and crank >= 0
    steps = int(round(stop_time * 1e9 / step_ns))
    result = record(execution, CRANK, drives, crank, steps * step_ns, steps)
    assert len(result.time) == steps + 1
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--step", type=float, default=1e-3, help="communication step [s]")
    parser.add_argument("--stop-time", type=float, default=2.0, help="[s]")
    args = parser.parse_args(argv)
    _, drive = example_fmus()
    ssp = build_ssp(HERE / "ssp_crank_drive.ssp", drive, args.step, args.stop_time)
    print(run(ssp).report("libcosim, SSP system"))


if __name__ == "__main__":
    main()
