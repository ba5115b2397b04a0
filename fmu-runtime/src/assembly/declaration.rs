//! How each variable of the table is declared to an FMI importer: causality, variability,
//! initial and start (FMI 2.0.4 §2.2.7), and what each output depends on (`<ModelStructure>`,
//! §2.2.8): the inputs that act on it within a step, and the continuous states it is a function
//! of. The packager writes modelDescription.xml from these; the runtime's variable table is
//! their one source.
//!
//! | variable | causality | variability | initial | start |
//! |---|---|---|---|---|
//! | parameter | `parameter` | `fixed` | `exact` | the parameter's value |
//! | structural parameter | `calculatedParameter` | `fixed` | `calculated` | none |
//! | input | `input` | `continuous` | (not allowed) | the start value |
//! | output | `output` | `continuous` | `calculated` | none |
//! | state or derivative no output reports | `local` | `continuous` | `calculated` | none |

use super::collision::CollisionSet;
use super::state::StateLayout;
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

/// What the knowns of the outputs are read from: the variable table and the structure of the
/// model whose states it reports.
#[derive(Debug, Clone, Copy)]
pub struct Structure<'a> {
    pub table: &'a VariableTable,
    pub scene: &'a Scene,
    pub assembly: &'a Assembly,
    pub layout: &'a StateLayout,
    pub collisions: &'a CollisionSet,
}

/// The knowns output `index` depends on (FMI 2.0.4 §2.2.8: the inputs and the continuous
/// states), as variable indices, ascending; `None`, written as no `dependencies` attribute,
/// where it may depend on every one of them: accelerations, drive and reaction forces and
/// torques, through the mass matrix and the contacts. The inputs are [`dependencies`]'; of the
/// states:
///
/// - a joint's angle or speed is its own state;
/// - a frame's position and orientation depend on the position coordinates of the joints
///   between its body and the world, its velocities on their speeds too; a cut-joint's
///   coordinates likewise on the joints above both of its frames;
/// - a contact's distance and penetration on the position coordinates above both bodies of
///   every pair it reports, its normal force on their speeds too;
/// - a drive's quantities on the drive's own states (parts, current, controller) and the states
///   of the joint it drives.
///
/// `inputs`: [`input_indices`].
pub fn output_dependencies(
    structure: &Structure,
    inputs: &[usize],
    index: usize,
) -> Option<Vec<usize>> {
    let Structure {
        table,
        scene,
        assembly,
        layout,
        collisions,
    } = *structure;
    // Indices in y of the coordinates (and speeds) of the joints above `bodies`.
    let above = |bodies: &[usize], with_speed: bool| -> Vec<usize> {
        let mut states = Vec::new();
        for &body in bodies {
            for b in bodies_to_world(assembly, body) {
                if let Some(joint) = layout.joints[b] {
                    states.extend(joint.positions());
                    if with_speed {
                        states.extend(joint.speeds());
                    }
                }
            }
        }
        states
    };
    let states: Vec<usize> = match table.variables[index].kind {
        VariableKind::JointAcceleration(_)
        | VariableKind::JointForce(_)
        | VariableKind::JointReaction { .. }
        | VariableKind::StateDerivative(_)
        | VariableKind::Drive {
            quantity: DriveQuantity::FlangeTorque,
            ..
        } => return None,
        VariableKind::Parameter(_) | VariableKind::DriveInput(_) => Vec::new(),
        VariableKind::JointPosition(body) => layout.joints[body]
            .map(|joint| joint.positions().collect())
            .unwrap_or_default(),
        VariableKind::JointSpeed(body) => layout.joints[body]
            .map(|joint| joint.speeds().collect())
            .unwrap_or_default(),
        VariableKind::State(k) => vec![k],
        VariableKind::Frame {
            object, quantity, ..
        } => above(
            &[assembly.placement[object.0].0],
            matches!(
                quantity,
                FrameQuantity::Velocity | FrameQuantity::AngularVelocity
            ),
        ),
        VariableKind::CutJointPosition(cut, _) | VariableKind::CutJointSpeed(cut, _) => {
            let cut_joint = &assembly.cut_joints[cut];
            above(
                &[cut_joint.body_a, cut_joint.body_b],
                matches!(table.variables[index].kind, VariableKind::CutJointSpeed(..)),
            )
        }
        VariableKind::Contact { report, quantity } => {
            let bodies: Vec<usize> = collisions.reports[report]
                .pairs
                .iter()
                .flat_map(|&(a, b)| [collisions.colliders[a].body, collisions.colliders[b].body])
                .collect();
            above(&bodies, quantity == ContactQuantity::NormalForce)
        }
        VariableKind::Drive { drive, .. } => {
            let own = &layout.drives[drive];
            let mut states: Vec<usize> = own
                .parts
                .iter()
                .flat_map(|part| part.positions().chain(part.speeds()))
                .chain(own.current)
                .chain(own.controller)
                .collect();
            let driven = assembly.body_of_joint(scene.drives[drive].1);
            if let Some(joint) = driven.and_then(|body| layout.joints[body]) {
                states.extend(joint.positions().chain(joint.speeds()));
            }
            states
        }
    };
    let mut known = dependencies(table, assembly, inputs, index);
    known.extend(states.into_iter().map(|k| table.states[k].value));
    known.sort_unstable();
    known.dedup();
    Some(known)
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
