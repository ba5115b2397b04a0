//! What the packager's integration tests share: running `fmu3d` (with the runtime library it
//! packages built first), fresh folders, and reading the archives it writes.
//!
//! The FMU carries the runtime library `libfmu_runtime.so`, which `fmu3d` finds next to itself.
//! `cargo test -p packager` does not build that library (it links `fmu-runtime` as an rlib), so
//! these tests build it with the same cargo, profile and target folder when it is missing.

#![allow(dead_code)] // each test file uses its own part

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The time every test build is stamped with (2023-11-14T22:13:20Z).
pub const EPOCH: &str = "1700000000";

pub fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Makes sure an up-to-date `libfmu_runtime.so` sits next to the `fmu3d` under test: building
/// `fmu3d` does not build the runtime's cdylib, so cargo is asked once per test run (a no-op
/// when it is current; a stale library would package an older engine).
pub fn runtime_library() -> &'static Path {
    static LIBRARY: OnceLock<PathBuf> = OnceLock::new();
    LIBRARY.get_or_init(|| {
        let exe = Path::new(env!("CARGO_BIN_EXE_fmu3d"));
        let profile_dir = exe.parent().expect("fmu3d is in a profile folder");
        let library = profile_dir.join("libfmu_runtime.so");
        {
            let target_dir = profile_dir
                .parent()
                .expect("profile folder in a target folder");
            let profile = match profile_dir
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("debug")
            {
                "debug" => "dev".to_string(),
                other => other.to_string(),
            };
            let status = Command::new(env!("CARGO"))
                .args(["build", "--lib", "-p", "fmu-runtime", "--profile", &profile])
                .arg("--manifest-path")
                .arg(repository().join("Cargo.toml"))
                .env("CARGO_TARGET_DIR", target_dir)
                .status()
                .expect("cargo runs");
            assert!(status.success(), "cargo build -p fmu-runtime failed");
            assert!(library.is_file(), "{} was not built", library.display());
        }
        library
    })
}

pub fn fmu3d() -> Command {
    runtime_library();
    let mut command = Command::new(env!("CARGO_BIN_EXE_fmu3d"));
    command
        .env_remove("FMU3D_RUNTIME")
        .env("SOURCE_DATE_EPOCH", EPOCH);
    command
}

/// A fresh, empty folder for one test.
pub fn folder(name: &str) -> PathBuf {
    let folder = std::env::temp_dir().join(format!("fmu3d-packager-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).expect("temp folder");
    folder
}

pub fn entries_of(folder: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(folder)
        .expect("folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

pub fn build(model: &Path, fmu: &Path) -> Output {
    let output = fmu3d()
        .arg("build")
        .arg(model)
        .arg("-o")
        .arg(fmu)
        .output()
        .expect("fmu3d runs");
    assert!(
        output.status.success(),
        "{}: {}",
        model.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

pub fn read_entry(fmu: &Path, name: &str) -> Vec<u8> {
    let file = std::fs::File::open(fmu).expect("fmu exists");
    let mut archive = zip::ZipArchive::new(file).expect("a zip archive");
    let mut entry = archive.by_name(name).expect(name);
    let mut bytes = Vec::new();
    entry.read_to_end(&mut bytes).expect("readable entry");
    bytes
}

pub fn zip_names(fmu: &Path) -> Vec<String> {
    let file = std::fs::File::open(fmu).expect("fmu exists");
    let archive = zip::ZipArchive::new(file).expect("a zip archive");
    archive
        .file_names()
        .map(|n| n.expect("a file name").into_owned())
        .collect()
}

/// The columns of a CSV that `fmu3d simulate` wrote, by name: the header's names as RFC 4180
/// quotes them (`"ball[1,2].r[1]"`, a quote doubled), every row's numbers.
pub fn result_columns(text: &str) -> (Vec<String>, Vec<Vec<f64>>) {
    let mut lines = text.lines();
    let header = lines.next().expect("a header line");
    let mut names = Vec::new();
    let mut rest = header;
    while !rest.is_empty() {
        let quoted = rest
            .strip_prefix('"')
            .unwrap_or_else(|| panic!("an unquoted name in the header: {header}"));
        // The closing quote: the first one that is not doubled.
        let mut name = String::new();
        let mut chars = quoted.char_indices().peekable();
        let end = loop {
            match chars.next() {
                Some((_, '"')) if matches!(chars.peek(), Some((_, '"'))) => {
                    chars.next();
                    name.push('"');
                }
                Some((at, '"')) => break at,
                Some((_, c)) => name.push(c),
                None => panic!("an unclosed quote in the header: {header}"),
            }
        };
        names.push(name);
        rest = quoted[end + 1..]
            .strip_prefix(',')
            .unwrap_or(&quoted[end + 1..]);
    }
    let mut values = vec![Vec::new(); names.len()];
    for line in lines {
        let row: Vec<f64> = line
            .split(',')
            .map(|v| v.parse().expect("a number"))
            .collect();
        assert_eq!(
            row.len(),
            names.len(),
            "a row of {} values: {line}",
            row.len()
        );
        for (column, value) in values.iter_mut().zip(row) {
            column.push(value);
        }
    }
    (names, values)
}
