//! One RAII owner per SUNDIALS handle. Each `Drop` frees exactly its own handle; the owner
//! ([`Ida`](super::Ida)) declares its fields so that they drop in the order SUNDIALS needs:
//! the IDA memory first, then the linear solver and the matrix it uses, the vectors, and the
//! context last.

use std::ffi::c_void;
use std::ptr;

use sundials_sys as sys;

use super::error::{check_flag, FailureContext, FlagKind, IdaError};

/// Owns a `SUNContext` (created with `SUN_COMM_NULL`).
#[derive(Debug)]
pub(crate) struct Context {
    raw: sys::SUNContext,
}

impl Context {
    pub(crate) fn new() -> Result<Self, IdaError> {
        let mut raw: sys::SUNContext = ptr::null_mut();
        // SAFETY: `raw` is a valid out-pointer; SUN_COMM_NULL is the serial communicator.
        let flag = unsafe { sys::SUNContext_Create(sys::SUN_COMM_NULL, &mut raw) };
        check_flag(
            FlagKind::Sun,
            "SUNContext_Create",
            flag,
            FailureContext::nan,
        )?;
        if raw.is_null() {
            return Err(IdaError::Allocation {
                call: "SUNContext_Create",
            });
        }
        Ok(Context { raw })
    }

    pub(crate) fn as_raw(&self) -> sys::SUNContext {
        self.raw
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: `raw` came from SUNContext_Create and is freed once; every object created
        // with it was dropped before (field order of the owner). The returned code only reports
        // a null context, which cannot happen here, so it is deliberately ignored.
        let _ = unsafe { sys::SUNContext_Free(&mut self.raw) };
    }
}

/// Owns a serial `N_Vector` of known length.
#[derive(Debug)]
pub(crate) struct NVector {
    raw: sys::N_Vector,
    len: usize,
}

impl NVector {
    /// A new vector with its own data, initialised from `values`.
    pub(crate) fn from_slice(values: &[f64], ctx: &Context) -> Result<Self, IdaError> {
        let len = sys::sunindextype::try_from(values.len())
            .map_err(|_| IdaError::invalid("N_VNew_Serial", "vector too long"))?;
        // SAFETY: the context is valid; the length is non-negative.
        let raw = unsafe { sys::N_VNew_Serial(len, ctx.as_raw()) };
        if raw.is_null() {
            return Err(IdaError::Allocation {
                call: "N_VNew_Serial",
            });
        }
        let mut v = NVector {
            raw,
            len: values.len(),
        };
        v.as_mut_slice()?.copy_from_slice(values);
        Ok(v)
    }

    pub(crate) fn as_raw(&self) -> sys::N_Vector {
        self.raw
    }

    pub(crate) fn as_slice(&self) -> &[f64] {
        // SAFETY: `raw` is a valid serial vector that owns `len` contiguous f64 values;
        // the borrow of `self` keeps it alive and IDA only writes it inside `&mut self` calls.
        let data = unsafe { sys::N_VGetArrayPointer(self.raw) };
        if data.is_null() || self.len == 0 {
            return &[];
        }
        // SAFETY: non-null, `len` initialised values, aligned (allocated by SUNDIALS as f64).
        unsafe { std::slice::from_raw_parts(data, self.len) }
    }

    pub(crate) fn as_mut_slice(&mut self) -> Result<&mut [f64], IdaError> {
        // SAFETY: as in `as_slice`; `&mut self` makes the access exclusive.
        let data = unsafe { sys::N_VGetArrayPointer(self.raw) };
        if self.len == 0 {
            return Ok(&mut []);
        }
        if data.is_null() {
            return Err(IdaError::Allocation {
                call: "N_VGetArrayPointer",
            });
        }
        // SAFETY: non-null, `len` initialised values, exclusive through `&mut self`.
        Ok(unsafe { std::slice::from_raw_parts_mut(data, self.len) })
    }
}

impl Drop for NVector {
    fn drop(&mut self) {
        // SAFETY: `raw` came from N_VNew_Serial/N_VMake_Serial and is destroyed once; IDA keeps
        // only its own clones, and the IDA memory is dropped before any vector.
        unsafe { sys::N_VDestroy(self.raw) };
    }
}

/// A serial `N_Vector` header over a caller's slice (no data of its own), for one call.
#[derive(Debug)]
pub(crate) struct BorrowedNVector<'a> {
    raw: sys::N_Vector,
    _data: std::marker::PhantomData<&'a mut [f64]>,
}

impl<'a> BorrowedNVector<'a> {
    pub(crate) fn new(data: &'a mut [f64], ctx: &Context) -> Result<Self, IdaError> {
        let len = sys::sunindextype::try_from(data.len())
            .map_err(|_| IdaError::invalid("N_VMake_Serial", "vector too long"))?;
        // SAFETY: `data` stays mutably borrowed for `'a`, longer than the header lives; a vector
        // made by N_VMake_Serial does not own (nor free) its data.
        let raw = unsafe { sys::N_VMake_Serial(len, data.as_mut_ptr(), ctx.as_raw()) };
        if raw.is_null() {
            return Err(IdaError::Allocation {
                call: "N_VMake_Serial",
            });
        }
        Ok(BorrowedNVector {
            raw,
            _data: std::marker::PhantomData,
        })
    }

