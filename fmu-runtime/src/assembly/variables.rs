//! The variable table: every quantity the model exposes, with its Modelica name, SI unit,
//! causality and how to compute it. It is the one list that both the simulation's CSV and the
//! FMU's modelDescription.xml are made from; a variable's value reference is its index.

use super::collision::CollisionSet;
use super::joint_model::TreeJointKind;
use super::state::StateLayout;
use super::super_objects::Assembly;
use crate::model::units::Kind;
use crate::model::{AxisMotion, DriveElement, DriveSource, FlangeMode, JointSpec, MotorVoltage};
use crate::scene::{ObjectHandle, Scene};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Causality {
    Parameter,
    Input,
    Output,
    /// Neither input nor output: a continuous state of Model Exchange, or its derivative, that
    /// no output reports already.
    Local,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variability {
    /// Set before initialization only.
    Fixed,
    Continuous,
}

/// The quantity of a frame that is reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameQuantity {
    /// Position of the origin in world coordinates [m].
    Position,
    /// Velocity of the origin in world coordinates [m/s].
    Velocity,
    /// Orientation as Modelica's quaternion `Q` (Q[1:3] = n·sin(φ/2), Q[4] = cos(φ/2)) of the
    /// rotation that resolves world vectors in the frame (Modelica's `R.T`).
    Quaternion,
    /// Angular velocity in world coordinates [rad/s].
    AngularVelocity,
}

/// What a variable stands for, and so how its value is read or written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VariableKind {
    /// `scene.parameters[index]`.
    Parameter(usize),
    /// Joint coordinate (angle or position) of the super-object with this index.
    JointPosition(usize),
    /// Its first derivative.
    JointSpeed(usize),
    /// Its second derivative.
    JointAcceleration(usize),
    /// The torque (force) the drive applies on the joint's flange.
    JointForce(usize),
    /// Coordinate of an axis (second index) of the cut-joint with this index in
    /// [`Assembly::cut_joints`], computed from the world motion of its two frames (an angle
    /// continuous over turns).
    CutJointPosition(usize, usize),
    /// Its first derivative.
    CutJointSpeed(usize, usize),
    /// Component 0..=2 of the force, 3..=5 of the torque the joint with this scene index
    /// transmits (`output_forces`): exerted by the `from` side on the `to` side at the origin of
    /// `to`, resolved in the `from` frame.
    JointReaction { joint: usize, component: usize },
    Frame {
        object: ObjectHandle,
        quantity: FrameQuantity,
        component: usize,
    },
    /// A quantity of the contact `CollisionSet::reports[report]`.
    Contact {
        report: usize,
        quantity: ContactQuantity,
    },
    /// The source input of the drive with this index in `Scene::drives`: the torque (force) of
    /// a torque source, the voltage of a motor.
    DriveInput(usize),
    /// A quantity of the drive with this index in `Scene::drives`.
    Drive {
        drive: usize,
        quantity: DriveQuantity,
    },
    /// Entry k of the DAE vector y: a continuous state of Model Exchange.
    State(usize),
    /// Entry k of ẏ: the derivative of [`VariableKind::State`] k.
    StateDerivative(usize),
}

/// One continuous state of Model Exchange: the variables (indices in the table) that report it
/// and its derivative. An output that reports exactly y_k (a joint's angle, speed) is the state
/// itself; the others are [`Causality::Local`] variables of kind [`VariableKind::State`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContinuousState {
    pub value: usize,
    pub derivative: usize,
}

/// What a drive output reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DriveQuantity {
    /// Armature voltage given as an expression of time or set by the speed controller [V].
    Voltage,
    /// Reference speed of the speed controller [rad/s].
    ReferenceSpeed,
    /// Armature current [A].
    Current,
    /// Motor speed [rad/s].
    MotorSpeed,
    /// Electromagnetic torque k·i [N.m].
    MotorTorque,
    /// Electrical power v·i taken by the motor [W].
    ElectricalPower,
    /// Torque (force) the drive exerts on the joint's flange.
    FlangeTorque,
    /// Angle (position) of the flange-side end of a part before a compliant element.
    PartPosition(usize),
    /// Its speed.
    PartSpeed(usize),
}

