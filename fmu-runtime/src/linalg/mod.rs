//! Linear algebra the integrator needs beyond nalgebra's dense factorizations.
//!
//! - [`block_lu`]: [`BlockMatrix`], a square matrix of dense blocks on a sparse pattern (the
//!   iteration matrix of a scene of many bodies), and its [`BlockLu`] factorization.

pub mod block_lu;

pub use block_lu::{BlockLu, BlockMatrix, Singular};
