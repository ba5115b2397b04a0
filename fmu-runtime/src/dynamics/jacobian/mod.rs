//! The iteration matrix J = ∂F/∂y + c_j·∂F/∂ẏ that the integrator's Newton iteration solves
//! with.
//!
//! - [`free_bodies`]: exact, from the derivatives of the equations, for scenes of free bodies
//!   whose contact pairs have a derivative ([`contact`]); one residual evaluation per matrix.
//! - [`tree`]: exact, column by column in tangent mode, for any tree (revolute, prismatic and
//!   free joints, force elements, drive trains, such contact pairs).
//! - [`articulated_iteration`]: not exact, for long trees of revolute and prismatic joints
//!   alone: c_j·M with the joints' own springs and dampers, factored in O(n) by the
//!   articulated-body algorithm (the exact one of a tree is dense).
//! - [`grouped`]: grouped difference quotients over the branches of any tree mechanism without
//!   loops (the bodies hanging from the world and what hangs from them); one residual
//!   evaluation per state of the widest branch and per colour of coupled branches.
//! - Mechanisms with loops, or contact pairs without a derivative: the difference quotients
//!   (grouped, or IDA's own, one evaluation per state).

mod articulated_iteration;
pub mod contact;
mod free_bodies;
mod grouped;
#[cfg(test)]
pub(super) mod test_support;
mod tree;

pub use articulated_iteration::{ArticulatedIteration, ArticulatedIterationFactors};
pub use free_bodies::FreeBodies;
pub use grouped::Branches;
pub use tree::TreeJacobian;

use super::mechanism::Mechanism;
use super::residual::{FlangeInputs, Workspace};
use crate::ida::JacobianMatrix;
use contact::Unsupported;

/// States × bodies beyond which a tree without loops is left to the grouped difference
/// quotients (a chain of 1 000 links: 2 000 × 1 001).
pub const TREE_WORK_LIMIT: usize = 4_000_000;

/// The exact Jacobian of a mechanism that has one.
#[derive(Debug, Clone, PartialEq)]
pub enum ExactJacobian {
    FreeBodies(FreeBodies),
    Tree(TreeJacobian),
}

impl ExactJacobian {
    /// The exact Jacobian that applies to `mechanism`, if any. A tree's columns each visit
    /// every body: beyond [`TREE_WORK_LIMIT`] states × bodies, a mechanism without loops (a scene
    /// of many separate bodies with a force element, say) is left to the grouped difference
    /// quotients, whose work follows the coupled bodies.
    pub fn new(mechanism: &Mechanism) -> Option<ExactJacobian> {
        let affordable = !mechanism.rows.is_empty()
            || mechanism.len().saturating_mul(mechanism.bodies.len()) <= TREE_WORK_LIMIT;
        FreeBodies::new(mechanism)
            .map(ExactJacobian::FreeBodies)
            .or_else(|| {
                TreeJacobian::new(mechanism)
                    .filter(|_| affordable)
                    .map(ExactJacobian::Tree)
            })
    }

    #[allow(clippy::too_many_arguments)]
    /// Fills `jac` with J at (y, ẏ), whose residual `ws` holds. [`Unsupported`] leaves `jac`
    /// as it was, for the difference quotients.
    pub fn jacobian(
        &self,
        mechanism: &Mechanism,
        inputs: &FlangeInputs,
        ws: &Workspace,
        y: &[f64],
        yp: &[f64],
        cj: f64,
        jac: &mut JacobianMatrix<'_>,
    ) -> Result<(), Unsupported> {
        match self {
            ExactJacobian::FreeBodies(free) => free.jacobian(mechanism, ws, y, cj, jac),
            ExactJacobian::Tree(tree) => tree.jacobian(mechanism, inputs, ws, y, yp, cj, jac),
        }
    }

    /// The free bodies, for a scene of them.
    pub fn free_bodies(&self) -> Option<&FreeBodies> {
        match self {
            ExactJacobian::FreeBodies(free) => Some(free),
            ExactJacobian::Tree(_) => None,
        }
    }
}