/// What a contact output reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContactQuantity {
    /// Signed distance of the two shapes (negative while penetrating) [m].
    Distance,
    /// Penetration depth, 0 while apart [m].
    Penetration,
    /// Normal contact force, 0 while apart [N].
    NormalForce,
}

/// Where the coordinates of a joint's axes come from.
#[derive(Debug, Clone)]
enum CoordinateSource {
    /// The tree joints of these super-objects, with the index of the axis each moves.
    Tree(Vec<(usize, usize)>),
    /// The cut-joint with this index.
    Cut(usize),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Variable {
    pub name: String,
    pub description: String,
    /// What the value measures (its SI unit), `None` for a pure number.
    pub unit: Option<Kind>,
    pub causality: Causality,
    pub variability: Variability,
    pub kind: VariableKind,
    /// Start value for parameters and inputs.
    pub start: Option<f64>,
}

#[derive(Debug, Clone, Default)]
pub struct VariableTable {
    pub variables: Vec<Variable>,
    /// The continuous states of Model Exchange, in the order of y ([`StateLayout`]).
    pub states: Vec<ContinuousState>,
}

impl VariableTable {
    pub fn new(scene: &Scene, assembly: &Assembly, collisions: &CollisionSet) -> VariableTable {
        let mut variables = Vec::new();
        for (index, parameter) in scene.parameters.iter().enumerate() {
            variables.push(Variable {
                name: parameter.name.clone(),
                description: parameter.description.clone().unwrap_or_default(),
                unit: parameter.unit,
                causality: Causality::Parameter,
                variability: Variability::Fixed,
                kind: VariableKind::Parameter(index),
                start: Some(parameter.value),
            });
        }
        // Joints in the order the user declared them.
        let mut coordinates_of_joint = vec![None; scene.joints.len()];
        for (body, so) in assembly.super_objects.iter().enumerate() {
            if let Some(tree_joint) = &so.joint {
                let axes = coordinates_of_joint[tree_joint.joint.0]
                    .get_or_insert_with(|| CoordinateSource::Tree(Vec::new()));
                if let CoordinateSource::Tree(bodies) = axes {
                    bodies.push((tree_joint.axis, body));
                }
            }
        }
        for (index, cut) in assembly.cut_joints.iter().enumerate() {
            coordinates_of_joint[cut.joint.0] = Some(CoordinateSource::Cut(index));
        }
        for (joint, coordinates) in scene.joints.iter().zip(coordinates_of_joint) {
            let Some(coordinates) = coordinates else {
                continue;
            };
            joint_variables(&mut variables, &joint.spec, coordinates);
        }
        for (index, joint) in scene.joints.iter().enumerate() {
            if !joint.spec.output_forces {
                continue;
            }
            for component in 0..6 {
                let (symbol, unit, description) = if component < 3 {
                    (
                        "f_reaction",
                        Kind::Force,
                        "force the joint exerts on its `to` side, in `from` coordinates",
                    )
                } else {
                    ("t_reaction", Kind::Torque, "torque the joint exerts on its `to` side about the origin of `to`, in `from` coordinates")
                };
                variables.push(Variable {
                    name: format!("{}.{symbol}[{}]", joint.spec.name, component % 3 + 1),
                    description: description.to_string(),
                    unit: Some(unit),
                    causality: Causality::Output,
                    variability: Variability::Continuous,
                    kind: VariableKind::JointReaction {
                        joint: index,
                        component,
                    },
                    start: None,
                });
            }
        }
        for (index, (drive, _)) in scene.drives.iter().enumerate() {
            drive_variables(&mut variables, index, drive);
        }
        for (index, object) in scene.objects.iter().enumerate() {
            if !object.output {
                continue;
            }
            let frame = [
                (FrameQuantity::Position, "r", 3, Some(Kind::Length), "position of the frame's origin in world coordinates"),
                (FrameQuantity::Velocity, "v", 3, Some(Kind::Velocity), "velocity of the frame's origin in world coordinates"),
                (FrameQuantity::Quaternion, "Q", 4, None, "orientation quaternion (Modelica convention: resolves world vectors in the frame; Q[4] is the real part)"),
                (FrameQuantity::AngularVelocity, "w", 3, Some(Kind::AngularVelocity), "angular velocity of the frame in world coordinates"),
            ];
            for (quantity, symbol, count, unit, description) in frame {
                for component in 0..count {
                    variables.push(Variable {
                        name: format!("{}.{symbol}[{}]", object.name, component + 1),
                        description: description.to_string(),
                        unit,
                        causality: Causality::Output,
                        variability: Variability::Continuous,
                        kind: VariableKind::Frame {
                            object: ObjectHandle(index),
                            quantity,
                            component,
                        },
                        start: None,
                    });
                }
            }
        }
        for (report, contact) in collisions.reports.iter().enumerate() {
            let quantities = [
                (
                    ContactQuantity::Distance,
                    "distance",
                    Kind::Length,
                    "signed distance of the two shapes (negative while they penetrate)",
                ),
                (
                    ContactQuantity::Penetration,
                    "penetration",
                    Kind::Length,
                    "penetration depth (0 while apart)",
                ),
                (
                    ContactQuantity::NormalForce,
                    "f_n",
                    Kind::Force,
                    "normal contact force (0 while apart)",
                ),
            ];
            for (quantity, symbol, unit, description) in quantities {
                variables.push(Variable {
                    name: format!("{}.{symbol}", contact.name),
                    description: description.to_string(),
                    unit: Some(unit),
                    causality: Causality::Output,
                    variability: Variability::Continuous,
                    kind: VariableKind::Contact { report, quantity },
                    start: None,
                });
            }
        }
        let states = continuous_states(&mut variables, scene, assembly);
        VariableTable { variables, states }
    }

