//! `fmu3d build`: a model file → an FMI 2.0 FMU (Co-Simulation and Model Exchange).
//!
//! The FMU holds `modelDescription.xml`, the runtime library as
//! `binaries/linux64/<modelIdentifier>.so` and, where `scripts/build.sh` has built it for
//! Windows, `binaries/win64/<modelIdentifier>.dll`, the model file's exact bytes as
//! `resources/model.m3d` (the runtime reads it back and checks its GUID), the visual
//! description `resources/visual.json` (for animations, `docs/animation.md`) and
//! `documentation/index.html`.

use crate::animation;
use crate::cli::BuildArgs;
use crate::fmu_archive::{self, Entry, UtcTime};
use crate::{documentation, model_description};
use fmu_runtime::fmu::{self, MODEL_FILE, VISUAL_FILE};
use fmu_runtime::simulation::{Simulation, SimulationOptions};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Environment variable naming the runtime library to package.
pub const RUNTIME_VARIABLE: &str = "FMU3D_RUNTIME";
/// File name of the runtime library that cargo builds from `fmu-runtime`.
pub const RUNTIME_LIBRARY: &str = "libfmu_runtime.so";
/// Environment variable naming the Windows runtime library to package.
pub const WINDOWS_RUNTIME_VARIABLE: &str = "FMU3D_RUNTIME_WIN64";
/// File name of the Windows runtime library that cargo builds from `fmu-runtime`.
pub const WINDOWS_RUNTIME_LIBRARY: &str = "fmu_runtime.dll";
/// Target triple of the Windows runtime that `scripts/build.sh` builds (x86-64, Windows 7 and
/// later: its standard library imports no DLL that Wine 8 or Windows 7 lacks).
const WINDOWS_TARGET: &str = "x86_64-win7-windows-gnu";

/// A platform an FMU carries a binary for (FMI 2.0 §2.4: `binaries/<platform>/`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Platform {
    /// x86-64 Linux, glibc 2.17 and newer: `binaries/linux64/<id>.so`.
    Linux64,
    /// x86-64 Windows 7 and newer: `binaries/win64/<id>.dll`.
    Win64,
}

impl Platform {
    /// The FMU's file of this platform's binary for model identifier `identifier`.
    fn binary(self, identifier: &str) -> String {
        match self {
            Platform::Linux64 => format!("binaries/linux64/{identifier}.so"),
            Platform::Win64 => format!("binaries/win64/{identifier}.dll"),
        }
    }
}

pub fn run(args: &BuildArgs) -> Result<(), String> {
    let is_urdf = args
        .model
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("urdf"));
    // A robot is built from its model file, converted into a folder of its own that lives as
    // long as the build.
    let converted = if is_urdf {
        Some(ConvertedRobot::new(&args.model, &args.urdf_args)?)
    } else {
        None
    };
    let model = converted
        .as_ref()
        .map_or(args.model.as_path(), |c| c.model.as_path());
    let packaged = package(model, args.animation_outputs, &args.platforms).map_err(|e| {
        if is_urdf {
            format!(
                "{e}\n(in the model converted from {}: `fmu3d convert {}` writes it, with the \
                 URDF's line above each link and joint)",
                args.model.display(),
                args.model.display()
            )
        } else {
            e
        }
    })?;
    let destination = args
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("{}.fmu", packaged.sim.spec.name)));
    fmu_archive::write(&destination, &packaged.entries, packaged.time)?;
    let runtimes: Vec<String> = packaged
        .runtimes
        .iter()
        .map(|path| path.display().to_string())
        .collect();
    eprintln!(
        "{}: wrote {} ({} variables, runtime {})",
        packaged.sim.spec.name,
        destination.display(),
        packaged.sim.variables.variables.len(),
        runtimes.join(" and ")
    );
    Ok(())
}

/// A URDF robot converted into a model file in a temporary folder, removed when dropped.
struct ConvertedRobot {
    folder: PathBuf,
    model: PathBuf,
}

