//! Where the FMU's `resources/` folder is: from the `fmuResourceLocation` URI the host passes,
//! or, when that is missing or wrong, from the location of this shared library inside the
//! unpacked FMU (`binaries/linux64/<id>.so` → `resources/`).

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
    Some(PathBuf::from(percent_decode(path)?))
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
    let library = PathBuf::from(library.to_str().ok()?);
    let library = std::fs::canonicalize(&library).unwrap_or(library);
    Some(library.parent()?.parent()?.parent()?.join("resources"))
}

#[cfg(test)]
mod tests {
    use super::*;

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
