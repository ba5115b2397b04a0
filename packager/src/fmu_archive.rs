//! The `.fmu` file: a zip archive (deflate) written atomically. The archive is built in a
//! temporary file in the destination folder and renamed onto the destination only when it is
//! complete; on any error, and on SIGINT, SIGTERM or SIGHUP while it is written, the temporary
//! file is removed, so no partial FMU is left behind. One left by a process that was killed
//! outright (SIGKILL, a power cut) is removed by the next write to the same destination.

use std::ffi::CString;
use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, Cursor, Seek, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::Once;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, ZipWriter};

/// One file of the archive.
#[derive(Debug)]
pub struct Entry {
    /// Path inside the archive, `/`-separated.
    pub name: String,
    pub bytes: Vec<u8>,
    /// Whether the file is marked executable (the shared library).
    pub executable: bool,
}

/// A calendar time in UTC, to the second.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UtcTime {
    pub year: i64,
    pub month: u8,
    pub day: u8,
    pub hour: u8,
    pub minute: u8,
    pub second: u8,
}

impl UtcTime {
    /// The UTC time `seconds` after 1970-01-01T00:00:00Z.
    pub fn from_unix(seconds: i64) -> UtcTime {
        let days = seconds.div_euclid(86_400);
        let rest = seconds.rem_euclid(86_400);
        // Days to civil date (proleptic Gregorian calendar), after H. Hinnant's algorithm.
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u8;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u8;
        let year = yoe + era * 400 + i64::from(month <= 2);
        UtcTime {
            year,
            month,
            day,
            hour: (rest / 3600) as u8,
            minute: (rest % 3600 / 60) as u8,
            second: (rest % 60) as u8,
        }
    }

    /// ISO 8601, as FMI's `generationDateAndTime` (xs:dateTime): `2024-05-01T12:00:00Z`.
    pub fn iso8601(&self) -> String {
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }

    /// The same time as a zip timestamp, clamped to what zip can store (1980 to 2107).
    fn zip_time(&self) -> DateTime {
        let clamped = if self.year < 1980 {
            (1980, 1, 1, 0, 0, 0)
        } else if self.year > 2107 {
            (2107, 12, 31, 23, 59, 58)
        } else {
            (
                self.year as u16,
                self.month,
                self.day,
                self.hour,
                self.minute,
                self.second,
            )
        };
        let (y, mo, d, h, mi, s) = clamped;
        DateTime::from_date_and_time(y, mo, d, h, mi, s).unwrap_or_default()
    }
}

/// Writes `entries` as a zip archive to `destination`, atomically.
pub fn write(destination: &Path, entries: &[Entry], time: UtcTime) -> Result<(), String> {
    let shown = destination.display();
    let file_name = destination
        .file_name()
        .ok_or_else(|| format!("{shown}: not a file name"))?;
    let folder = match destination.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !folder.is_dir() {
        return Err(format!(
            "cannot write {shown}: the folder {} does not exist",
            folder.display()
        ));
    }
    let prefix = format!(".{}.", file_name.to_string_lossy());
    remove_stale_partials(&folder, &prefix);
    let temporary =
        Temporary::new(folder.join(format!("{prefix}{}{PARTIAL_SUFFIX}", std::process::id())));
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temporary.path)
        .map_err(|e| format!("cannot write {shown}: {e}"))?;
    write_zip(file, entries, time).map_err(|e| format!("cannot write {shown}: {e}"))?;
    temporary.persist(destination)
}

/// The zip archive of `entries` in memory (an FMU to be put inside another archive).
pub fn to_bytes(entries: &[Entry], time: UtcTime) -> Result<Vec<u8>, String> {
    let zip = fill_zip(ZipWriter::new(Cursor::new(Vec::new())), entries, time)?;
    Ok(zip.finish().map_err(|e| e.to_string())?.into_inner())
}

fn write_zip(file: File, entries: &[Entry], time: UtcTime) -> Result<(), String> {
    let zip = fill_zip(ZipWriter::new(BufWriter::new(file)), entries, time)?;
    let buffered = zip.finish().map_err(|e| e.to_string())?;
    let file = buffered.into_inner().map_err(|e| e.error().to_string())?;
    file.sync_all().map_err(|e| e.to_string())
}

