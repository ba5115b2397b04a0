//! A small FMI 2.0 Co-Simulation host: `fmu3d simulate X.fmu` runs an FMU through its own C API
//! (the `.so` inside it), as an importer would, not through the engine linked into `fmu3d`.

pub mod description;

use fmu_runtime::fmi2::types::{
    Fmi2CallbackFunctions, Fmi2CallbackLogger, Fmi2Component, Fmi2Status, Fmi2String,
    Fmi2ValueReference, FMI2_CO_SIMULATION, FMI2_FALSE, FMI2_TRUE,
};
use libloading::{Library, Symbol};
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

pub use description::Description;

extern "C" {
    /// Defined in `logger.c`: formats the variadic message and calls [`fmu3d_log_sink`].
    fn fmu3d_logger(
        environment: *mut c_void,
        instance: Fmi2String,
        status: Fmi2Status,
        category: Fmi2String,
        format: Fmi2String,
        ...
    );
}

/// Messages the FMU logged, collected through `componentEnvironment`.
type Log = Mutex<Vec<(Fmi2Status, String)>>;

/// Called by `logger.c` with the formatted message.
///
/// # Safety
/// `environment` is the `Log` given at instantiation; the strings are NUL-terminated or null.
#[no_mangle]
pub unsafe extern "C" fn fmu3d_log_sink(
    environment: *mut c_void,
    _instance: *const c_char,
    status: c_int,
    category: *const c_char,
    message: *const c_char,
) {
    let text = |p: *const c_char| {
        if p.is_null() {
            String::new()
        } else {
            // SAFETY: NUL-terminated by the caller's contract.
            unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
        }
    };
    let status = match status {
        0 => Fmi2Status::Ok,
        1 => Fmi2Status::Warning,
        2 => Fmi2Status::Discard,
        3 => Fmi2Status::Error,
        4 => Fmi2Status::Fatal,
        _ => Fmi2Status::Pending,
    };
    if environment.is_null() {
        return;
    }
    // SAFETY: the environment is the `Log` that `Fmu::instantiate` passed and keeps alive.
    let log = unsafe { &*(environment as *const Log) };
    if let Ok(mut log) = log.lock() {
        log.push((status, format!("[{}] {}", text(category), text(message))));
    }
}

type Instantiate = unsafe extern "C" fn(
    Fmi2String,
    c_int,
    Fmi2String,
    Fmi2String,
    *const Fmi2CallbackFunctions,
    c_int,
    c_int,
) -> Fmi2Component;
type SetupExperiment =
    unsafe extern "C" fn(Fmi2Component, c_int, f64, f64, c_int, f64) -> Fmi2Status;
type Simple = unsafe extern "C" fn(Fmi2Component) -> Fmi2Status;
type DoStep = unsafe extern "C" fn(Fmi2Component, f64, f64, c_int) -> Fmi2Status;
type GetReal =
    unsafe extern "C" fn(Fmi2Component, *const Fmi2ValueReference, usize, *mut f64) -> Fmi2Status;
type SetReal =
    unsafe extern "C" fn(Fmi2Component, *const Fmi2ValueReference, usize, *const f64) -> Fmi2Status;
type SetRealInputDerivatives = unsafe extern "C" fn(
    Fmi2Component,
    *const Fmi2ValueReference,
    usize,
    *const c_int,
    *const f64,
) -> Fmi2Status;
type FreeInstance = unsafe extern "C" fn(Fmi2Component);

/// An unpacked FMU with its library loaded and one instance.
pub struct Fmu {
    pub description: Description,
    folder: PathBuf,
    component: Fmi2Component,
    log: Box<Log>,
    _callbacks: Box<Fmi2CallbackFunctions>,
    library: Library,
}

