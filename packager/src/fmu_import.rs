//! The FMI 2.0 importer of `fmu3d`: `simulate X.fmu` runs an FMU through its own C API, as other
//! tools do, with the `fmi` crate, which unpacks the archive, parses its modelDescription.xml
//! (fmi-schema), loads the library of this platform with typed bindings (fmi-sys) and supplies
//! the logger callback. `ssp` reads the descriptions of other FMUs through it as well.
//!
//! The instance is driven through the crate's bindings rather than its `Instance` type, which has
//! no `fmi2SetRealInputDerivatives` and keeps its component private: an FMU that can interpolate
//! its inputs must get their slopes. A status, a missing function or a malformed archive becomes
//! an error message here, never a panic.

use fmi::fmi2::binding;
use fmi::fmi2::import::Fmi2Import;
use fmi::fmi2::schema::{Fmi2ModelDescription, ScalarVariableElement};
use fmi::fmi2::CallbackFunctions;
use fmi::traits::FmiImport;
use std::ffi::{c_int, CString};
use std::fmt::Display;
use std::io::Read;
use std::path::Path;
use std::str::FromStr;
use std::sync::{Mutex, Once, PoisonError};

/// An unpacked FMU with its library loaded and one Co-Simulation instance.
pub struct Fmu {
    /// Non-null from `open` until `Drop` frees it.
    component: binding::fmi2Component,
    /// Read by the FMU for as long as the instance lives.
    _callbacks: Box<CallbackFunctions>,
    binding: binding::Fmi2Binding,
    /// The unpacked files (removed when dropped, after the library is unloaded).
    import: Fmi2Import,
}

impl Fmu {
    /// Unpacks `path`, loads its library and instantiates it for Co-Simulation.
    pub fn open(path: &Path) -> Result<Fmu, String> {
        let shown = path.display();
        // Read first: its errors name the entry or the attribute at fault.
        let description = read_description(path)?;
        let import: Fmi2Import =
            fmi::import::from_path(path).map_err(|e| format!("{shown}: cannot unpack: {e}"))?;
        let identifier =
            co_simulation_identifier(&description).map_err(|e| format!("{shown}: {e}"))?;
        let library = import
            .shared_lib_path(identifier)
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        let binding = import
            .binding(identifier)
            .map_err(|e| format!("{shown}: cannot load {library}: {e}"))?;
        install_logger();
        take_messages();
        let c_string = |text: &str, what: &str| {
            CString::new(text).map_err(|_| format!("{shown}: the {what} contains a NUL character"))
        };
        let name = c_string(&description.model_name, "model name")?;
        let guid = c_string(&description.guid, "guid")?;
        let resources = c_string(&import.canonical_resource_path_string(), "resource path")?;
        // The crate's defaults: its logger (formats the message, hands it to `log`), calloc, free.
        let callbacks = Box::<CallbackFunctions>::default();
        let instantiate = function(&binding.fmi2Instantiate, "fmi2Instantiate")?;
        // SAFETY: valid C strings; the callbacks are the crate's own, kept alive (boxed) as long
        // as the instance; the fmi2CallbackFunctions layout is what `CallbackFunctions` repeats.
        let component = unsafe {
            instantiate(
                name.as_ptr(),
                binding::fmi2Type_fmi2CoSimulation,
                guid.as_ptr(),
                resources.as_ptr(),
                std::ptr::from_ref::<CallbackFunctions>(&callbacks).cast(),
                0,
                0,
            )
        };
        if component.is_null() {
            return Err(format!(
                "{shown}: fmi2Instantiate failed{}",
                take_messages()
            ));
        }
        Ok(Fmu {
            component,
            _callbacks: callbacks,
            binding,
            import,
        })
    }

    pub fn description(&self) -> &Fmi2ModelDescription {
        self.import.model_description()
    }

    /// `canInterpolateInputs` of `<CoSimulation>`: the FMU takes input derivatives.
    pub fn can_interpolate_inputs(&self) -> bool {
        self.description()
            .co_simulation
            .as_ref()
            .and_then(|c| c.can_interpolate_inputs)
            .unwrap_or(false)
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
        let setup = function(&self.binding.fmi2SetupExperiment, "fmi2SetupExperiment")?;
        // SAFETY: a live instance; plain values.
        let status = unsafe {
            setup(
                self.component,
                c_int::from(tolerance.is_some()),
                tolerance.unwrap_or(0.0),
                start,
                1,
                stop,
            )
        };
        check("fmi2SetupExperiment", status)?;
        let enter = function(
            &self.binding.fmi2EnterInitializationMode,
            "fmi2EnterInitializationMode",
        )?;
        // SAFETY: a live instance.
        check("fmi2EnterInitializationMode", unsafe {
            enter(self.component)
        })?;
        let exit = function(
            &self.binding.fmi2ExitInitializationMode,
            "fmi2ExitInitializationMode",
        )?;
        // SAFETY: a live instance.
        check("fmi2ExitInitializationMode", unsafe {
            exit(self.component)
        })
    }

