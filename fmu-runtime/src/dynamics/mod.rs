//! (4) The DAE residual f(ẏ, y, t) of the mechanism: a forward kinematics pass and a backward
//! inverse-dynamics pass, O(n) in the number of bodies; consistent start derivatives; the
//! evaluation of output frames at communication points.

mod articulated;
pub mod contacts;
mod drive;
pub mod end_stops;
mod exact_sum;
mod initial;
mod jacobian;
mod kinematics;
mod loops;
mod mechanism;
mod pairs;
mod reactions;
mod residual;

pub use crate::assembly::JointStart;
pub use drive::{Coupling, Drive, DrivePart};
pub use exact_sum::ExactSum;
pub use initial::{
    assemble, closure_drift, consistent_derivatives, explicit_derivatives, project_onto_loops,
    stabilised_derivatives, AssemblyError, SingularMassMatrix, ASSEMBLY_TOLERANCE, RANK_TOLERANCE,
};
pub use jacobian::{
    ArticulatedIteration, ArticulatedIterationFactors, Branches, ExactJacobian, FreeBodies,
    TreeJacobian,
};
#[cfg(test)]
pub(crate) use kinematics::test_motions;
pub use kinematics::{BodyMotion, JointCoordinates, ScalarCoordinates};
pub use loops::{ConstraintRow, Cut, RowKind, RowValue};
pub use mechanism::{Body, BodyJoint, ForceLink, Mechanism, WORLD_BODY};
pub use reactions::joint_reaction;
pub use residual::{kinematics, quaternion_rate, residual, FlangeInputs, Penetrating, Workspace};

#[cfg(test)]
mod tests;
