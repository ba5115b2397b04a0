//! `fmu3d build`: a model file → an FMI 2.0 Co-Simulation FMU.
//!
//! The FMU holds `modelDescription.xml`, the runtime library as
//! `binaries/linux64/<modelIdentifier>.so`, the model file's exact bytes as
//! `resources/model.m3d` (the runtime reads it back and checks its GUID) and
//! `documentation/index.html`.

use crate::cli::BuildArgs;
use crate::fmu_archive::{self, Entry, UtcTime};
use crate::{documentation, model_description};
use fmu_runtime::fmu::{self, MODEL_FILE};
use fmu_runtime::simulation::{Simulation, SimulationOptions};
use std::path::{Path, PathBuf};

/// Environment variable naming the runtime library to package.
pub const RUNTIME_VARIABLE: &str = "FMU3D_RUNTIME";
/// File name of the runtime library that cargo builds from `fmu-runtime`.
pub const RUNTIME_LIBRARY: &str = "libfmu_runtime.so";

pub fn run(args: &BuildArgs) -> Result<(), String> {
    let packaged = package(&args.model)?;
    let destination = args
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("{}.fmu", packaged.sim.spec.name)));
    fmu_archive::write(&destination, &packaged.entries, packaged.time)?;
    eprintln!(
        "{}: wrote {} ({} variables, runtime {})",
        packaged.sim.spec.name,
        destination.display(),
        packaged.sim.variables.variables.len(),
        packaged.runtime.display()
    );
    Ok(())
}

/// A model made into the files of its FMU.
pub struct Packaged {
    /// The simulation the FMU's variables come from.
    pub sim: Simulation,
    pub entries: Vec<Entry>,
    /// When it was generated (`SOURCE_DATE_EPOCH` or now).
    pub time: UtcTime,
    /// The runtime library packaged.
    pub runtime: PathBuf,
}

/// The model file's simulation at its start. Errors of the model file name their place; the
/// others (a model that cannot start) get the file's name in front.
pub fn start_simulation(model_path: &Path) -> Result<Simulation, String> {
    let model = model_path.display().to_string();
    Simulation::from_file(model_path, SimulationOptions::default()).map_err(|e| {
        let message = e.to_string();
        if message.starts_with(&model) {
            message
        } else {
            format!("{model}: error: {message}")
        }
    })
}

/// The entries of the FMU made from the model file at `model`: `fmu3d build` writes them to a
/// file, `fmu3d ssp` into the system's archive.
pub fn package(model_path: &Path) -> Result<Packaged, String> {
    let model = model_path.display();
    let sim = start_simulation(model_path)?;
    let source = std::fs::read(model_path).map_err(|e| format!("{model}:0:0: error: {e}"))?;
    let text = std::str::from_utf8(&source)
        .map_err(|e| format!("{model}:0:0: error: not UTF-8 text: {e}"))?;
    let time = generation_time()?;
    let generated = time.iso8601();
    let runtime = runtime_library()?;
    let library = std::fs::read(&runtime)
        .map_err(|e| format!("cannot read the runtime library {}: {e}", runtime.display()))?;

    let identifier = fmu::model_identifier(&sim.spec);
    let description =
        model_description::write(&sim, text, &generated).map_err(|e| format!("{model}: {e}"))?;
    let documentation = documentation::write(&sim, &generated)?;
    let entries = vec![
        Entry {
            name: "modelDescription.xml".into(),
            bytes: description,
            executable: false,
        },
        Entry {
            name: format!("binaries/linux64/{identifier}.so"),
            bytes: library,
            executable: true,
        },
        Entry {
            name: format!("resources/{MODEL_FILE}"),
            bytes: source,
            executable: false,
        },
        Entry {
            name: "documentation/index.html".into(),
            bytes: documentation,
            executable: false,
        },
    ];
    Ok(Packaged {
        sim,
        entries,
        time,
        runtime,
    })
}

/// The time written into the FMU (and an SSP): `SOURCE_DATE_EPOCH` (seconds since 1970, UTC) when set, for
/// reproducible builds, else now.
pub fn generation_time() -> Result<UtcTime, String> {
    match std::env::var("SOURCE_DATE_EPOCH") {
        Ok(value) => value
            .trim()
            .parse::<i64>()
            .map(UtcTime::from_unix)
            .map_err(|_| {
                format!("SOURCE_DATE_EPOCH must be a whole number of seconds, not `{value}`")
            }),
        Err(_) => {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs() as i64)
                .unwrap_or(0);
            Ok(UtcTime::from_unix(now))
        }
    }
}

/// The runtime library to package: `$FMU3D_RUNTIME` if set, else `libfmu_runtime.so` next to
/// the running `fmu3d`.
fn runtime_library() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os(RUNTIME_VARIABLE) {
        let path = PathBuf::from(path);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(format!(
                "the runtime library {} (from {RUNTIME_VARIABLE}) does not exist",
                path.display()
            ))
        };
    }
    let exe = std::env::current_exe()
        .map_err(|e| format!("cannot find the runtime library: no path to fmu3d: {e}"))?;
    let folder = exe.parent().unwrap_or(Path::new("."));
    let path = folder.join(RUNTIME_LIBRARY);
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!(
            "cannot find the runtime library {RUNTIME_LIBRARY} next to {}: build it with \
             `cargo build --release -p fmu-runtime -p packager` (or without --release for a \
             debug fmu3d), or set {RUNTIME_VARIABLE} to its path",
            exe.display()
        ))
    }
}