impl ConvertedRobot {
    fn new(urdf: &Path, args: &crate::cli::UrdfArgs) -> Result<ConvertedRobot, String> {
        let stem = urdf
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "robot".to_string());
        let folder = std::env::temp_dir().join(format!(
            "fmu3d-{}-{}-{}",
            stem,
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        ));
        std::fs::create_dir_all(&folder)
            .map_err(|e| format!("{}: cannot be created: {e}", folder.display()))?;
        let robot = ConvertedRobot {
            model: folder.join(format!("{stem}.m3d")),
            folder,
        };
        let notes = crate::urdf::write_model(
            urdf,
            &robot.model,
            &args.package_path,
            &crate::urdf_settings(args),
        )?;
        for note in notes {
            eprintln!("{note}");
        }
        Ok(robot)
    }
}

impl Drop for ConvertedRobot {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.folder).ok();
    }
}

/// A model made into the files of its FMU.
pub struct Packaged {
    /// The simulation the FMU's variables come from.
    pub sim: Simulation,
    pub entries: Vec<Entry>,
    /// When it was generated (`SOURCE_DATE_EPOCH` or now).
    pub time: UtcTime,
    /// The runtime libraries packaged, one per platform.
    pub runtimes: Vec<PathBuf>,
}

/// The model file's simulation at its start. Errors of the model file name their place; the
/// others (a model that cannot start) get the file's name in front.
pub fn start_simulation(model_path: &Path, pose_outputs: bool) -> Result<Simulation, String> {
    let model = model_path.display().to_string();
    let options = SimulationOptions {
        pose_outputs,
        ..SimulationOptions::default()
    };
    Simulation::from_file(model_path, options).map_err(|e| {
        let message = e.to_string();
        if message.starts_with(&model) {
            message
        } else {
            format!("{model}: error: {message}")
        }
    })
}

/// The entries of the FMU made from the model file at `model`: `fmu3d build` writes them to a
/// file, `fmu3d ssp` into the system's archive. With `pose_outputs` every moving body's pose is
/// an output (`--animation-outputs`). `platforms`: the binaries it carries (empty: the default,
/// [`default_platforms`]).
pub fn package(
    model_path: &Path,
    pose_outputs: bool,
    platforms: &[Platform],
) -> Result<Packaged, String> {
    let model = model_path.display();
    let sim = start_simulation(model_path, pose_outputs)?;
    let source = std::fs::read(model_path).map_err(|e| format!("{model}:0:0: error: {e}"))?;
    let text = std::str::from_utf8(&source)
        .map_err(|e| format!("{model}:0:0: error: not UTF-8 text: {e}"))?;
    let time = generation_time()?;
    let generated = time.iso8601();
    let platforms = if platforms.is_empty() {
        default_platforms()
    } else {
        platforms.to_vec()
    };
    let mut runtimes = Vec::new();
    let mut binaries = Vec::new();
    for platform in platforms {
        let runtime = match platform {
            Platform::Linux64 => runtime_library()?,
            Platform::Win64 => windows_runtime_library()?,
        };
        let library = std::fs::read(&runtime)
            .map_err(|e| format!("cannot read the runtime library {}: {e}", runtime.display()))?;
        binaries.push((platform, library));
        runtimes.push(runtime);
    }

    let identifier = fmu::model_identifier(&sim.spec);
    let description =
        model_description::write(&sim, text, &generated).map_err(|e| format!("{model}: {e}"))?;
    let documentation = documentation::write(&sim, &generated)?;
    let mut entries = vec![Entry {
        name: "modelDescription.xml".into(),
        bytes: description,
        executable: false,
    }];
    entries.extend(binaries.into_iter().map(|(platform, bytes)| Entry {
        name: platform.binary(&identifier),
        bytes,
        executable: true,
    }));
    entries.extend([
        Entry {
            name: format!("resources/{MODEL_FILE}"),
            bytes: source,
            executable: false,
        },
        Entry {
            name: format!("resources/{VISUAL_FILE}"),
            bytes: animation::visual_json::to_json(&sim.visual_scene()).into_bytes(),
            executable: false,
        },
        Entry {
            name: "documentation/index.html".into(),
            bytes: documentation,
            executable: false,
        },
    ]);
    entries.extend(mesh_entries(model_path, &sim.spec)?);
    Ok(Packaged {
        sim,
        entries,
        time,
        runtimes,
    })
}

