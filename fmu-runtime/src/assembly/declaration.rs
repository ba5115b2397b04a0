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

/// What a variable is computed from: the one rule the inputs ([`dependencies`]) and the states
/// ([`output_dependencies`]) an output depends on are both read from.
enum Source {
    /// Every input and every state: an acceleration, through the mass matrix, depends on the
    /// drive torques and prescribed motions of all joints and on the contacts; the drive and
    /// reaction forces and torques balance the accelerations.
    Everything,
    /// The motion of `bodies` (their positions; their velocities too `with_speed`): the
    /// coordinates of the joints between them and the world, the prescribed positions (and
    /// speeds) of the motion-driven ones among them; and besides these the `inputs` and `states`
    /// (table and state indices) of the variable's own element.
    Motion {
        bodies: Vec<usize>,
        with_speed: bool,
        inputs: Vec<usize>,
        states: Vec<usize>,
    },
}

impl Source {
    /// The element's own inputs and states alone.
    fn own(inputs: Vec<usize>, states: Vec<usize>) -> Source {
        Source::Motion {
            bodies: Vec::new(),
            with_speed: false,
            inputs,
            states,
        }
    }

    /// The motion of `bodies` alone.
    fn motion(bodies: Vec<usize>, with_speed: bool) -> Source {
        Source::Motion {
            bodies,
            with_speed,
            inputs: Vec::new(),
            states: Vec::new(),
        }
    }

    fn of(structure: &Structure, inputs: &[usize], index: usize) -> Source {
        let Structure {
            table,
            scene,
            assembly,
            layout,
            collisions,
        } = *structure;
        let kind = table.variables[index].kind;
        match kind {
            VariableKind::JointAcceleration(_)
            | VariableKind::JointForce(_)
            | VariableKind::JointReaction { .. }
            | VariableKind::StateDerivative(_)
            | VariableKind::Drive {
                quantity: DriveQuantity::FlangeTorque,
                ..
            } => Source::Everything,
            VariableKind::Parameter(_) | VariableKind::DriveInput(_) => Source::own(vec![], vec![]),
            // A joint's angle and speed are states of the integrator, not functions of inputs.
            VariableKind::JointPosition(body) => Source::own(
                vec![],
                layout.joints[body]
                    .map(|joint| joint.positions().collect())
                    .unwrap_or_default(),
            ),
            VariableKind::JointSpeed(body) => Source::own(
                vec![],
                layout.joints[body]
                    .map(|joint| joint.speeds().collect())
                    .unwrap_or_default(),
            ),
            VariableKind::State(k) => Source::own(vec![], vec![k]),
            VariableKind::Frame {
                object, quantity, ..
            } => Source::motion(
                vec![assembly.placement[object.0].0],
                matches!(
                    quantity,
                    FrameQuantity::Velocity | FrameQuantity::AngularVelocity
                ),
            ),
            // A cut-joint's coordinates follow from the motion of its two frames.
            VariableKind::CutJointPosition(cut, _) | VariableKind::CutJointSpeed(cut, _) => {
                let cut_joint = &assembly.cut_joints[cut];
                Source::motion(
                    vec![cut_joint.body_a, cut_joint.body_b],
                    matches!(kind, VariableKind::CutJointSpeed(..)),
                )
            }
            // A contact's distance and penetration follow from the positions of the bodies of
            // its pairs, its normal force from their velocities too.
            VariableKind::Contact { report, quantity } => Source::motion(
                collisions.reports[report]
                    .pairs
                    .iter()
                    .flat_map(|&(a, b)| {
                        [collisions.colliders[a].body, collisions.colliders[b].body]
                    })
                    .collect(),
                quantity == ContactQuantity::NormalForce,
            ),
            // A drive's quantities are its own states (parts, current, controller) and those of
            // the joint it drives, or functions of them; the electrical power v·i takes the
            // motor's voltage input too.
            VariableKind::Drive { drive, quantity } => {
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
                let voltage = match quantity {
                    DriveQuantity::ElectricalPower => inputs
                        .iter()
                        .copied()
                        .filter(|&i| table.variables[i].kind == VariableKind::DriveInput(drive))
                        .collect(),
                    _ => Vec::new(),
                };
                Source::own(voltage, states)
            }
        }
    }
}

/// The inputs (variable indices) that output `index` depends on directly, within one
/// communication step, ascending ([`Source`]): every input for accelerations and for the drive
/// and reaction forces and torques; for a frame, a cut-joint or a contact, the prescribed
/// position (and, for velocities and forces, speed) of every motion-driven joint between its
/// bodies and the world; the voltage for a motor's electrical power; none for the joints' and
/// drives' states.
///
/// `inputs`: the indices of the input variables ([`input_indices`], found once for all the
/// outputs: a scan of the table per output would be quadratic in the model's size).
pub fn dependencies(structure: &Structure, inputs: &[usize], index: usize) -> Vec<usize> {
    let source = Source::of(structure, inputs, index);
    input_dependencies(structure, inputs, &source)
}

/// The inputs `source` names: every one, or the motion inputs on its bodies' paths to the world
/// and its own element's, ascending.
fn input_dependencies(structure: &Structure, inputs: &[usize], source: &Source) -> Vec<usize> {
    let table = &structure.table.variables;
    match source {
        Source::Everything => inputs.to_vec(),
        Source::Motion {
            bodies,
            with_speed,
            inputs: own,
            ..
        } => {
            let path = paths_to_world(structure.assembly, bodies);
            let mut known: Vec<usize> = inputs
                .iter()
                .copied()
                .filter(|&i| match table[i].kind {
                    VariableKind::JointPosition(body) => path.contains(&body),
                    VariableKind::JointSpeed(body) => *with_speed && path.contains(&body),
                    _ => false,
                })
                .chain(own.iter().copied())
                .collect();
            known.sort_unstable();
            known.dedup();
            known
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
/// where it may depend on every one of them ([`Source::Everything`]). The inputs are
/// [`dependencies`]'; the states are the coordinates of the joints between the output's bodies
/// and the world (their speeds too where the output is a velocity or a force), and the states of
/// its own element: a joint's own, a drive's own with those of the joint it drives.
///
/// `inputs`: [`input_indices`].
pub fn output_dependencies(
    structure: &Structure,
    inputs: &[usize],
    index: usize,
) -> Option<Vec<usize>> {
    let source = Source::of(structure, inputs, index);
    let Source::Motion {
        bodies,
        with_speed,
        states: own,
        ..
    } = &source
    else {
        return None;
    };
    let mut states = own.clone();
    for body in paths_to_world(structure.assembly, bodies) {
        if let Some(joint) = structure.layout.joints[body] {
            states.extend(joint.positions());
            if *with_speed {
                states.extend(joint.speeds());
            }
        }
    }
    let table = structure.table;
    let mut known = input_dependencies(structure, inputs, &source);
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

/// The super-objects `bodies` and their ancestors up to (without) the world, each once.
fn paths_to_world(assembly: &Assembly, bodies: &[usize]) -> Vec<usize> {
    let mut path: Vec<usize> = bodies
        .iter()
        .flat_map(|&body| bodies_to_world(assembly, body))
        .collect();
    path.sort_unstable();
    path.dedup();
    path
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
