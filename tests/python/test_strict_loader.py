"""A strict loader: it opens the FMU's shared library and binds every function the official
fmi2Functions.h declares (the names parsed from the header, not from a list of ours), and refuses
the FMU if one is missing, as a loader that fills one table of all 44 FMI 2.0 functions for both
interface types does. Then, on a Co-Simulation instance, a Model Exchange function must answer
fmi2Error and say through the logger why and what to call instead (its state mask,
fmu-runtime's fmi2/state.rs); the instance recovers with fmi2Reset."""

import ctypes
from pathlib import Path

import fmpy
import pytest

from conftest import SHIPPED_MODELS, fmi2_function_names, recording_callbacks

FMI2_OK, FMI2_ERROR = 0, 3
FMI2_CO_SIMULATION = 1


class StrictLoader:
    """The FMU's library with every FMI 2.0 function bound; raises LookupError naming every
    function it lacks."""

    def __init__(self, folder, description):
        identifier = description.coSimulation.modelIdentifier
        self.library = ctypes.CDLL(str(Path(folder) / "binaries" / "linux64" / f"{identifier}.so"))
        missing = [name for name in fmi2_function_names() if not hasattr(self.library, name)]
        if missing:
            raise LookupError(f"{identifier}.so lacks {missing}")
        self.functions = {name: getattr(self.library, name) for name in fmi2_function_names()}
        instantiate = self.functions["fmi2Instantiate"]
        instantiate.restype = ctypes.c_void_p
        instantiate.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p,
                                ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
        for name, function in self.functions.items():
            if name not in ("fmi2Instantiate", "fmi2GetTypesPlatform", "fmi2GetVersion",
                            "fmi2FreeInstance"):
                function.restype = ctypes.c_int
        self.functions["fmi2GetVersion"].restype = ctypes.c_char_p

    def __getitem__(self, name):
        return self.functions[name]


@pytest.fixture(scope="module")
def unpacked(fmus, tmp_path_factory):
    """{shipped model: (its FMU's folder, unpacked; its model description)}."""
    folder = tmp_path_factory.mktemp("strict")
    return {name: (fmpy.extract(str(fmus[name]), unzipdir=str(folder / name)),
                   fmpy.read_model_description(str(fmus[name])))
            for name in SHIPPED_MODELS}


@pytest.mark.parametrize("name", SHIPPED_MODELS)
def test_a_strict_loader_binds_all_44_functions_and_model_exchange_refuses_politely(unpacked,
                                                                                    name):
    folder, description = unpacked[name]
    names = fmi2_function_names()
    assert len(names) == len(set(names)) == 44
    loader = StrictLoader(folder, description)
    assert loader["fmi2GetVersion"]() == b"2.0"

    messages = []
    callbacks, keep_alive = recording_callbacks(messages)
    resources = (Path(folder) / "resources").as_uri()
    c = loader["fmi2Instantiate"](name.encode(), FMI2_CO_SIMULATION, description.guid.encode(),
                                  resources.encode(), ctypes.addressof(callbacks), 0, 0)
    assert c, messages
    c = ctypes.c_void_p(c)
    try:
        status = loader["fmi2EnterEventMode"](c)
        assert status == FMI2_ERROR
        assert messages, "fmi2EnterEventMode logged nothing"
        logged_status, category, text = messages[-1]
        assert (logged_status, category) == (FMI2_ERROR, "logStatusError")
        assert text.startswith("fmi2EnterEventMode is not allowed in state `instantiated`"), text
        assert "made for Co-Simulation" in text and "fmi2ModelExchange" in text, text
        assert "fmi2DoStep" in text, text
        # Refused like any call that returns fmi2Error: fmi2Reset makes the instance usable.
        assert loader["fmi2Reset"](c) == FMI2_OK
        assert loader["fmi2SetupExperiment"](c, 0, ctypes.c_double(0.0), ctypes.c_double(0.0), 0,
                                             ctypes.c_double(0.0)) == FMI2_OK
        assert loader["fmi2EnterInitializationMode"](c) == FMI2_OK
        assert loader["fmi2ExitInitializationMode"](c) == FMI2_OK
        assert loader["fmi2DoStep"](c, ctypes.c_double(0.0), ctypes.c_double(2.0**-7), 1) == FMI2_OK
    finally:
        loader["fmi2FreeInstance"](c)
    del keep_alive
    print(f"{name}: {len(names)} functions bound; fmi2EnterEventMode: {text}")