impl Fmu {
    /// Unpacks `path` into a temporary folder, loads its library and instantiates it.
    pub fn open(path: &Path) -> Result<Fmu, String> {
        let folder = std::env::temp_dir().join(format!("fmu3d-simulate-{}", std::process::id()));
        unpack(path, &folder).map_err(|e| format!("{}: {e}", path.display()))?;
        let xml = std::fs::read_to_string(folder.join("modelDescription.xml"))
            .map_err(|e| format!("{}: no readable modelDescription.xml: {e}", path.display()))?;
        let description =
            description::parse(&xml).map_err(|e| format!("{}: {e}", path.display()))?;
        let library_path = folder
            .join("binaries/linux64")
            .join(format!("{}.so", description.model_identifier));
        // SAFETY: loading the FMU's library runs its initializers; an FMU is code the user chose
        // to run.
        let library = unsafe { Library::new(&library_path) }.map_err(|e| {
            format!(
                "{}: cannot load {}: {e}",
                path.display(),
                library_path.display()
            )
        })?;
        let log: Box<Log> = Box::new(Mutex::new(Vec::new()));
        // SAFETY: fmu3d_logger has the fmi2CallbackLogger signature (defined in logger.c).
        let logger: Fmi2CallbackLogger = fmu3d_logger;
        let callbacks = Box::new(Fmi2CallbackFunctions {
            logger: Some(logger),
            allocate_memory: None,
            free_memory: None,
            step_finished: None,
            component_environment: (&*log as *const Log).cast_mut().cast(),
        });
        let mut fmu = Fmu {
            description,
            folder,
            component: std::ptr::null_mut(),
            log,
            _callbacks: callbacks,
            library,
        };
        let name = CString::new(fmu.description.model_name.clone()).map_err(|e| e.to_string())?;
        let guid = CString::new(fmu.description.guid.clone()).map_err(|e| e.to_string())?;
        let uri = CString::new(format!("file://{}", fmu.folder.join("resources").display()))
            .map_err(|e| e.to_string())?;
        let instantiate: Symbol<Instantiate> = fmu.symbol("fmi2Instantiate")?;
        // SAFETY: the arguments are valid C strings and callbacks that outlive the instance.
        let component = unsafe {
            instantiate(
                name.as_ptr(),
                FMI2_CO_SIMULATION,
                guid.as_ptr(),
                uri.as_ptr(),
                &*fmu._callbacks,
                FMI2_FALSE,
                FMI2_FALSE,
            )
        };
        if component.is_null() {
            return Err(format!(
                "{}: fmi2Instantiate failed{}",
                path.display(),
                fmu.messages()
            ));
        }
        fmu.component = component;
        Ok(fmu)
    }

