//! The one place where C meets Rust. Every exported function that takes an instance runs its
//! body through [`call`]: the pointer is checked (non-null, aligned, the instance's magic
//! number), the function's allowed-state mask is checked before any work, the body runs inside
//! `catch_unwind`, and the status it returns moves the state machine (fmi2Error → error state,
//! until reset or set-state; fmi2Fatal or a panic → fatal, only free is left).

use super::instance::{CallError, Instance};
use super::state::{Mask, ModelState};
use super::types::{Fmi2Component, Fmi2Status};
use std::ffi::{c_char, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// First field of every live instance; cleared when it is freed.
pub const INSTANCE_MAGIC: u64 = 0x464d_5533_4449_4e53;

/// What `fmi2Instantiate` hands out as `fmi2Component`.
#[repr(C)]
pub struct Component {
    magic: u64,
    pub instance: Instance,
}

impl Component {
    pub fn new(instance: Instance) -> Component {
        Component {
            magic: INSTANCE_MAGIC,
            instance,
        }
    }
}

/// The instance behind a component pointer, if it is one of ours and alive.
///
/// # Safety
/// `c` must be null or a pointer the host got from `fmi2Instantiate` (the magic number catches
/// the common misuse of passing a freed or foreign pointer, but cannot make it safe).
pub unsafe fn component<'a>(c: Fmi2Component) -> Option<&'a mut Component> {
    if c.is_null() || !c.cast::<Component>().is_aligned() {
        return None;
    }
    let component = c.cast::<Component>();
    // SAFETY: non-null and aligned; by the caller's contract it points to a Component.
    unsafe {
        if (*component).magic != INSTANCE_MAGIC {
            return None;
        }
        Some(&mut *component)
    }
}

/// Frees a component made by `fmi2Instantiate`.
///
/// # Safety
/// As for [`component`]; after this call the pointer is dangling.
pub unsafe fn free(c: Fmi2Component) {
    // SAFETY: forwarded contract.
    if let Some(component) = unsafe { component(c) } {
        component.magic = 0;
        // SAFETY: the component was allocated by Box::into_raw in fmi2Instantiate and its magic
        // was intact, so it was not freed before.
        drop(unsafe { Box::from_raw(c.cast::<Component>()) });
    }
}

/// Runs `body` on the instance behind `c` with every check of the boundary.
///
/// # Safety
/// As for [`component`].
pub unsafe fn call(
    c: Fmi2Component,
    function: &'static str,
    mask: Mask,
    body: impl FnOnce(&mut Instance) -> Result<Fmi2Status, CallError>,
) -> Fmi2Status {
    // SAFETY: forwarded contract.
    let Some(component) = (unsafe { component(c) }) else {
        return Fmi2Status::Error;
    };
    let instance = &mut component.instance;
    if !mask.contains(instance.state) {
        let message = format!(
            "{function} is not allowed in state `{}`; it is allowed in: {}{}",
            instance.state.name(),
            mask.describe(),
            mask.interface_hint(instance.interface)
        );
        return fail(instance, Fmi2Status::Error, &message);
    }
    let result = catch_unwind(AssertUnwindSafe(|| body(&mut *instance)));
    match result {
        Ok(Ok(status)) => status,
        Ok(Err(message)) => fail(
            instance,
            Fmi2Status::Error,
            &format!("{function}: {message}"),
        ),
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown cause".to_string());
            fail(
                instance,
                Fmi2Status::Fatal,
                &format!("{function}: internal error ({what}); the instance can only be freed"),
            )
        }
    }
}

/// Logs a failure and moves the state machine.
fn fail(instance: &mut Instance, status: Fmi2Status, message: &str) -> Fmi2Status {
    instance
        .logger
        .log(status, super::logger::Category::Error, message);
    if status == Fmi2Status::Fatal {
        instance.state = ModelState::Fatal;
    } else if instance.state != ModelState::Fatal {
        instance.state = ModelState::Error;
    }
    status
}

/// A C string argument as `&str`: null and invalid UTF-8 are errors naming the argument.
///
/// # Safety
/// `text` must be null or point to a NUL-terminated string that outlives the returned slice.
pub unsafe fn string<'a>(text: *const c_char, argument: &str) -> Result<&'a str, CallError> {
    if text.is_null() {
        return Err(format!("{argument} is a null pointer"));
    }
    // SAFETY: non-null; NUL-terminated by the caller's contract.
    unsafe { CStr::from_ptr(text) }
        .to_str()
        .map_err(|_| format!("{argument} is not valid UTF-8"))
}

/// A C array argument as a slice; `n == 0` is fine with any pointer.
///
/// # Safety
/// `data` must be null or point to `n` valid elements that outlive the returned slice.
pub unsafe fn slice<'a, T>(data: *const T, n: usize, argument: &str) -> Result<&'a [T], CallError> {
    if n == 0 {
        return Ok(&[]);
    }
    check_array(data, n, argument)?;
    // SAFETY: checked non-null and aligned; the length is the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(data, n) })
}

/// A C output array as a mutable slice; `n == 0` is fine with any pointer.
///
/// # Safety
/// As for [`slice`], and nothing else may access the array during the call.
pub unsafe fn slice_mut<'a, T>(
    data: *mut T,
    n: usize,
    argument: &str,
) -> Result<&'a mut [T], CallError> {
    if n == 0 {
        return Ok(&mut []);
    }
    check_array(data, n, argument)?;
    // SAFETY: checked non-null and aligned; the length is the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts_mut(data, n) })
}

fn check_array<T>(data: *const T, n: usize, argument: &str) -> Result<(), CallError> {
    if data.is_null() {
        return Err(format!(
            "{argument} is a null pointer, but {n} elements were announced"
        ));
    }
    if !data.is_aligned() {
        return Err(format!("{argument} is not aligned for its type"));
    }
    if n > isize::MAX as usize / std::mem::size_of::<T>().max(1) {
        return Err(format!(
            "{argument}: {n} elements is more than memory can hold"
        ));
    }
    Ok(())
}
