//! A minimal FMI 2.0 host for tests: it calls the runtime's exported `fmi2*` functions as an
//! importer does, with a logger that records every message.

use fmu_runtime::fmi2::exports::*;
use fmu_runtime::fmi2::types::*;
use std::ffi::{c_char, CStr, CString};
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// One message the FMU logged.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub status: Fmi2Status,
    pub category: String,
    pub format: String,
    pub text: String,
}

/// What the logger writes into: the `componentEnvironment` of the instance.
pub type Log = Mutex<Vec<Message>>;

/// A logger with the six arguments the runtime passes (format "%s" and the message). The FMI
/// logger type is variadic; a fixed-argument function of the same leading parameters receives
/// them the same way on x86-64 and AArch64 Linux and on x86-64 Windows, which is all these tests
/// run on: on Linux the variadic argument takes the next integer register as a fixed one would
/// (x86-64 SysV: rdi … r9; AArch64 Linux: x0 … x7), and Windows x64 passes variadic arguments
/// exactly like fixed ones (rcx, rdx, r8, r9, then the stack above the 32-byte shadow space;
/// only a floating-point variadic argument differs, and there is none).
unsafe extern "C" fn record(
    environment: Fmi2ComponentEnvironment,
    _instance: Fmi2String,
    status: Fmi2Status,
    category: Fmi2String,
    format: Fmi2String,
    message: Fmi2String,
) {
    let text = |p: *const c_char| {
        if p.is_null() {
            String::new()
        } else {
            // SAFETY: the runtime passes NUL-terminated strings.
            unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
        }
    };
    // SAFETY: the environment is the `Log` the test passed at instantiation.
    let log = unsafe { &*(environment as *const Log) };
    if let Ok(mut log) = log.lock() {
        log.push(Message {
            status,
            category: text(category),
            format: text(format),
            text: text(message),
        });
    }
}

pub fn callbacks(log: &Log) -> Fmi2CallbackFunctions {
    // SAFETY: see `record`: the same leading parameters; the runtime always passes exactly one
    // variadic argument, a C string.
    let logger: Fmi2CallbackLogger =
        unsafe { std::mem::transmute(record as unsafe extern "C" fn(_, _, _, _, _, _)) };
    Fmi2CallbackFunctions {
        logger: Some(logger),
        allocate_memory: None,
        free_memory: None,
        step_finished: None,
        component_environment: log as *const Log as *mut _,
    }
}

/// The value reference of the variable `name` of the model `source` (its index in the variable
/// table, as modelDescription.xml gives it).
pub fn value_reference(source: &str, name: &str) -> u32 {
    let spec = fmu_runtime::model::load_str(source, "model.m3d").expect("the model loads");
    let simulation = fmu_runtime::simulation::Simulation::new(spec, Default::default())
        .expect("the model starts");
    let index = simulation
        .variables
        .find(name)
        .unwrap_or_else(|| panic!("no variable {name}"));
    u32::try_from(index).expect("a value reference fits 32 bits")
}

/// An unpacked FMU's resources folder holding `source` as the model.
pub struct Resources {
    pub folder: PathBuf,
    pub uri: CString,
    pub guid: CString,
}

impl Resources {
    pub fn new(tag: &str, source: &str) -> Resources {
        let folder = std::env::temp_dir()
            .join(format!("fmu3d-test-{}-{tag}", std::process::id()))
            .join("resources");
        std::fs::create_dir_all(&folder).expect("temp folder");
        std::fs::write(folder.join(fmu_runtime::fmu::MODEL_FILE), source).expect("model written");
        let uri = CString::new(file_uri(&folder)).expect("no NUL");
        // The GUID of an FMU built from this model (its meshes, if any, beside it).
        let spec = fmu_runtime::model::load_str(
            source,
            &folder
                .join(fmu_runtime::fmu::MODEL_FILE)
                .display()
                .to_string(),
        )
        .map(|spec| fmu_runtime::fmu::guid_with(source, &spec, false))
        .unwrap_or_else(|_| fmu_runtime::fmu::guid(source));
        let guid = CString::new(spec).expect("no NUL");
        Resources { folder, uri, guid }
    }
}

/// The `file:` URI of an absolute path, as an importer passes `fmuResourceLocation` (RFC 8089):
/// `file:///tmp/x/resources` on Unix, `file:///C:/users/x/resources` on Windows (backslashes
/// as slashes, a slash before the drive letter), every byte but the unreserved characters, `/`
/// and `:` percent-encoded.
pub fn file_uri(path: &Path) -> String {
    let text = path.to_str().expect("a UTF-8 path");
    let text = if cfg!(windows) {
        text.replace('\\', "/")
    } else {
        text.to_owned()
    };
    let mut uri = String::from(if text.starts_with('/') {
        "file://"
    } else {
        "file:///"
    });
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/:".contains(&byte) {
            uri.push(char::from(byte));
        } else {
            write!(uri, "%{byte:02X}").expect("a String takes any text");
        }
    }
    uri
}

/// An `fmi2EventInfo` whose every field holds a value `fmi2NewDiscreteStates` never writes (7,
/// −1), to see whether a call wrote it.
pub fn unwritten_event_info() -> Fmi2EventInfo {
    Fmi2EventInfo {
        new_discrete_states_needed: 7,
        terminate_simulation: 7,
        nominals_of_continuous_states_changed: 7,
        values_of_continuous_states_changed: 7,
        next_event_time_defined: 7,
        next_event_time: -1.0,
    }
}

