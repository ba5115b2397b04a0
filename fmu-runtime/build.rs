//! Link flags of the FMU's shared library.

fn main() {
    // An importer may unload the library right after fmi2FreeInstance (fmpy does). Thread-local
    // destructors registered by the Rust runtime would then run code that is gone; `nodelete`
    // keeps the library mapped until the process ends.
    println!("cargo:rustc-cdylib-link-arg=-Wl,-z,nodelete");
    println!("cargo:rerun-if-changed=build.rs");
}
