//! The exported functions' signatures against the official FMI 2.0 headers.
//!
//! cbindgen writes the runtime's own C header from the Rust source, in the official type names.
//! It must declare exactly the functions of the official `fmi2Functions.h` (their names parsed
//! from it: all 44, Model Exchange included, see `fmi2/model_exchange.rs`). A C program then takes the address of every function as its official `fmi2...TYPE`; with
//! `-Werror`, any mismatch in a parameter or return type fails to compile. The official headers
//! are those shipped inside the fmpy package (`fmpy/c-code/`), found through `FMI2_HEADERS` or
//! the project's `.venv` (the README's test command installs it).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Every function of FMI 2.0, as `fmi2Functions.h` declares it (`FMI2_Export fmi2XTYPE fmi2X;`):
/// 25 common, 10 Model Exchange, 9 Co-Simulation.
const FMI2_FUNCTIONS: usize = 44;

/// The function names the official header declares.
fn official_functions(headers: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(headers.join("fmi2Functions.h")).expect("fmi2Functions.h");
    text.lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let (export, kind, name) = (words.next()?, words.next()?, words.next()?);
            let name = name.strip_suffix(';')?;
            (export == "FMI2_Export" && kind == format!("{name}TYPE")).then(|| name.to_string())
        })
        .collect()
}

/// The function names of a header cbindgen wrote: each identifier right before a `(`, outside
/// comments (`fmi2Status fmi2DoStep(...)`).
fn declared_functions(header: &str) -> BTreeSet<String> {
    let identifier = |c: char| c.is_ascii_alphanumeric() || c == '_';
    header
        .lines()
        .filter(|line| {
            let line = line.trim_start();
            !(line.starts_with("/*") || line.starts_with('*') || line.starts_with("//"))
        })
        .flat_map(|line| {
            let pieces: Vec<&str> = line.split('(').collect();
            let before_parenthesis = pieces.len().saturating_sub(1);
            pieces.into_iter().take(before_parenthesis).map(|piece| {
                let start = piece.trim_end_matches(identifier).len();
                piece[start..].to_string()
            })
        })
        .filter(|name| name.starts_with("fmi2"))
        .collect()
}

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

    let headers = official_headers();
    let official = official_functions(&headers);
    assert_eq!(
        official.len(),
        FMI2_FUNCTIONS,
        "fmi2Functions.h in {}: {official:?}",
        headers.display()
    );
    let declared = declared_functions(&text);
    let missing: Vec<_> = official.difference(&declared).collect();
    let extra: Vec<_> = declared.difference(&official).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "the runtime must export exactly the {FMI2_FUNCTIONS} functions of fmi2Functions.h: \
         missing {missing:?}, not FMI 2.0 {extra:?}\n{text}"
    );

    let mut program = String::from(
        "#include \"fmu_runtime.h\"\n#include <stddef.h>\nint main(void) {\n  size_t n = 0;\n",
    );
    for name in &official {
        program.push_str(&format!(
            "  {{ {name}TYPE *f = {name}; n += f != NULL; }}\n"
        ));
    }
    program.push_str(&format!("  return n == {FMI2_FUNCTIONS} ? 0 : 1;\n}}\n"));
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
        .arg(&headers)
        .arg(&source)
        .output()
        .expect("a C compiler (cc) runs");
    assert!(
        compiled.status.success(),
        "the exported signatures differ from the official ones:\n{}\n{text}",
        String::from_utf8_lossy(&compiled.stderr)
    );
}
