//! The iteration matrix J = ∂F/∂y + c_j·∂F/∂ẏ that the integrator's Newton iteration solves
//! with.
//!
//! - [`free_bodies`]: exact, from the derivatives of the equations, for scenes of free bodies
//!   whose contact pairs have a derivative ([`contact`]); one residual evaluation per matrix.
//! - [`grouped`]: grouped difference quotients over the branches of any tree mechanism without
//!   loops (the bodies hanging from the world and what hangs from them); one residual
//!   evaluation per state of the widest branch and per colour of coupled branches.
//! - Mechanisms with loops: IDA's own difference quotients, one evaluation per state.

pub mod contact;
mod free_bodies;
mod grouped;

pub use free_bodies::FreeBodies;
pub use grouped::Branches;
