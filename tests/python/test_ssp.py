"""`fmu3d ssp`: the crank and the drive train of examples/cosimulation as one SSP 1.0 system.

- its SystemStructure.ssd validates against the SSP 1.0 schema (the XSDs fmpy ships) and fmpy's
  SSP reader finds the components and connections;
- libcosim loads the .ssp by itself (components, connections, parameter values, step from the
  file) and gives the same result as libcosim_master.py, which declares the same coupling
  through libcosimpy's API, and stays within the co-simulation error of the monolithic
  reference;
- the parameter values bound in the system reach the FMUs.
"""

import os
import sys
import zipfile

import numpy as np
import pytest
from libcosimpy.CosimExecution import CosimExecution
from libcosimpy.CosimObserver import CosimObserver
from lxml import etree

import fmpy.ssp
from fmpy.ssp.ssd import read_ssd

from conftest import EXAMPLES, assert_runs_agree
sys.path.insert(0, str(EXAMPLES))

import libcosim_master  # noqa: E402
import reference  # noqa: E402
import ssp_libcosim  # noqa: E402

STOP_TIME = 2.0


@pytest.fixture(scope="module")
def system(crank_example):
    _, drive, folder = crank_example
    return ssp_libcosim.build_ssp(folder / "system.ssp", drive, step=1e-3, stop_time=STOP_TIME)


def assert_valid_ssd(ssp):
    """The archive's SystemStructure.ssd against the SSP 1.0 schema that fmpy ships."""
    schema_folder = os.path.join(os.path.dirname(fmpy.ssp.__file__), "schema")
    schema = etree.XMLSchema(file=os.path.join(schema_folder, "SystemStructureDescription.xsd"))
    document = etree.fromstring(zipfile.ZipFile(ssp).read("SystemStructure.ssd"))
    assert schema.validate(document), schema.error_log


def test_the_ssd_validates_against_the_ssp_schema(system):
    assert_valid_ssd(system)
    ssd = read_ssd(str(system), validate=True)
    assert sorted(c.name for c in ssd.system.elements) == ["crank", "drive_crank"]
    connections = sorted((c.startElement, c.startConnector, c.endElement, c.endConnector)
                         for c in ssd.system.connections)
    assert connections == sorted([
        ("drive_crank", "tau_load", "crank", "crank.tau"),
        ("crank", "crank.phi", "drive_crank", "phi_load"),
        ("crank", "crank.w", "drive_crank", "w_load"),
        ("crank", "crank.a", "drive_crank", "a_load"),
    ])


def test_libcosim_runs_the_ssp_like_the_api_declared_coupling(crank_example, system):
    crank, drive, _ = crank_example
    from_ssp = ssp_libcosim.run(system)
    declared = libcosim_master.run(crank, drive, step_ns=1_000_000, stop_time=STOP_TIME)
    exact = reference.simulate(STOP_TIME)
    assert len(from_ssp.time) == len(declared.time) == 2001
    phi_ref = exact(declared.time)[1]
    assert_runs_agree(from_ssp, declared, phi_ref, "libcosim, SSP system - API")


def test_parameter_values_of_the_system_reach_the_fmus(crank_example):
    _, drive, folder = crank_example
    ssp = ssp_libcosim.build_ssp(folder / "parameters.ssp", drive, step=1e-3, stop_time=0.01,
                                 J_drive=0.0035)
    execution = CosimExecution.from_ssp_file(str(ssp))
    crank = execution.slave_index_from_instance_name("crank")
    vr = {v.name.decode(): v.reference for v in execution.slave_variables(crank)}
    last = CosimObserver.create_last_value()
    execution.add_observer(last)
    assert execution.simulate_until(10_000_000)
    (J_drive,) = last.last_real_values(crank, [vr["J_drive"]])
    assert J_drive == 0.0035


def test_boolean_parameters_of_the_system_reach_the_fmus(crank_example):
    """A Boolean parameter of the drive (`position_control`) bound in the system as ssv:Boolean:
    libcosim sets it before the run. Its default is false, so a true read back came from the
    system."""
    _, drive, folder = crank_example
    ssp = ssp_libcosim.build_ssp(folder / "boolean.ssp", drive, step=1e-3, stop_time=0.01,
                                 drive_parameters={"position_control": True})
    ssd = zipfile.ZipFile(ssp).read("SystemStructure.ssd").decode()
    assert '<ssv:Boolean value="true"/>' in ssd
    assert_valid_ssd(ssp)
    execution = CosimExecution.from_ssp_file(str(ssp))
    (instance,) = [d.instance_name for d in ssp_libcosim.CRANK.drives]
    slave = execution.slave_index_from_instance_name(instance)
    vr = {v.name.decode(): v.reference for v in execution.slave_variables(slave)}
    last = CosimObserver.create_last_value()
    execution.add_observer(last)
    assert execution.simulate_until(10_000_000)
    (position_control,) = last.last_boolean_values(slave, [vr["position_control"]])
    assert position_control is True or position_control == 1
