//! (3) From a scene to a mechanism the dynamics can evaluate: super-objects ([NO19] §4), the
//! spanning tree of joints, merged mass properties, the state layout, the variable table and the visual description.

mod collision;
pub mod declaration;
mod joint_model;
mod mass;
mod state;
mod super_objects;
mod variables;
mod visual;

pub use collision::{Collider, CollisionPair, CollisionSet, ContactReport, Fade, Role};
pub use joint_model::{CutAxis, CutJointKind, Follower, JointStart, TreeJoint, TreeJointKind};
pub use mass::MergedMass;
pub use state::{DriveStates, JointStates, StateLayout};
pub use super_objects::{Assembly, CutJoint, Member, SuperObject};
pub use variables::{
    Causality, ContactQuantity, DriveQuantity, FrameQuantity, Variability, Variable, VariableKind,
    VariableTable,
};
pub use visual::{VisualBody, VisualScene, VisualShape, DEFAULT_COLOR};