/// Every mesh file the model names, under `resources/` by the name the model gives it (relative
/// to the model file, which lies in `resources/` too): the FMU reads its meshes from there,
/// never from the original files. A file named twice is packed once.
fn mesh_entries(
    model_path: &Path,
    spec: &fmu_runtime::model::ModelSpec,
) -> Result<Vec<Entry>, String> {
    let folder = model_path.parent().unwrap_or(Path::new(""));
    let mut entries: Vec<Entry> = Vec::new();
    for object in &spec.objects {
        let Some(fmu_runtime::model::ShapeSpec::Mesh(mesh)) = &object.shape else {
            continue;
        };
        for file in &mesh.files {
            let parts: Vec<&str> = file
                .split('/')
                .filter(|p| !p.is_empty() && *p != ".")
                .collect();
            let name = format!("resources/{}", parts.join("/"));
            if entries.iter().any(|e| e.name == name) {
                continue;
            }
            let path = folder.join(file);
            let bytes = std::fs::read(&path)
                .map_err(|e| format!("cannot read the mesh file {}: {e}", path.display()))?;
            entries.push(Entry {
                name,
                bytes,
                executable: false,
            });
        }
    }
    Ok(entries)
}

/// The platforms of an FMU whose `--platforms` are not given: Linux, and Windows where its
/// runtime is there and not older than the Linux one (a stale one would put old code into the
/// FMU: it is left out with a warning).
pub fn default_platforms() -> Vec<Platform> {
    match windows_runtime_library() {
        Ok(_) => vec![Platform::Linux64, Platform::Win64],
        Err(why) => {
            if std::env::var_os(WINDOWS_RUNTIME_VARIABLE).is_some() || why.contains("older") {
                eprintln!("warning: {why}; the FMU carries linux64 only");
            }
            vec![Platform::Linux64]
        }
    }
}

/// The library that environment variable `variable` names, if it is set: an error where there
/// is no such file (`what` names the library in it).
fn runtime_named_by(variable: &str, what: &str) -> Option<Result<PathBuf, String>> {
    let path = PathBuf::from(std::env::var_os(variable)?);
    Some(if path.is_file() {
        Ok(path)
    } else {
        Err(format!(
            "the {what} {} (from {variable}) does not exist",
            path.display()
        ))
    })
}