    pub fn outputs(&self) -> impl Iterator<Item = (usize, &Variable)> {
        self.variables
            .iter()
            .enumerate()
            .filter(|(_, v)| v.causality == Causality::Output)
    }

    pub fn find(&self, name: &str) -> Option<usize> {
        self.variables.iter().position(|v| v.name == name)
    }
}

/// The coordinate variables of one joint's axes (`rev.phi`, `cardan.phi_a`, …): outputs, or
/// inputs and the flange's torque (force) as its flange mode says; a joint moved by an expression
/// of time has outputs only. A cut-joint is passive (checked when the assembly is built): its
/// coordinates and speeds are outputs, like those of a passive joint of the spanning tree.
fn joint_variables(variables: &mut Vec<Variable>, spec: &JointSpec, coordinates: CoordinateSource) {
    let drive = spec.kind.drive();
    let (flange, prescribed) = (drive.flange, drive.motion.is_some());
    let axes = spec.kind.axes();
    let one_axis = axes.len() == 1;
    for (index, axis) in axes.iter().enumerate() {
        let turn = axis.motion == AxisMotion::Turn;
        let symbols = axis.names;
        let units = if turn {
            [
                Kind::Angle,
                Kind::AngularVelocity,
                Kind::AngularAcceleration,
                Kind::Torque,
            ]
        } else {
            [
                Kind::Length,
                Kind::Velocity,
                Kind::Acceleration,
                Kind::Force,
            ]
        };
        let start = [axis.q, axis.qd, 0.0, 0.0];
        let descriptions: [String; 4] = match (turn, one_axis) {
            (true, true) => [
                "rotation angle of the joint".into(),
                "angular velocity of the joint".into(),
                "angular acceleration of the joint".into(),
                "torque the drive applies to the joint's flange".into(),
            ],
            (false, true) => [
                "position of the joint along its axis".into(),
                "velocity of the joint".into(),
                "acceleration of the joint".into(),
                "force the drive applies to the joint's flange".into(),
            ],
            (true, false) => {
                let about = format!("about axis {} of the joint", index + 1);
                [
                    format!("rotation angle {about}"),
                    format!("angular velocity {about}"),
                    format!("angular acceleration {about}"),
                    format!("torque applied to the joint {about}"),
                ]
            }
            (false, false) => {
                let along = format!("along axis {} of the joint", index + 1);
                [
                    format!("position {along}"),
                    format!("velocity {along}"),
                    format!("acceleration {along}"),
                    format!("force applied to the joint {along}"),
                ]
            }
        };
        let kinds = match &coordinates {
            CoordinateSource::Tree(bodies) => {
                let Some(&(_, body)) = bodies.iter().find(|(a, _)| *a == index) else {
                    continue;
                };
                [
                    Some(VariableKind::JointPosition(body)),
                    Some(VariableKind::JointSpeed(body)),
                    Some(VariableKind::JointAcceleration(body)),
                    Some(VariableKind::JointForce(body)),
                ]
            }
            CoordinateSource::Cut(cut) => [
                Some(VariableKind::CutJointPosition(*cut, index)),
                Some(VariableKind::CutJointSpeed(*cut, index)),
                None,
                None,
            ],
        };
        // Which of phi, w, a, tau exist, and as what (design brief, flange modes).
        let roles: [Option<Causality>; 4] = match flange {
            _ if prescribed => [Some(Causality::Output); 4],
            FlangeMode::Passive => [Some(Causality::Output), Some(Causality::Output), None, None],
            FlangeMode::Force => [
                Some(Causality::Output),
                Some(Causality::Output),
                Some(Causality::Output),
                Some(Causality::Input),
            ],
            FlangeMode::Motion => [
                Some(Causality::Input),
                Some(Causality::Input),
                Some(Causality::Input),
                Some(Causality::Output),
            ],
        };
        for i in 0..4 {
            let (Some(causality), Some(kind)) = (roles[i], kinds[i]) else {
                continue;
            };
            variables.push(Variable {
                name: format!("{}.{}", spec.name, symbols[i]),
                description: descriptions[i].clone(),
                unit: Some(units[i]),
                causality,
                variability: Variability::Continuous,
                kind,
                start: (causality == Causality::Input).then_some(start[i]),
            });
        }
    }
}

/// The variables of drive `index`: its source input, the motor's quantities, the flange torque,
/// and the angle and speed of each part that a spring or damper separates from the joint.
fn drive_variables(variables: &mut Vec<Variable>, index: usize, drive: &crate::model::DriveSpec) {
    let name = &drive.name;
    let (torque, torque_unit, position, speed) = if drive.translational {
        (
            "f",
            Kind::Force,
            ("s", Kind::Length, "position"),
            ("v", Kind::Velocity, "velocity"),
        )
    } else {
        (
            "tau",
            Kind::Torque,
            ("phi", Kind::Angle, "angle"),
            ("w", Kind::AngularVelocity, "angular velocity"),
        )
    };
    let mut push = |symbol: String, unit: Kind, description: String, causality, kind| {
        variables.push(Variable {
            name: format!("{name}.{symbol}"),
            description,
            unit: Some(unit),
            causality,
            variability: Variability::Continuous,
            kind,
            start: (causality == Causality::Input).then_some(0.0),
        })
    };
    let output = |quantity| VariableKind::Drive {
        drive: index,
        quantity,
    };
    match &drive.source {
        DriveSource::None => {}
        DriveSource::Input => push(
            torque.to_string(),
            torque_unit,
            format!(
                "{} the source applies at the source end of the drive",
                if drive.translational {
                    "force"
                } else {
                    "torque"
                }
            ),
            Causality::Input,
            VariableKind::DriveInput(index),
        ),
        DriveSource::Motor(motor) => {
            let (causality, kind) = match motor.voltage {
                MotorVoltage::Input => (Causality::Input, VariableKind::DriveInput(index)),
                _ => (Causality::Output, output(DriveQuantity::Voltage)),
            };
            push(
                "v".into(),
                Kind::Voltage,
                "armature voltage of the motor".into(),
                causality,
                kind,
            );
            if let MotorVoltage::SpeedControl(_) = motor.voltage {
                push(
                    "w_ref".into(),
                    Kind::AngularVelocity,
                    format!(
                        "reference speed of joint `{}` for the speed controller",
                        drive.joint
                    ),
                    Causality::Output,
                    output(DriveQuantity::ReferenceSpeed),
                );
            }
            let motor_outputs = [
                (
                    "i",
                    Kind::Current,
                    "armature current of the motor",
                    DriveQuantity::Current,
                ),
                (
                    "w_motor",
                    Kind::AngularVelocity,
                    "angular velocity of the motor",
                    DriveQuantity::MotorSpeed,
                ),
                (
                    "tau_motor",
                    Kind::Torque,
                    "electromagnetic torque of the motor (k*i)",
                    DriveQuantity::MotorTorque,
                ),
                (
                    "P_el",
                    Kind::Power,
                    "electrical power taken by the motor (v*i)",
                    DriveQuantity::ElectricalPower,
                ),
            ];
            for (symbol, unit, description, quantity) in motor_outputs {
                push(
                    symbol.into(),
                    unit,
                    description.into(),
                    Causality::Output,
                    output(quantity),
                );
            }
        }
    }
    push(
        format!("{torque}_flange"),
        torque_unit,
        format!(
            "{} the drive exerts on the flange of joint `{}`",
            if drive.translational {
                "force"
            } else {
                "torque"
            },
            drive.joint
        ),
        Causality::Output,
        output(DriveQuantity::FlangeTorque),
    );
    let parts = drive
        .elements
        .iter()
        .filter(|e| matches!(e, DriveElement::Compliance { .. }))
        .count();
    for part in 0..parts {
        let text = |what: &str| {
            format!(
                "{what} of drive part {} (counted from the source), at its flange-side end",
                part + 1
            )
        };
        push(
            format!("{}[{}]", position.0, part + 1),
            position.1,
            text(position.2),
            Causality::Output,
            output(DriveQuantity::PartPosition(part)),
        );
        push(
            format!("{}[{}]", speed.0, part + 1),
            speed.1,
            text(speed.2),
            Causality::Output,
            output(DriveQuantity::PartSpeed(part)),
        );
    }
}

/// The continuous states of Model Exchange (entries of y, [`StateLayout`]) with their
/// derivatives, each as a variable of the table: the output that reports it when there is one
/// (a one-axis joint's coordinate, speed and acceleration), else a new local variable. The
/// names of the new ones: a free joint `J`'s `J.r_rel[i]`, `J.Q_rel[i]`, `J.v_rel[i]`,
/// `J.w_rel[i]`; a drive `D`'s parts `D.part[k].phi` / `.w` (`.s` / `.v`), its motor current
/// `D.motor.i`, its speed controller's integrator `D.controller.x`; a derivative `der(name)`.
fn continuous_states(
    variables: &mut Vec<Variable>,
    scene: &Scene,
    assembly: &Assembly,
) -> Vec<ContinuousState> {
    let layout = StateLayout::new(scene, assembly);
    let n = layout.len();
    let mut value: Vec<Option<usize>> = vec![None; n];
    let mut derivative: Vec<Option<usize>> = vec![None; n];
    // (name, description, unit) of each state.
    let mut about: Vec<(String, String, Option<Kind>)> = vec![Default::default(); n];
    for (index, variable) in variables.iter().enumerate() {
        let states = |body: usize| layout.joints.get(body).copied().flatten();
        match variable.kind {
            VariableKind::JointPosition(body) => {
                if let Some(s) = states(body) {
                    value[s.q] = Some(index);
                }
            }
            VariableKind::JointSpeed(body) => {
                if let Some(s) = states(body) {
                    value[s.v] = Some(index);
                    derivative[s.q] = Some(index);
                }
            }
            VariableKind::JointAcceleration(body) => {
                if let Some(s) = states(body) {
                    derivative[s.v] = Some(index);
                }
            }
            _ => {}
        }
    }
    for (body, states) in layout.joints.iter().enumerate() {
        let (Some(s), Some(joint)) = (states, &assembly.super_objects[body].joint) else {
            continue;
        };
        let name = &joint.name;
        if joint.kind == TreeJointKind::Free {
            let frame = "relative to the joint's `from` frame";
            let groups: [(usize, &str, usize, Option<Kind>, String); 4] = [
                (
                    s.q,
                    "r_rel",
                    3,
                    Some(Kind::Length),
                    format!("position of the body {frame}"),
                ),
                (
                    s.q + 3,
                    "Q_rel",
                    4,
                    None,
                    format!("orientation quaternion of the body {frame} (Q[4] is the real part)"),
                ),
                (
                    s.v,
                    "v_rel",
                    3,
                    Some(Kind::Velocity),
                    format!("velocity of the body {frame}, in the `from` frame"),
                ),
                (
                    s.v + 3,
                    "w_rel",
                    3,
                    Some(Kind::AngularVelocity),
                    "angular velocity of the body in its own coordinates".to_string(),
                ),
            ];
            for (first, symbol, count, unit, description) in groups {
                for i in 0..count {
                    about[first + i] = (
                        format!("{name}.{symbol}[{}]", i + 1),
                        description.clone(),
                        unit,
                    );
                }
            }
        } else {
            let axis = &scene.joints[joint.joint.0].spec.kind.axes()[joint.axis];
            let (q_unit, v_unit) = match axis.motion {
                AxisMotion::Turn => (Kind::Angle, Kind::AngularVelocity),
                AxisMotion::Slide => (Kind::Length, Kind::Velocity),
            };
            about[s.q] = (
                format!("{name}.{}", axis.names[0]),
                "joint coordinate".into(),
                Some(q_unit),
            );
            about[s.v] = (
                format!("{name}.{}", axis.names[1]),
                "joint speed".into(),
                Some(v_unit),
            );
        }
    }
    for ((drive, _), states) in scene.drives.iter().zip(&layout.drives) {
        let (position, speed) = if drive.translational {
            (("s", Kind::Length), ("v", Kind::Velocity))
        } else {
            (("phi", Kind::Angle), ("w", Kind::AngularVelocity))
        };
        for (k, part) in states.parts.iter().enumerate() {
            let prefix = format!("{}.part[{}]", drive.name, k + 1);
            let description = format!("of drive part {} (counted from the source)", k + 1);
            about[part.q] = (
                format!("{prefix}.{}", position.0),
                format!("position {description}"),
                Some(position.1),
            );
            about[part.v] = (
                format!("{prefix}.{}", speed.0),
                format!("speed {description}"),
                Some(speed.1),
            );
        }
        if let Some(i) = states.current {
            about[i] = (
                format!("{}.motor.i", drive.name),
                "armature current of the motor".into(),
                Some(Kind::Current),
            );
        }
        if let Some(i) = states.controller {
            about[i] = (
                format!("{}.controller.x", drive.name),
                "integrator state of the speed controller".into(),
                None,
            );
        }
    }
    // Names are unique in an FMU: a name the table already has (a user's object named like a
    // joint's state) gets a suffix. A set, not a scan of the table per name: 10 000 free bodies
    // add 130 000 locals.
    let mut taken: std::collections::HashSet<String> =
        variables.iter().map(|v| v.name.clone()).collect();
    let mut local =
        |variables: &mut Vec<Variable>, name: String, description: String, unit, kind| {
            let mut unique = name;
            while taken.contains(&unique) {
                unique.push('_');
            }
            taken.insert(unique.clone());
            variables.push(Variable {
                name: unique,
                description,
                unit,
                causality: Causality::Local,
                variability: Variability::Continuous,
                kind,
                start: None,
            });
            variables.len() - 1
        };
    for k in 0..n {
        if value[k].is_none() {
            let (name, description, unit) = about[k].clone();
            value[k] = Some(local(
                variables,
                name,
                description,
                unit,
                VariableKind::State(k),
            ));
        }
    }
    (0..n)
        .map(|k| {
            let value = value[k].unwrap_or_default();
            let derivative = derivative[k].unwrap_or_else(|| {
                let state = &variables[value];
                let name = format!("der({})", state.name);
                let description = format!("time derivative of {}", state.name);
                let unit = state.unit.and_then(Kind::per_second);
                local(
                    variables,
                    name,
                    description,
                    unit,
                    VariableKind::StateDerivative(k),
                )
            });
            ContinuousState { value, derivative }
        })
        .collect()
}
