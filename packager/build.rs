//! Compiles the C half of the FMU host's logger: FMI's logger callback is variadic, which only C
//! can define; it formats the message and hands it to Rust.

fn main() {
    cc::Build::new()
        .file("src/fmu_host/logger.c")
        .warnings(true)
        .compile("fmu3d_host_logger");
    println!("cargo:rerun-if-changed=src/fmu_host/logger.c");
}