    pub fn do_step(&mut self, t: f64, h: f64) -> Result<(), String> {
        let step = function(&self.binding.fmi2DoStep, "fmi2DoStep")?;
        // SAFETY: a live instance; plain values.
        check("fmi2DoStep", unsafe { step(self.component, t, h, 1) })
    }

    pub fn set_real(&mut self, references: &[u32], values: &[f64]) -> Result<(), String> {
        let set = function(&self.binding.fmi2SetReal, "fmi2SetReal")?;
        let n = references.len().min(values.len());
        // SAFETY: both arrays have at least n elements.
        let status = unsafe { set(self.component, references.as_ptr(), n, values.as_ptr()) };
        check("fmi2SetReal", status)
    }

    /// The first derivatives of inputs, for an FMU that can interpolate its inputs.
    pub fn set_input_slopes(&mut self, references: &[u32], slopes: &[f64]) -> Result<(), String> {
        let set = function(
            &self.binding.fmi2SetRealInputDerivatives,
            "fmi2SetRealInputDerivatives",
        )?;
        let n = references.len().min(slopes.len());
        let orders: Vec<binding::fmi2Integer> = vec![1; n];
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
        check("fmi2SetRealInputDerivatives", status)
    }

    pub fn get_real(&self, references: &[u32]) -> Result<Vec<f64>, String> {
        let get = function(&self.binding.fmi2GetReal, "fmi2GetReal")?;
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
        check("fmi2GetReal", status)?;
        Ok(values)
    }
}

impl Drop for Fmu {
    fn drop(&mut self) {
        if let Ok(terminate) = function(&self.binding.fmi2Terminate, "fmi2Terminate") {
            // SAFETY: a live instance; a refusal (an instance in the error state) is harmless.
            unsafe { terminate(self.component) };
        }
        if let Ok(free) = function(&self.binding.fmi2FreeInstance, "fmi2FreeInstance") {
            // SAFETY: a live instance, freed once; not used afterwards.
            unsafe { free(self.component) };
        }
    }
}

/// A function of the FMU's library (the bindings look up every one when loading; one that is
/// missing is an error only when called).
fn function<F: Copy, E: Display>(found: &Result<F, E>, name: &str) -> Result<F, String> {
    found
        .as_ref()
        .copied()
        .map_err(|e| format!("the FMU does not export {name}: {e}"))
}

/// fmi2OK and fmi2Warning go on; any other status is an error with what the FMU logged.
fn check(call: &str, status: binding::fmi2Status) -> Result<(), String> {
    let name = match status {
        binding::fmi2Status_fmi2OK | binding::fmi2Status_fmi2Warning => return Ok(()),
        binding::fmi2Status_fmi2Discard => "fmi2Discard".to_string(),
        binding::fmi2Status_fmi2Error => "fmi2Error".to_string(),
        binding::fmi2Status_fmi2Fatal => "fmi2Fatal".to_string(),
        binding::fmi2Status_fmi2Pending => "fmi2Pending".to_string(),
        other => format!("the status {other}, which FMI 2.0 does not define"),
    };
    Err(format!("{call} returned {name}{}", take_messages()))
}

fn co_simulation_identifier(description: &Fmi2ModelDescription) -> Result<&str, String> {
    description
        .co_simulation
        .as_ref()
        .map(|c| c.model_identifier.as_str())
        .ok_or_else(|| {
            "the FMU does not support Co-Simulation (no <CoSimulation> element)".to_string()
        })
}

/// The modelDescription.xml of an FMU file, read from the archive without unpacking it.
pub fn description_text(path: &Path) -> Result<String, String> {
    let shown = path.display();
    let file = std::fs::File::open(path).map_err(|e| format!("{shown}: cannot open: {e}"))?;
    let mut archive =
        zip::ZipArchive::new(file).map_err(|e| format!("{shown}: not an FMU (zip): {e}"))?;
    let mut xml = String::new();
    archive
        .by_name("modelDescription.xml")
        .map_err(|e| format!("{shown}: no modelDescription.xml: {e}"))?
        .read_to_string(&mut xml)
        .map_err(|e| format!("{shown}: modelDescription.xml is not readable text: {e}"))?;
    Ok(xml)
}

