"""fmi2Instantiate without a way to report: a NULL callback structure, or one whose logger is
NULL. FMI 2.0 gives the FMU no channel to say what is wrong, so it returns NULL and says why on
standard error (it used to return NULL silently). Each case runs in its own Python process, since
the message is written to the process's stderr by the library, not through Python."""

import subprocess
import sys

from conftest import RUNTIME

SCRIPT = r"""
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
lib.fmi2Instantiate.restype = ctypes.c_void_p
lib.fmi2Instantiate.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p,
                                ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
# fmi2CallbackFunctions: logger, allocateMemory, freeMemory, stepFinished, componentEnvironment.
callbacks = (ctypes.c_void_p * 5)()
functions = None if sys.argv[2] == "null-functions" else ctypes.addressof(callbacks)
component = lib.fmi2Instantiate(b"ball", 1, b"{guid}", b"file:///nowhere", functions, 0, 0)
print("component", component)
"""


def instantiate(case):
    run = subprocess.run([sys.executable, "-c", SCRIPT, str(RUNTIME), case],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return run.stdout.strip(), run.stderr.strip()


def test_null_functions_are_refused_with_a_message_on_stderr():
    stdout, stderr = instantiate("null-functions")
    assert stdout == "component None"
    assert stderr.startswith("fmi2Instantiate: refused: the functions argument is NULL"), stderr


def test_a_null_logger_is_refused_with_a_message_on_stderr():
    stdout, stderr = instantiate("null-logger")
    assert stdout == "component None"
    assert stderr.startswith("fmi2Instantiate: refused: the callback functions have no logger"), \
        stderr
