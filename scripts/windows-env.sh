# The toolchain that builds the FMU runtime for Windows, in one place: sourced by
# scripts/build.sh (the DLL) and scripts/test-wine.sh (the FMI tests, run under Wine).
#
# Debian's Rust (rustc-web, with the standard library's source: scripts/setup.sh) builds the
# standard library of the win7 target (RUSTC_BOOTSTRAP for -Zbuild-std), MinGW-w64 compiles
# SUNDIALS and links; bindgen parses MinGW's headers with MinGW GCC's own include folder
# (mm_malloc.h) and two defines that keep one union of MinGW's math.h from clang's "conflicting
# packed and align representation hints". No debug information: the DLL goes into every FMU
# (and the tests' runtime is then the same build as the DLL's).

win_target=x86_64-win7-windows-gnu

# Whether this machine has the Windows toolchain (scripts/setup.sh installs it).
windows_toolchain_present() {
  [ -x /usr/bin/cargo ] && [ -x /usr/bin/rustc ] && [ -d /usr/lib/rustlib/src/rust/library ] \
    && command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1
}

# The 64-bit Wine loader, which runs the Windows test executables (Debian's wine64 package puts
# it in /usr/lib/wine; its `wine` wrapper looks for a 32-bit Wine first and says so each time).
wine64_loader() {
  local loader
  loader=$(command -v wine64 2>/dev/null || echo /usr/lib/wine/wine64)
  [ -x "$loader" ] && echo "$loader"
}

# Exports the environment of `/usr/bin/cargo ... --target "$win_target" -Zbuild-std=...`.
windows_toolchain_env() {
  local target_env=${win_target//-/_}
  export RUSTC_BOOTSTRAP=1 RUSTC=/usr/bin/rustc CARGO_PROFILE_RELEASE_DEBUG=0
  export "CARGO_TARGET_${target_env^^}_LINKER=x86_64-w64-mingw32-gcc"
  export "CC_${target_env}=x86_64-w64-mingw32-gcc" "CXX_${target_env}=x86_64-w64-mingw32-g++"
  export "AR_${target_env}=x86_64-w64-mingw32-ar"
  export "BINDGEN_EXTRA_CLANG_ARGS_${target_env}=-I$(x86_64-w64-mingw32-gcc -print-file-name=include) --target=x86_64-w64-windows-gnu -D__MINGW_SOFTMATH -D__CRT__NO_INLINE"
}
