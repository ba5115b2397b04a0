//! Link flags of the FMU's shared library.

fn main() {
    // An importer may unload the library right after fmi2FreeInstance (fmpy does). Thread-local
    // destructors registered by the Rust runtime would then run code that is gone; `nodelete`
    // keeps the ELF library mapped until the process ends. MinGW's linker has no such flag: the
    // Windows DLL pins itself when instantiated (`fmi2::resources::pin_loaded_library`).
    let windows = std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("windows");
    if !windows {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-z,nodelete");
        // Our own hypot (hidden): libm's carries the symbol version GLIBC_2.35 (see
        // csrc/hypot.c). The Windows DLL takes msvcrt's.
        cc::Build::new()
            .file("csrc/hypot.c")
            .flag("-fno-builtin")
            .warnings(true)
            .compile("fmu3d_hypot");
    }
    println!("cargo:rerun-if-changed=csrc/hypot.c");
    println!("cargo:rerun-if-changed=build.rs");
}
