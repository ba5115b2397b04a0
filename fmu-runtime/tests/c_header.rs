//! The exported functions' signatures against the official FMI 2.0 headers.
//!
//! cbindgen writes the runtime's own C header from the Rust source, in the official type names.
//! A C program then takes the address of every function as its official `fmi2...TYPE`; with
//! `-Werror`, any mismatch in a parameter or return type fails to compile. The official headers
//! are those shipped inside the fmpy package (`fmpy/c-code/`), found through `FMI2_HEADERS` or
//! the project's `.venv` (the README's test command installs it).

use std::path::{Path, PathBuf};
use std::process::Command;

const FUNCTIONS: [&str; 40] = [
    "GetTypesPlatform",
    "GetVersion",
    "SetDebugLogging",
    "Instantiate",
    "FreeInstance",
    "SetupExperiment",
    "EnterInitializationMode",
    "ExitInitializationMode",
    "Terminate",
    "Reset",
    "GetReal",
    "GetInteger",
    "GetBoolean",
    "GetString",
    "SetReal",
    "SetInteger",
    "SetBoolean",
    "SetString",
    "GetFMUstate",
    "SetFMUstate",
    "FreeFMUstate",
    "SerializedFMUstateSize",
    "SerializeFMUstate",
    "DeSerializeFMUstate",
    "GetDirectionalDerivative",
    "SetRealInputDerivatives",
    "GetRealOutputDerivatives",
    "DoStep",
    "CancelStep",
    "GetStatus",
    "GetRealStatus",
    "GetIntegerStatus",
    "GetBooleanStatus",
    "GetStringStatus",
    // Model Exchange only: not exported by a Co-Simulation FMU (checked below to be absent).
    "EnterEventMode",
    "NewDiscreteStates",
    "EnterContinuousTimeMode",
    "CompletedIntegratorStep",
    "SetTime",
    "SetContinuousStates",
];
const CO_SIMULATION_FUNCTIONS: usize = 34;

fn official_headers() -> PathBuf {
    if let Some(dir) = std::env::var_os("FMI2_HEADERS") {
        return PathBuf::from(dir);
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let python = root.join(".venv/bin/python");
    let output = Command::new(&python)
        .args(["-c", "import fmpy, os; print(os.path.join(os.path.dirname(fmpy.__file__), 'c-code'))"])
        .output()
        .unwrap_or_else(|e| panic!("{} did not run ({e}): run `bash scripts/test.sh`, which installs fmpy, or set FMI2_HEADERS", python.display()));
    assert!(
        output.status.success(),
        "fmpy is not installed in .venv: run `bash scripts/test.sh` or set FMI2_HEADERS"
    );
    PathBuf::from(String::from_utf8_lossy(&output.stdout).trim())
}

#[test]
fn every_exported_function_has_the_official_signature() {
    let crate_dir = env!("CARGO_MANIFEST_DIR");
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("c_header");
    std::fs::create_dir_all(&out).expect("output folder");
    let header = out.join("fmu_runtime.h");
    let config = cbindgen::Config::from_file(Path::new(crate_dir).join("cbindgen.toml"))
        .expect("cbindgen.toml");
    cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header")
        .write_to_file(&header);
    let text = std::fs::read_to_string(&header).expect("header written");

    let mut program = String::from(
        "#include \"fmu_runtime.h\"\n#include <stddef.h>\nint main(void) {\n  size_t n = 0;\n",
    );
    for name in &FUNCTIONS[..CO_SIMULATION_FUNCTIONS] {
        assert!(
            text.contains(&format!("fmi2{name}(")),
            "fmi2{name} is not exported:\n{text}"
        );
        program.push_str(&format!(
            "  {{ fmi2{name}TYPE *f = fmi2{name}; n += f != NULL; }}\n"
        ));
    }
    for name in &FUNCTIONS[CO_SIMULATION_FUNCTIONS..] {
        assert!(
            !text.contains(&format!("fmi2{name}(")),
            "fmi2{name} is Model Exchange only"
        );
    }
    program.push_str(&format!(
        "  return n == {CO_SIMULATION_FUNCTIONS} ? 0 : 1;\n}}\n"
    ));
    let source = out.join("check.c");
    std::fs::write(&source, program).expect("C program written");

    let compiled = Command::new("cc")
        .args([
            "-std=c99",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic-errors",
            "-fsyntax-only",
        ])
        .arg("-I")
        .arg(&out)
        .arg("-I")
        .arg(official_headers())
        .arg(&source)
        .output()
        .expect("a C compiler (cc) runs");
    assert!(
        compiled.status.success(),
        "the exported signatures differ from the official ones:\n{}\n{text}",
        String::from_utf8_lossy(&compiled.stderr)
    );
}
