//! Where the FMU's `resources/` folder is: from the `fmuResourceLocation` URI the host passes,
//! or, when that is missing or wrong, from the location of this shared library inside the
//! unpacked FMU (`binaries/linux64/<id>.so`, `binaries/win64/<id>.dll` → `resources/`).

use std::path::PathBuf;

/// Parses a `file:` URI (`file:///a/b`, `file:/a/b`, `file://localhost/a/b`, percent-encoded)
/// into a local path. Other schemes and remote hosts give `None`.
pub fn path_from_uri(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file:")?;
    let path = if let Some(authority_and_path) = rest.strip_prefix("//") {
        let (host, path) = match authority_and_path.find('/') {
            Some(i) => authority_and_path.split_at(i),
            None => return None,
        };
        if !(host.is_empty() || host.eq_ignore_ascii_case("localhost")) {
            return None;
        }
        path
    } else {
        rest
    };
    if !path.starts_with('/') {
        return None;
    }
    let path = percent_decode(path)?;
    Some(PathBuf::from(local_path(&path)))
}

/// The local form of a URI's absolute path: as it is on Unix; on Windows without the slash
/// before a drive letter (`/C:/fmu/resources` → `C:/fmu/resources`, RFC 8089 appendix E.2).
fn local_path(path: &str) -> &str {
    let bytes = path.as_bytes();
    let drive = bytes.len() >= 3 && bytes[1].is_ascii_alphabetic() && bytes[2] == b':';
    if cfg!(windows) && drive {
        &path[1..]
    } else {
        path
    }
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The `resources/` folder next to `binaries/` of the FMU this library was loaded from.
pub fn resources_of_loaded_library() -> Option<PathBuf> {
    let library = loaded_library_path()?;
    let library = std::fs::canonicalize(&library).unwrap_or(library);
    Some(library.parent()?.parent()?.parent()?.join("resources"))
}

/// The path of this shared library, as the dynamic loader has it.
#[cfg(unix)]
fn loaded_library_path() -> Option<PathBuf> {
    let mut info = libc::Dl_info {
        dli_fname: std::ptr::null(),
        dli_fbase: std::ptr::null_mut(),
        dli_sname: std::ptr::null(),
        dli_saddr: std::ptr::null_mut(),
    };
    let address = resources_of_loaded_library as *const libc::c_void;
    // SAFETY: dladdr only reads the address and writes into `info`, which lives on this stack.
    let found = unsafe { libc::dladdr(address, &mut info) };
    if found == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: dladdr set dli_fname to a NUL-terminated path owned by the dynamic loader, valid
    // while the library is loaded (it is: this code runs from it).
    let library = unsafe { std::ffi::CStr::from_ptr(info.dli_fname) };
    Some(PathBuf::from(library.to_str().ok()?))
}

/// The path of this DLL: the module that holds this function's address, and its file name.
#[cfg(windows)]
fn loaded_library_path() -> Option<PathBuf> {
    use std::os::windows::ffi::OsStringExt;
    let module = windows::module_of(resources_of_loaded_library as *const u16, false)?;
    let mut name = vec![0u16; 32_768];
    // SAFETY: `module` is a handle of a loaded module (this one), `name` a writable buffer of
    // the length passed; the function writes at most that many characters.
    let length =
        unsafe { windows::GetModuleFileNameW(module, name.as_mut_ptr(), name.len() as u32) };
    if length == 0 || length as usize >= name.len() {
        return None;
    }
    Some(PathBuf::from(std::ffi::OsString::from_wide(
        &name[..length as usize],
    )))
}

/// Keeps this DLL loaded until the process ends, whatever `FreeLibrary` calls the importer
/// makes (fmpy unloads it right after `fmi2FreeInstance`): the Rust runtime's thread-local
/// destructors would otherwise run code that is gone. What `-z nodelete` does for the ELF
/// library on Linux. Called once per instance; pinning again is harmless.
pub fn pin_loaded_library() {
    #[cfg(windows)]
    {
        let _ = windows::module_of(resources_of_loaded_library as *const u16, true);
    }
}

/// The two KERNEL32 functions that find this DLL (no crate needed for them).
#[cfg(windows)]
mod windows {
    pub type Module = *mut core::ffi::c_void;
    const FROM_ADDRESS: u32 = 0x4;
    const UNCHANGED_REFCOUNT: u32 = 0x2;
    const PIN: u32 = 0x1;

    #[link(name = "kernel32")]
    extern "system" {
        fn GetModuleHandleExW(flags: u32, name: *const u16, module: *mut Module) -> i32;
        pub fn GetModuleFileNameW(module: Module, name: *mut u16, size: u32) -> u32;
    }

    /// The module that holds `address`; with `pin`, kept loaded until the process ends.
    pub fn module_of(address: *const u16, pin: bool) -> Option<Module> {
        let mut module: Module = std::ptr::null_mut();
        let flags = FROM_ADDRESS | if pin { PIN } else { UNCHANGED_REFCOUNT };
        // SAFETY: with FROM_ADDRESS, `address` is only compared with the loaded modules'
        // ranges; `module` is a valid place for the handle.
        let found = unsafe { GetModuleHandleExW(flags, address, &mut module) };
        (found != 0 && !module.is_null()).then_some(module)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A URI of a Windows path (`file:///C:/...`) loses the slash before the drive letter on
    /// Windows alone: on Unix `/C:/...` is a path like any other.
    #[test]
    fn a_drive_letter_keeps_no_slash_on_windows() {
        let expected = if cfg!(windows) {
            "C:/my fmu/resources"
        } else {
            "/C:/my fmu/resources"
        };
        assert_eq!(
            path_from_uri("file:///C:/my%20fmu/resources"),
            Some(PathBuf::from(expected))
        );
        assert_eq!(local_path("/tmp/C:"), "/tmp/C:");
    }

    #[test]
    fn file_uris_in_their_common_forms() {
        let expected = Some(PathBuf::from("/tmp/my fmu/resources"));
        assert_eq!(path_from_uri("file:///tmp/my%20fmu/resources"), expected);
        assert_eq!(path_from_uri("file:/tmp/my%20fmu/resources"), expected);
        assert_eq!(
            path_from_uri("file://localhost/tmp/my%20fmu/resources"),
            expected
        );
        assert_eq!(path_from_uri("http://example.org/resources"), None);
        assert_eq!(path_from_uri("file://server/share/resources"), None);
        assert_eq!(path_from_uri("file:relative/path"), None);
        assert_eq!(path_from_uri("file:///bad%2"), None);
        assert_eq!(path_from_uri(""), None);
    }
}