    fn symbol<T>(&self, name: &str) -> Result<Symbol<'_, T>, String> {
        // SAFETY: the type T given by each caller is the FMI 2.0 signature of `name`.
        unsafe { self.library.get(name.as_bytes()) }
            .map_err(|e| format!("the FMU does not export {name}: {e}"))
    }

    /// The FMU's error messages since the last call, for an error report.
    fn messages(&self) -> String {
        let messages: Vec<String> = self
            .log
            .lock()
            .map(|mut log| {
                log.drain(..)
                    .filter(|(s, _)| *s >= Fmi2Status::Warning)
                    .map(|(_, m)| m)
                    .collect()
            })
            .unwrap_or_default();
        if messages.is_empty() {
            String::new()
        } else {
            format!(": {}", messages.join("; "))
        }
    }

    fn check(&self, call: &str, status: Fmi2Status) -> Result<(), String> {
        if status <= Fmi2Status::Warning {
            Ok(())
        } else {
            Err(format!(
                "{call} returned {}{}",
                status.name(),
                self.messages()
            ))
        }
    }

    /// Sets the parameters (value reference, value), then initializes the instance for an
    /// experiment from `start` to `stop`.
    pub fn initialize(
        &mut self,
        start: f64,
        stop: f64,
        tolerance: Option<f64>,
        parameters: &[(u32, f64)],
    ) -> Result<(), String> {
        if !parameters.is_empty() {
            let (references, values): (Vec<u32>, Vec<f64>) = parameters.iter().copied().unzip();
            self.set_real(&references, &values)?;
        }
        let setup: Symbol<SetupExperiment> = self.symbol("fmi2SetupExperiment")?;
        // SAFETY: a live instance and the FMI 2.0 signature.
        let status = unsafe {
            setup(
                self.component,
                i32::from(tolerance.is_some()),
                tolerance.unwrap_or(0.0),
                start,
                FMI2_TRUE,
                stop,
            )
        };
        self.check("fmi2SetupExperiment", status)?;
        for call in ["fmi2EnterInitializationMode", "fmi2ExitInitializationMode"] {
            let f: Symbol<Simple> = self.symbol(call)?;
            // SAFETY: a live instance.
            let status = unsafe { f(self.component) };
            self.check(call, status)?;
        }
        Ok(())
    }

    pub fn do_step(&mut self, t: f64, h: f64) -> Result<(), String> {
        let step: Symbol<DoStep> = self.symbol("fmi2DoStep")?;
        // SAFETY: a live instance.
        let status = unsafe { step(self.component, t, h, FMI2_TRUE) };
        self.check("fmi2DoStep", status)
    }

    pub fn set_real(&mut self, references: &[u32], values: &[f64]) -> Result<(), String> {
        let set: Symbol<SetReal> = self.symbol("fmi2SetReal")?;
        let n = references.len().min(values.len());
        // SAFETY: both arrays have at least n elements.
        let status = unsafe { set(self.component, references.as_ptr(), n, values.as_ptr()) };
        self.check("fmi2SetReal", status)
    }

    /// The first derivatives of inputs, for an FMU that can interpolate its inputs.
    pub fn set_input_slopes(&mut self, references: &[u32], slopes: &[f64]) -> Result<(), String> {
        let set: Symbol<SetRealInputDerivatives> = self.symbol("fmi2SetRealInputDerivatives")?;
        let n = references.len().min(slopes.len());
        let orders = vec![1 as c_int; n];
        // SAFETY: the three arrays have at least n elements.
        let status = unsafe {
            set(
                self.component,
                references.as_ptr(),
                n,
                orders.as_ptr(),
                slopes.as_ptr(),
            )
        };
        self.check("fmi2SetRealInputDerivatives", status)
    }

    pub fn get_real(&self, references: &[u32]) -> Result<Vec<f64>, String> {
        let get: Symbol<GetReal> = self.symbol("fmi2GetReal")?;
        let mut values = vec![0.0; references.len()];
        // SAFETY: both arrays have references.len() elements.
        let status = unsafe {
            get(
                self.component,
                references.as_ptr(),
                references.len(),
                values.as_mut_ptr(),
            )
        };
        self.check("fmi2GetReal", status)?;
        Ok(values)
    }
}

impl Drop for Fmu {
    fn drop(&mut self) {
        if !self.component.is_null() {
            if let Ok(terminate) = self.symbol::<Simple>("fmi2Terminate") {
                // SAFETY: a live instance; a refusal (wrong state) is harmless here.
                unsafe { terminate(self.component) };
            }
            if let Ok(free) = self.symbol::<FreeInstance>("fmi2FreeInstance") {
                // SAFETY: a live instance, freed once.
                unsafe { free(self.component) };
            }
        }
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}

/// Extracts every entry of the FMU (a zip) into `folder`, refusing paths that leave it.
fn unpack(path: &Path, folder: &Path) -> Result<(), String> {
    let file = std::fs::File::open(path).map_err(|e| format!("cannot open: {e}"))?;
    let mut archive = zip::ZipArchive::new(file).map_err(|e| format!("not an FMU (zip): {e}"))?;
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).map_err(|e| e.to_string())?;
        let Some(relative) = entry.enclosed_name() else {
            return Err(format!("entry {i} points outside the FMU"));
        };
        let target = folder.join(relative);
        if entry.is_dir() {
            std::fs::create_dir_all(&target).map_err(|e| e.to_string())?;
            continue;
        }
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
        }
        let mut bytes = Vec::new();
        entry.read_to_end(&mut bytes).map_err(|e| e.to_string())?;
        std::fs::write(&target, bytes)
            .map_err(|e| format!("cannot write {}: {e}", target.display()))?;
    }
    Ok(())
}