/// Adds every entry (deflated, stamped with `time`, executable where marked) to the archive.
fn fill_zip<W: Write + Seek>(
    mut zip: ZipWriter<W>,
    entries: &[Entry],
    time: UtcTime,
) -> Result<ZipWriter<W>, String> {
    for entry in entries {
        let options = SimpleFileOptions::default()
            .compression_method(CompressionMethod::Deflated)
            .last_modified_time(time.zip_time())
            .unix_permissions(if entry.executable { 0o755 } else { 0o644 });
        zip.start_file(entry.name.as_str(), options)
            .map_err(|e| e.to_string())?;
        zip.write_all(&entry.bytes).map_err(|e| e.to_string())?;
    }
    Ok(zip)
}

const PARTIAL_SUFFIX: &str = ".partial";

/// Removes `<prefix><pid>.partial` files in `folder` whose process no longer exists: what a
/// write killed by SIGKILL left. A file of a process that still runs is another write's.
fn remove_stale_partials(folder: &Path, prefix: &str) {
    let Ok(entries) = fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(prefix))
            .and_then(|n| n.strip_suffix(PARTIAL_SUFFIX))
            .and_then(|n| n.parse::<libc::pid_t>().ok())
        else {
            continue;
        };
        // SAFETY: signal 0 only asks whether the process exists.
        let gone = pid > 0
            && unsafe { libc::kill(pid, 0) } == -1
            && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
        if gone {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// The temporary file being written, as a NUL-terminated path for the signal handler (null when
/// none): the handler may only call async-signal-safe functions, so it cannot lock or allocate.
static WRITING: AtomicPtr<libc::c_char> = AtomicPtr::new(null_mut());

/// Removes the temporary file being written, then dies of the signal as it would have.
extern "C" fn remove_temporary_and_reraise(signal: libc::c_int) {
    let path = WRITING.swap(null_mut(), Ordering::SeqCst);
    // SAFETY: unlink, signal and raise are async-signal-safe; `path` is a leaked CString that
    // nothing frees once the swap above took it.
    unsafe {
        if !path.is_null() {
            libc::unlink(path);
        }
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
}

/// Installs [`remove_temporary_and_reraise`] for the signals that end a command line program.
fn install_signal_handlers() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            // SAFETY: the handler only calls async-signal-safe functions.
            unsafe {
                libc::signal(
                    signal,
                    remove_temporary_and_reraise as extern "C" fn(libc::c_int)
                        as libc::sighandler_t,
                );
            }
        }
    });
}

/// A file that is removed when dropped, or when a signal ends the process, unless it was
/// renamed onto its destination.
struct Temporary {
    path: PathBuf,
    done: bool,
}

impl Temporary {
    fn new(path: PathBuf) -> Temporary {
        install_signal_handlers();
        if let Ok(c_path) = CString::new(path.as_os_str().as_bytes()) {
            let previous = WRITING.swap(c_path.into_raw(), Ordering::SeqCst);
            free_path(previous);
        }
        Temporary { path, done: false }
    }

    fn persist(mut self, destination: &Path) -> Result<(), String> {
        fs::rename(&self.path, destination)
            .map_err(|e| format!("cannot write {}: {e}", destination.display()))?;
        self.done = true;
        Ok(())
    }
}

impl Drop for Temporary {
    fn drop(&mut self) {
        free_path(WRITING.swap(null_mut(), Ordering::SeqCst));
        if !self.done {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Frees a path that [`Temporary::new`] handed to the signal handler.
fn free_path(path: *mut libc::c_char) {
    if !path.is_null() {
        // SAFETY: made by CString::into_raw in Temporary::new, taken out of WRITING by one swap.
        drop(unsafe { CString::from_raw(path) });
    }
}

#[cfg(test)]
mod tests {
    use super::UtcTime;

    #[test]
    fn unix_time_to_calendar() {
        assert_eq!(UtcTime::from_unix(0).iso8601(), "1970-01-01T00:00:00Z");
        assert_eq!(
            UtcTime::from_unix(1_700_000_000).iso8601(),
            "2023-11-14T22:13:20Z"
        );
        assert_eq!(
            UtcTime::from_unix(951_782_400).iso8601(),
            "2000-02-29T00:00:00Z"
        );
        assert_eq!(UtcTime::from_unix(-1).iso8601(), "1969-12-31T23:59:59Z");
    }
}