/// The Windows runtime library to package: `$FMU3D_RUNTIME_WIN64` if set; else the one
/// `scripts/build.sh` cross-builds (cargo's folder for [`WINDOWS_TARGET`] beside the running
/// `fmu3d`'s), unless it is older than the Linux runtime next to `fmu3d`.
fn windows_runtime_library() -> Result<PathBuf, String> {
    if let Some(named) = runtime_named_by(WINDOWS_RUNTIME_VARIABLE, "Windows runtime library") {
        return named;
    }
    let exe = std::env::current_exe()
        .map_err(|e| format!("cannot find the Windows runtime library: no path to fmu3d: {e}"))?;
    let folder = exe.parent().unwrap_or(Path::new("."));
    let build = "build it with `bash scripts/build.sh` (docs/fmi.md, \"Platforms\"), or set \
                 FMU3D_RUNTIME_WIN64 to its path";
    let (Some(profile), Some(target)) = (folder.file_name(), folder.parent()) else {
        return Err(format!(
            "no Windows runtime library next to {}: {build}",
            exe.display()
        ));
    };
    let dll = target
        .join(WINDOWS_TARGET)
        .join(profile)
        .join(WINDOWS_RUNTIME_LIBRARY);
    let modified = |path: &Path| std::fs::metadata(path).and_then(|m| m.modified()).ok();
    match (modified(&dll), modified(&folder.join(RUNTIME_LIBRARY))) {
        (None, _) => Err(format!(
            "there is no Windows runtime library {}: {build}",
            dll.display()
        )),
        (Some(windows), Some(linux)) if windows < linux => Err(format!(
            "the Windows runtime library {} is older than {}: the runtime changed since; {build}",
            dll.display(),
            folder.join(RUNTIME_LIBRARY).display()
        )),
        _ => Ok(dll),
    }
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

/// The runtime library to package: `$FMU3D_RUNTIME` if set; else the one `scripts/build.sh`
/// linked against glibc 2.17 (cargo's folder for that target beside the running `fmu3d`'s,
/// `target/release` → `target/x86_64-unknown-linux-gnu/release`), unless the runtime next to
/// `fmu3d` is newer (the runtime changed since); else `libfmu_runtime.so` next to `fmu3d`.
fn runtime_library() -> Result<PathBuf, String> {
    if let Some(named) = runtime_named_by(RUNTIME_VARIABLE, "runtime library") {
        return named;
    }
    let exe = std::env::current_exe()
        .map_err(|e| format!("cannot find the runtime library: no path to fmu3d: {e}"))?;
    let folder = exe.parent().unwrap_or(Path::new("."));
    let native = folder.join(RUNTIME_LIBRARY);
    let portable = portable_runtime(folder);
    let modified = |path: &Path| std::fs::metadata(path).and_then(|m| m.modified()).ok();
    match pick_runtime(modified(&native), portable.as_deref().and_then(modified)) {
        Some(Runtime::Portable) => Ok(portable.unwrap_or(native)),
        Some(Runtime::Native { portable_is_stale }) => {
            if let (true, Some(portable)) = (portable_is_stale, &portable) {
                eprintln!(
                    "warning: {} is older than {}: the runtime changed since `bash \
                     scripts/build.sh` last ran; packaging the newer one, which needs this \
                     machine's glibc (run `bash scripts/build.sh` for FMUs that load on glibc \
                     2.17 and newer)",
                    portable.display(),
                    native.display()
                );
            }
            Ok(native)
        }
        None => Err(format!(
            "cannot find the runtime library {RUNTIME_LIBRARY} next to {}: build it with \
             `bash scripts/build.sh` (or `cargo build --release -p fmu-runtime -p packager`, \
             for this machine's glibc only), or set {RUNTIME_VARIABLE} to its path",
            exe.display()
        )),
    }
}

/// Target triple of the runtime that `scripts/build.sh` links with `cargo zigbuild` against
/// glibc 2.17's symbol versions.
const PORTABLE_TARGET: &str = "x86_64-unknown-linux-gnu";

/// Where cargo puts the portable runtime of the profile whose folder holds `fmu3d`.
fn portable_runtime(fmu3d_folder: &Path) -> Option<PathBuf> {
    let profile = fmu3d_folder.file_name()?;
    let target = fmu3d_folder.parent()?;
    Some(
        target
            .join(PORTABLE_TARGET)
            .join(profile)
            .join(RUNTIME_LIBRARY),
    )
}

/// Which runtime library `fmu3d build` packages.
#[derive(Debug, PartialEq, Eq)]
enum Runtime {
    /// The one linked against glibc 2.17.
    Portable,
    /// The one next to `fmu3d`; `portable_is_stale` when a portable one exists but is older.
    Native { portable_is_stale: bool },
}

/// The portable runtime unless the one next to `fmu3d` was built after it (a stale portable
/// runtime would put old code into the FMU); `None` when neither exists. Arguments: the files'
/// modification times, `None` for a missing file.
fn pick_runtime(native: Option<SystemTime>, portable: Option<SystemTime>) -> Option<Runtime> {
    match (native, portable) {
        (None, None) => None,
        (None, Some(_)) => Some(Runtime::Portable),
        (Some(_), None) => Some(Runtime::Native {
            portable_is_stale: false,
        }),
        (Some(native), Some(portable)) if portable >= native => Some(Runtime::Portable),
        (Some(_), Some(_)) => Some(Runtime::Native {
            portable_is_stale: true,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_portable_runtime_is_packaged_unless_the_native_one_is_newer() {
        let early = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000);
        let late = early + Duration::from_secs(1);
        assert_eq!(pick_runtime(None, None), None);
        assert_eq!(pick_runtime(None, Some(early)), Some(Runtime::Portable));
        assert_eq!(
            pick_runtime(Some(early), Some(late)),
            Some(Runtime::Portable)
        );
        assert_eq!(
            pick_runtime(Some(early), Some(early)),
            Some(Runtime::Portable)
        );
        let native = Runtime::Native {
            portable_is_stale: false,
        };
        assert_eq!(pick_runtime(Some(early), None), Some(native));
        let stale = Runtime::Native {
            portable_is_stale: true,
        };
        assert_eq!(pick_runtime(Some(late), Some(early)), Some(stale));
    }

    #[test]
    fn the_portable_runtime_lies_in_cargos_folder_for_its_target() {
        let found = portable_runtime(Path::new("/repo/target/release"));
        let expected = "/repo/target/x86_64-unknown-linux-gnu/release/libfmu_runtime.so";
        assert_eq!(found, Some(PathBuf::from(expected)));
    }
}
