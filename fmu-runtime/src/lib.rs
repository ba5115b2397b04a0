//! fmu3d's engine: a 3D mechanical assembly as a DAE solved by SUNDIALS IDA.
//!
//! The data flow, one module per stage:
//!
//! 1. [`model`]: the model file → a typed, evaluated [`model::ModelSpec`]; [`mesh`]: the STL
//!    and OBJ files of its mesh shapes, their mass properties and convex hulls.
//! 2. [`scene`]: Object3D arena, joints and force elements.
//! 3. [`assembly`]: super-objects (rigidly attached objects merged, by the augmented depth-first
//!    search), the spanning tree of joints, the state layout.
//! 4. [`dynamics`]: the DAE residual f(ẏ, y, t) by a forward kinematics pass and a backward
//!    inverse-dynamics pass, O(n) in the number of bodies.
//! 5. [`ida`]: SUNDIALS IDA behind a safe API, with [`linalg`]'s block-sparse LU for scenes of
//!    many bodies.
//! 6. [`simulation`]: model → scene → assembly → DAE → IDA; stepping to a time.
//! 7. [`fmi2`]: the FMI 2.0 Co-Simulation C API over a simulation; [`fmu`]: the facts the
//!    packager writes into an FMU and the runtime checks.

pub mod assembly;
pub mod collision;
pub mod dynamics;
pub mod fmi2;
pub mod fmu;
pub mod ida;
pub mod linalg;
pub mod mesh;
pub mod model;
pub mod scene;
pub mod simulation;