    pub(crate) fn as_raw(&self) -> sys::N_Vector {
        self.raw
    }
}

impl Drop for BorrowedNVector<'_> {
    fn drop(&mut self) {
        // SAFETY: destroys the header only (own_data is false for N_VMake_Serial vectors).
        unsafe { sys::N_VDestroy(self.raw) };
    }
}

/// Owns a dense `SUNMatrix` (n × n).
#[derive(Debug)]
pub(crate) struct DenseMatrix {
    raw: sys::SUNMatrix,
}

impl DenseMatrix {
    pub(crate) fn new(n: usize, ctx: &Context) -> Result<Self, IdaError> {
        let n = sys::sunindextype::try_from(n)
            .map_err(|_| IdaError::invalid("SUNDenseMatrix", "matrix too large"))?;
        // SAFETY: valid context, non-negative size.
        let raw = unsafe { sys::SUNDenseMatrix(n, n, ctx.as_raw()) };
        if raw.is_null() {
            return Err(IdaError::Allocation {
                call: "SUNDenseMatrix",
            });
        }
        Ok(DenseMatrix { raw })
    }

    pub(crate) fn as_raw(&self) -> sys::SUNMatrix {
        self.raw
    }
}

impl Drop for DenseMatrix {
    fn drop(&mut self) {
        // SAFETY: created by SUNDenseMatrix, destroyed once, after the IDA memory and the linear
        // solver that referenced it.
        unsafe { sys::SUNMatDestroy(self.raw) };
    }
}

/// Owns a dense direct `SUNLinearSolver`.
#[derive(Debug)]
pub(crate) struct LinearSolver {
    raw: sys::SUNLinearSolver,
}

impl LinearSolver {
    pub(crate) fn dense(
        template: &NVector,
        matrix: &DenseMatrix,
        ctx: &Context,
    ) -> Result<Self, IdaError> {
        // SAFETY: all three handles are valid and of matching sizes (same n).
        let raw = unsafe { sys::SUNLinSol_Dense(template.as_raw(), matrix.as_raw(), ctx.as_raw()) };
        if raw.is_null() {
            return Err(IdaError::Allocation {
                call: "SUNLinSol_Dense",
            });
        }
        Ok(LinearSolver { raw })
    }

    pub(crate) fn as_raw(&self) -> sys::SUNLinearSolver {
        self.raw
    }
}

impl Drop for LinearSolver {
    fn drop(&mut self) {
        // SAFETY: created by SUNLinSol_Dense, freed once after the IDA memory. The code only
        // reports a null solver, so it is deliberately ignored.
        let _ = unsafe { sys::SUNLinSolFree(self.raw) };
    }
}

/// Owns the IDA integrator memory.
#[derive(Debug)]
pub(crate) struct IdaMem {
    raw: *mut c_void,
}

impl IdaMem {
    pub(crate) fn new(ctx: &Context) -> Result<Self, IdaError> {
        // SAFETY: valid context.
        let raw = unsafe { sys::IDACreate(ctx.as_raw()) };
        if raw.is_null() {
            return Err(IdaError::Allocation { call: "IDACreate" });
        }
        Ok(IdaMem { raw })
    }

    pub(crate) fn as_raw(&self) -> *mut c_void {
        self.raw
    }
}

impl Drop for IdaMem {
    fn drop(&mut self) {
        // SAFETY: created by IDACreate, freed once; IDAFree also frees the linear-solver
        // interface memory but not the SUNLinearSolver/SUNMatrix objects, which drop later.
        unsafe { sys::IDAFree(&mut self.raw) };
    }
}

/// Owns a heap value at a fixed address handed to C as `user_data`.
///
/// It is kept as a raw pointer (not a `Box`) so that C and Rust can both reach it without
/// violating `Box` uniqueness; Rust only forms references to it outside SUNDIALS calls.
#[derive(Debug)]
pub(crate) struct UserData<T> {
    raw: *mut T,
}

impl<T> UserData<T> {
    pub(crate) fn new(value: T) -> Self {
        UserData {
            raw: Box::into_raw(Box::new(value)),
        }
    }

    pub(crate) fn as_ptr(&self) -> *mut T {
        self.raw
    }

    pub(crate) fn get(&self) -> &T {
        // SAFETY: `raw` comes from Box::into_raw and lives until Drop; C only dereferences it
        // during SUNDIALS calls, which take `&mut` of the owner, so no such call runs while
        // this shared borrow exists.
        unsafe { &*self.raw }
    }

    pub(crate) fn get_mut(&mut self) -> &mut T {
        // SAFETY: as in `get`, and `&mut self` makes the borrow exclusive.
        unsafe { &mut *self.raw }
    }
}

impl<T> Drop for UserData<T> {
    fn drop(&mut self) {
        // SAFETY: `raw` came from Box::into_raw and is reclaimed exactly once, after every
        // SUNDIALS object that could call back with it has been freed.
        drop(unsafe { Box::from_raw(self.raw) });
    }
}
