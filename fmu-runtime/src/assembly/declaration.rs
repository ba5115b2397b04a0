//! How each variable of the table is declared to an FMI importer: causality, variability,
//! initial and start (FMI 2.0.4 §2.2.7), and the direct dependencies of outputs on inputs
//! (`<ModelStructure>`). The packager writes modelDescription.xml from these; the runtime's
//! variable table is their one source.
//!
//! | variable | causality | variability | initial | start |
//! |---|---|---|---|---|
//! | parameter | `parameter` | `fixed` | `exact` | the parameter's value |
//! | structural parameter | `calculatedParameter` | `fixed` | `calculated` | none |
//! | input | `input` | `continuous` | (not allowed) | the start value |
//! | output | `output` | `continuous` | `calculated` | none |
//! | state or derivative no output reports | `local` | `continuous` | `calculated` | none |

use super::super_objects::Assembly;
use super::variables::{
    Causality, ContactQuantity, DriveQuantity, FrameQuantity, VariableKind, VariableTable,
};
use crate::scene::Scene;

/// How a variable is declared in `<ModelVariables>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Declaration {
    pub causality: &'static str,
    pub variability: &'static str,
    pub initial: Option<&'static str>,
    /// Whether `start` is written.
    pub start: bool,
}

/// The FMI 2.0 declaration of variable `index` of the simulation's table.
pub fn declaration(table: &VariableTable, scene: &Scene, index: usize) -> Declaration {
    let variable = &table.variables[index];
    match (variable.causality, variable.kind) {
        (Causality::Parameter, VariableKind::Parameter(p)) if scene.parameters[p].structural => {
            Declaration {
                causality: "calculatedParameter",
                variability: "fixed",
                initial: Some("calculated"),
                start: false,
            }
        }
        (Causality::Parameter, _) => Declaration {
            causality: "parameter",
            variability: "fixed",
            initial: Some("exact"),
            start: true,
        },
        (Causality::Input, _) => Declaration {
            causality: "input",
            variability: "continuous",
            initial: None,
            start: true,
        },
        (causality @ (Causality::Output | Causality::Local), _) => Declaration {
            causality: if causality == Causality::Output {
                "output"
            } else {
                "local"
            },
            variability: "continuous",
            initial: Some("calculated"),
            start: false,
        },
    }
}

/// The inputs (value references) that output `index` depends on directly, within one
/// communication step, ascending:
///
/// - a joint acceleration output (force-driven joint) and a drive torque (force) output
///   (motion-driven joint) depend on every input: through the mass matrix, the acceleration of
///   one joint depends on the drive torques and prescribed motions of all joints;
/// - a joint angle or speed output (passive or force-driven joint) is a state of the integrator
///   and depends on no input;
/// - a frame's position and orientation depend on the prescribed angle (position) input of every
///   motion-driven joint between the frame's body and the world, its velocity and angular
///   velocity on those joints' angle and speed inputs.
///
/// `inputs`: the indices of the input variables ([`input_indices`], found once for all the
/// outputs: a scan of the table per output would be quadratic in the model's size).
pub fn dependencies(
    table: &VariableTable,
    assembly: &Assembly,
    inputs: &[usize],
    index: usize,
) -> Vec<usize> {
    let table = &table.variables;
    let inputs = || inputs.iter().map(|&i| (i, &table[i]));
    // The prescribed positions (and speeds) of the motion-driven joints on a path of bodies.
    let motion_inputs_on = |path: &[usize], with_speed: bool| -> Vec<usize> {
        inputs()
            .filter(|(_, v)| match v.kind {
                VariableKind::JointPosition(body) => path.contains(&body),
                VariableKind::JointSpeed(body) => with_speed && path.contains(&body),
                _ => false,
            })
            .map(|(i, _)| i)
            .collect()
    };
    match table[index].kind {
        // Reactions depend on accelerations, so on every input.
        VariableKind::JointAcceleration(_)
        | VariableKind::JointForce(_)
        | VariableKind::JointReaction { .. } => inputs().map(|(i, _)| i).collect(),
        VariableKind::Parameter(_)
        | VariableKind::JointPosition(_)
        | VariableKind::JointSpeed(_)
        | VariableKind::DriveInput(_)
        | VariableKind::State(_) => Vec::new(),
        // An acceleration: through the mass matrix, on every input.
        VariableKind::StateDerivative(_) => inputs().map(|(i, _)| i).collect(),
        // The flange torque balances the accelerations, so it depends on every input; the
        // electrical power v·i on the motor's voltage input; the other drive outputs are states
        // (angles, speeds, the current) or functions of them alone.
        VariableKind::Drive { drive, quantity } => match quantity {
            DriveQuantity::FlangeTorque => inputs().map(|(i, _)| i).collect(),
            DriveQuantity::ElectricalPower => inputs()
                .filter(|(_, v)| v.kind == VariableKind::DriveInput(drive))
                .map(|(i, _)| i)
                .collect(),
            _ => Vec::new(),
        },
        // A contact depends on the positions of the bodies (its force also on their speeds):
        // of the inputs, on the prescribed motions.
        VariableKind::Contact { quantity, .. } => inputs()
            .filter(|(_, v)| match v.kind {
                VariableKind::JointPosition(_) => true,
                VariableKind::JointSpeed(_) => quantity == ContactQuantity::NormalForce,
                _ => false,
            })
            .map(|(i, _)| i)
            .collect(),
        // A cut-joint's coordinates follow from the motion of its two frames.
        VariableKind::CutJointPosition(cut, _) | VariableKind::CutJointSpeed(cut, _) => {
            let cut_joint = &assembly.cut_joints[cut];
            let mut path = bodies_to_world(assembly, cut_joint.body_a);
            path.extend(bodies_to_world(assembly, cut_joint.body_b));
            let with_speed = matches!(table[index].kind, VariableKind::CutJointSpeed(..));
            motion_inputs_on(&path, with_speed)
        }
        VariableKind::Frame {
            object, quantity, ..
        } => {
            let path = bodies_to_world(assembly, assembly.placement[object.0].0);
            let with_speed = matches!(
                quantity,
                FrameQuantity::Velocity | FrameQuantity::AngularVelocity
            );
            motion_inputs_on(&path, with_speed)
        }
    }
}

/// The indices of the input variables, in table order.
pub fn input_indices(table: &VariableTable) -> Vec<usize> {
    let table = &table.variables;
    (0..table.len())
        .filter(|&i| table[i].causality == Causality::Input)
        .collect()
}

/// The super-object `body` and its ancestors up to (without) the world.
fn bodies_to_world(assembly: &Assembly, body: usize) -> Vec<usize> {
    let mut path = Vec::new();
    let mut current = Some(body);
    while let Some(b) = current {
        if b == 0 || path.contains(&b) {
            break;
        }
        path.push(b);
        current = assembly.super_objects[b].parent;
    }
    path
}