/// The parsed modelDescription.xml of an FMI 2.0 Co-Simulation FMU.
pub fn read_description(path: &Path) -> Result<Fmi2ModelDescription, String> {
    let shown = path.display();
    let xml = description_text(path)?;
    let description = Fmi2ModelDescription::from_str(&xml)
        .map_err(|e| format!("{shown}: modelDescription.xml is not an FMI 2.0 description: {e}"))?;
    co_simulation_identifier(&description).map_err(|e| format!("{shown}: {e}"))?;
    Ok(description)
}

/// `Real`, `Integer`, `Boolean`, `String` or `Enumeration`.
pub fn type_name(element: &ScalarVariableElement) -> &'static str {
    match element {
        ScalarVariableElement::Real(_) => "Real",
        ScalarVariableElement::Integer(_) => "Integer",
        ScalarVariableElement::Boolean(_) => "Boolean",
        ScalarVariableElement::String => "String",
        ScalarVariableElement::Enumeration => "Enumeration",
    }
}

/// What the FMU logged at fmi2Warning and above, for the next error report. The crate's logger
/// callback passes each message to the `log` facade (module path `logger`; the level from the
/// status, fmi2OK as `Info`; the category is dropped); fmu3d runs one instance at a time.
static MESSAGES: Mutex<Vec<String>> = Mutex::new(Vec::new());

struct Collector;

impl log::Log for Collector {
    fn enabled(&self, metadata: &log::Metadata) -> bool {
        metadata.level() != log::Level::Info
    }

    fn log(&self, record: &log::Record) {
        // Runs inside the FMU's call: nothing here may panic.
        if record.module_path() == Some("logger") && self.enabled(record.metadata()) {
            MESSAGES
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(record.args().to_string());
        }
    }

    fn flush(&self) {}
}

/// Makes the collector the process's logger (once; the `log` level stays off, so the crate's own
/// debug output is not even formatted: the callback calls the logger directly).
fn install_logger() {
    static INSTALL: Once = Once::new();
    static COLLECTOR: Collector = Collector;
    INSTALL.call_once(|| {
        // Another logger set first would only cost the messages in the error reports.
        let _ = log::set_logger(&COLLECTOR);
    });
}

/// The messages logged since the last call, as `": one; two"` (empty if none).
fn take_messages() -> String {
    let messages = std::mem::take(&mut *MESSAGES.lock().unwrap_or_else(PoisonError::into_inner));
    if messages.is_empty() {
        String::new()
    } else {
        format!(": {}", messages.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_past_warning_are_errors_that_name_them() {
        assert!(check("fmi2DoStep", binding::fmi2Status_fmi2OK).is_ok());
        assert!(check("fmi2DoStep", binding::fmi2Status_fmi2Warning).is_ok());
        for (status, name) in [
            (binding::fmi2Status_fmi2Discard, "fmi2Discard"),
            (binding::fmi2Status_fmi2Error, "fmi2Error"),
            (binding::fmi2Status_fmi2Fatal, "fmi2Fatal"),
            (binding::fmi2Status_fmi2Pending, "fmi2Pending"),
        ] {
            let message = check("fmi2DoStep", status).unwrap_err();
            assert!(
                message.starts_with(&format!("fmi2DoStep returned {name}")),
                "{message}"
            );
        }
        let message = check("fmi2GetReal", 17).unwrap_err();
        assert!(
            message.contains("the status 17, which FMI 2.0 does not define"),
            "{message}"
        );
    }

    #[test]
    fn a_file_that_is_no_fmu_is_refused_with_its_name() {
        let folder = std::env::temp_dir().join(format!("fmu3d-import-{}", std::process::id()));
        std::fs::create_dir_all(&folder).unwrap();
        let text = folder.join("text.fmu");
        std::fs::write(&text, "not a zip").unwrap();
        let missing = folder.join("missing.fmu");
        for (path, expected) in [(&text, "not an FMU (zip)"), (&missing, "cannot open")] {
            let message = Fmu::open(path).err().unwrap();
            assert!(
                message.starts_with(&format!("{}: {expected}", path.display())),
                "{message}"
            );
        }
        std::fs::remove_dir_all(&folder).ok();
    }
}