/// An instance with its log; freed on drop.
pub struct Slave {
    pub c: Fmi2Component,
    pub log: Box<Log>,
    _functions: Box<Fmi2CallbackFunctions>,
}

impl Slave {
    pub fn new(resources: &Resources) -> Slave {
        Slave::try_new(resources, resources.guid.as_c_str()).expect("instantiates")
    }

    pub fn try_new(resources: &Resources, guid: &CStr) -> Result<Slave, Vec<Message>> {
        Slave::try_instantiate(resources, guid, FMI2_CO_SIMULATION)
    }

    /// An instance for Model Exchange.
    pub fn model_exchange(resources: &Resources) -> Slave {
        Slave::try_instantiate(resources, resources.guid.as_c_str(), FMI2_MODEL_EXCHANGE)
            .expect("instantiates")
    }

    pub fn try_instantiate(
        resources: &Resources,
        guid: &CStr,
        fmu_type: Fmi2Type,
    ) -> Result<Slave, Vec<Message>> {
        let log = Box::new(Mutex::new(Vec::new()));
        let functions = Box::new(callbacks(&log));
        // SAFETY: valid strings and callbacks that outlive the instance (owned by Slave).
        let c = unsafe {
            fmi2Instantiate(
                c"instance".as_ptr(),
                fmu_type,
                guid.as_ptr(),
                resources.uri.as_ptr(),
                &*functions,
                FMI2_FALSE,
                FMI2_FALSE,
            )
        };
        if c.is_null() {
            return Err(log.lock().map(|l| l.clone()).unwrap_or_default());
        }
        Ok(Slave {
            c,
            log,
            _functions: functions,
        })
    }

    pub fn messages(&self) -> Vec<Message> {
        self.log.lock().map(|l| l.clone()).unwrap_or_default()
    }

    pub fn last_error(&self) -> String {
        self.messages()
            .iter()
            .rev()
            .find(|m| m.status >= Fmi2Status::Error)
            .map(|m| m.text.clone())
            .unwrap_or_default()
    }

    pub fn initialize(&self, stop: Option<f64>) {
        self.enter_initialization(None, stop);
        self.exit_initialization();
    }

    /// fmi2SetupExperiment (with the `tolerance` and `stop` time given, if any) and
    /// fmi2EnterInitializationMode, each asserted fmi2OK.
    pub fn enter_initialization(&self, tolerance: Option<f64>, stop: Option<f64>) {
        self.enter_initialization_at(tolerance, 0.0, stop);
    }

    /// As [`Slave::enter_initialization`], from the start time `start`.
    pub fn enter_initialization_at(&self, tolerance: Option<f64>, start: f64, stop: Option<f64>) {
        // SAFETY: a live instance.
        unsafe {
            assert_eq!(
                fmi2SetupExperiment(
                    self.c,
                    tolerance.is_some() as i32,
                    tolerance.unwrap_or(0.0),
                    start,
                    stop.is_some() as i32,
                    stop.unwrap_or(0.0)
                ),
                Fmi2Status::Ok
            );
            assert_eq!(fmi2EnterInitializationMode(self.c), Fmi2Status::Ok);
        }
    }

    /// fmi2ExitInitializationMode, asserted fmi2OK.
    pub fn exit_initialization(&self) {
        // SAFETY: a live instance.
        unsafe { assert_eq!(fmi2ExitInitializationMode(self.c), Fmi2Status::Ok) };
    }

    pub fn get(&self, vr: &[u32]) -> (Fmi2Status, Vec<f64>) {
        let mut values = vec![f64::NAN; vr.len()];
        // SAFETY: arrays of length vr.len().
        let status = unsafe { fmi2GetReal(self.c, vr.as_ptr(), vr.len(), values.as_mut_ptr()) };
        (status, values)
    }

    pub fn set(&self, vr: &[u32], values: &[f64]) -> Fmi2Status {
        // SAFETY: arrays of equal length.
        unsafe { fmi2SetReal(self.c, vr.as_ptr(), vr.len(), values.as_ptr()) }
    }

    /// `fmi2SetRealInputDerivatives` with one order for all references.
    pub fn set_derivatives(&self, vr: &[u32], order: i32, values: &[f64]) -> Fmi2Status {
        let orders = vec![order; vr.len()];
        // SAFETY: arrays of equal length.
        unsafe {
            fmi2SetRealInputDerivatives(
                self.c,
                vr.as_ptr(),
                vr.len(),
                orders.as_ptr(),
                values.as_ptr(),
            )
        }
    }

    /// `fmi2GetRealOutputDerivatives` with one order for all references.
    pub fn output_derivatives(&self, vr: &[u32], order: i32) -> (Fmi2Status, Vec<f64>) {
        let orders = vec![order; vr.len()];
        let mut values = vec![f64::NAN; vr.len()];
        // SAFETY: arrays of length vr.len().
        let status = unsafe {
            fmi2GetRealOutputDerivatives(
                self.c,
                vr.as_ptr(),
                vr.len(),
                orders.as_ptr(),
                values.as_mut_ptr(),
            )
        };
        (status, values)
    }

    pub fn step(&self, t: f64, h: f64) -> Fmi2Status {
        // SAFETY: a live instance.
        unsafe { fmi2DoStep(self.c, t, h, FMI2_TRUE) }
    }

    pub fn reset(&self) -> Fmi2Status {
        // SAFETY: a live instance.
        unsafe { fmi2Reset(self.c) }
    }
}

impl Drop for Slave {
    fn drop(&mut self) {
        // SAFETY: made by fmi2Instantiate, freed once.
        unsafe { fmi2FreeInstance(self.c) }
    }
}
