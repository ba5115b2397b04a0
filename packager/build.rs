//! Hands `fmu3d view` its page script: `target/viewer/viewer.js`, three.js and
//! `viewer/src/main.js` bundled by `bash scripts/build.sh` (npm and esbuild), copied to
//! `$OUT_DIR/viewer.js`. Without that bundle the copy is empty and `fmu3d view` says how to build
//! it; everything else builds as before.

use std::path::Path;

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let bundle = Path::new(&manifest).join("../target/viewer/viewer.js");
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let script = std::fs::read_to_string(&bundle).unwrap_or_default();
    let copy = Path::new(&out).join("viewer.js");
    if std::fs::read_to_string(&copy).ok().as_deref() != Some(script.as_str()) {
        std::fs::write(&copy, &script).expect("OUT_DIR is writable");
    }
    // A missing file counts as changed: until the bundle exists, this script runs on every build.
    println!("cargo:rerun-if-changed={}", bundle.display());
}
