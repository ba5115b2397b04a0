//! The typed, fully evaluated model: what a model file means once parameters are substituted,
//! sub-assemblies expanded, loops unrolled and units converted to SI.
//!
//! This is the contract between the model-file front end (`model::load`) and the scene builder
//! (`scene::Scene::from_spec`). Every number here is in SI units; every rotation is a unit
//! quaternion that maps vectors from the child frame into the parent frame; every name is the full
//! dotted name the user sees (`bar1.obj2`, `link[3]`).

use super::motion::TimeFunction;
use nalgebra::{Matrix3, UnitQuaternion, Vector3};

/// A place in a model file, 1-based, for error messages that point at the user's text.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Location {
    pub file: String,
    pub line: usize,
    pub column: usize,
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Line 0: about the file as a whole (a parameter set from outside that it lacks).
        if self.line == 0 {
            write!(f, "{}", self.file)
        } else {
            write!(f, "{}:{}:{}", self.file, self.line, self.column)
        }
    }
}

/// The whole model after evaluation.
#[derive(Debug, Clone)]
pub struct ModelSpec {
    /// `model NAME` of the file: the FMU's model name and default file name.
    pub name: String,
    /// The model's description string, if any.
    pub description: Option<String>,
    /// Every parameter, top-level ones by their name and those of sub-assembly instances by their
    /// dotted name (`bar1.Lx`), in file order, with the value used for this evaluation.
    pub parameters: Vec<ParameterSpec>,
    pub gravity: GravitySpec,
    pub experiment: ExperimentSpec,
    /// Every object except the world, in file order (after expansion). Parents may come after
    /// their children in this list; the scene builder orders them.
    pub objects: Vec<ObjectSpec>,
    /// Every joint, in file order (after expansion).
    pub joints: Vec<JointSpec>,
    /// Point-to-point force elements between two object frames.
    pub forces: Vec<ForceSpec>,
    /// Contact-pair materials given in the model file; they override or extend the shipped
    /// table (coefficient of restitution and friction per pair of solid materials).
    pub contact_pairs: Vec<ContactPairSpec>,
    /// Contacts whose distance, penetration and normal force are reported as outputs.
    pub contact_outputs: Vec<ContactOutputSpec>,
    /// The objects whose placement SNAP computed from rigid mates (`fixed` joints), in the order
    /// they were placed. Their `parent`, `position` and `rotation` above are the result.
    pub snapped: Vec<SnappedSpec>,
    /// Rigid mates that other placements had already determined: checked, not used.
    pub redundant_mates: Vec<RedundantMateSpec>,
    /// One-dimensional drive trains on joint flanges.
    pub drives: Vec<DriveSpec>,
}

/// An object without `parent` that a rigid mate placed.
#[derive(Debug, Clone, PartialEq)]
pub struct SnappedSpec {
    pub object: String,
    /// The `fixed` joint that placed it.
    pub mate: String,
}

/// A rigid mate (`fixed` joint) whose two frames were already in one rigid part and coincide
/// within the tolerance; it adds nothing.
#[derive(Debug, Clone, PartialEq)]
pub struct RedundantMateSpec {
    pub name: String,
    /// Distance between the two frames [m] and the angle between them [rad].
    pub position_error: f64,
    pub angle_error: f64,
    /// The mates and `parent` relations that had already placed both frames, as text.
    pub determined_by: Vec<String>,
    pub location: Location,
}

/// A pair of colliding objects whose contact is reported (`NAME.distance`, `NAME.penetration`,
/// `NAME.f_n`).
#[derive(Debug, Clone, PartialEq)]
pub struct ContactOutputSpec {
    pub name: String,
    pub from: String,
    pub to: String,
    pub location: Location,
}

/// The name of the implicit root object that every tree hangs from.
pub const WORLD: &str = "world";

#[derive(Debug, Clone)]
pub struct ParameterSpec {
    pub name: String,
    /// Value in SI units.
    pub value: f64,
    /// What the value measures (its SI unit: `m`, `rad`, `kg.m2`), or `None` when the parameter
    /// was written without a unit (a pure number).
    pub unit: Option<super::units::Kind>,
    pub description: Option<String>,
    /// True when the parameter decides the structure of the model (a loop count, a repetition
    /// count): changing it changes the list of objects, so an FMU cannot change it after build.
    pub structural: bool,
    pub location: Location,
}

#[derive(Debug, Clone, PartialEq)]
pub enum GravitySpec {
    /// No gravity at all.
    None,
    /// Uniform field: acceleration vector in world coordinates [m/s2].
    Uniform { acceleration: Vector3<f64> },
    /// Point gravity of a central mass at `center` (world) with gravitational parameter `mu`
    /// [m3/s2]: g(r) = -mu * (r - center) / |r - center|^3.
    Point { center: Vector3<f64>, mu: f64 },
}

impl Default for GravitySpec {
    fn default() -> Self {
        GravitySpec::Uniform {
            acceleration: Vector3::new(0.0, -9.81, 0.0),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ExperimentSpec {
    pub start_time: f64,
    pub stop_time: f64,
    /// Output (communication) interval [s].
    pub interval: f64,
    /// Relative tolerance of the integrator.
    pub tolerance: f64,
}

impl Default for ExperimentSpec {
    fn default() -> Self {
        ExperimentSpec {
            start_time: 0.0,
            stop_time: 1.0,
            interval: 0.01,
            tolerance: 1e-6,
        }
    }
}

/// One Object3D: a frame with optional components. It is either rigidly attached to a parent
/// object (`parent` set, placed by `position` and `rotation`), or it stands alone and is placed
/// by the joint whose `to` it is. Rigid attachments are symmetric for the engine: a group of
/// rigidly attached objects is one body whichever of them a joint connects to.
#[derive(Debug, Clone)]
pub struct ObjectSpec {
    pub name: String,
    /// The full name of the object this one is rigidly attached to (`WORLD` for the world), or
    /// `None` when a joint places it.
    pub parent: Option<String>,
    /// Position of this frame's origin relative to the parent frame, in parent coordinates [m].
    /// Ignored when `parent` is `None`.
    pub position: Vector3<f64>,
    /// Rotation of this frame relative to the parent (maps this frame's coordinates into the
    /// parent's). Ignored when `parent` is `None`.
    pub rotation: UnitQuaternion<f64>,
    pub shape: Option<ShapeSpec>,
    pub visual: Option<VisualSpec>,
    pub mass: Option<MassSpec>,
    /// Makes the shape collide ([NO19] §4.1.2: a shape takes part in collision handling when a
    /// contact material is defined).
    pub contact: Option<ContactSpec>,
    /// Report this frame's position, velocity and orientation as outputs.
    pub output: bool,
    pub location: Location,
}

/// How an object's shape collides.
#[derive(Debug, Clone, PartialEq)]
pub struct ContactSpec {
    /// A solid material of the material table (elastic modulus and Poisson's ratio for the
    /// contact stiffness; its name selects the contact-pair material).
    pub material: String,
    /// Radius of the sphere swept over the shape so that edges and vertices make point
    /// contacts [m]; `None` for the default.
    pub smoothing: Option<f64>,
    /// Shapes of one collision group never collide with each other (the links of a robot);
    /// `None`: no group.
    pub group: Option<String>,
}

/// Contact-pair material: how two solid materials behave when they touch.
#[derive(Debug, Clone, PartialEq)]
pub struct ContactPairSpec {
    pub materials: [String; 2],
    /// Coefficient of restitution (0 ..= 1).
    pub cor: f64,
    /// Kinetic (sliding) friction coefficient.
    pub mu_k: f64,
    /// Static friction coefficient (≥ `mu_k`); `mu_k` when not given.
    pub mu_s: Option<f64>,
    /// Rolling resistance coefficient.
    pub mu_r: f64,
    /// Regularization velocity of restitution and sliding friction [m/s]; the shipped default
    /// when not given.
    pub v_small: Option<f64>,
    /// Regularization angular velocity of the rolling resistance [rad/s]; the shipped default
    /// when not given.
    pub w_small: Option<f64>,
    pub location: Location,
}

/// What a drive on the joint's flange supplies (design brief, "flange mode").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FlangeMode {
    /// Nothing drives the joint; its coordinates are outputs.
    #[default]
    Passive,
    /// The torque (force) is an input.
    Force,
    /// Position, speed and acceleration are inputs; the torque (force) is an output.
    Motion,
}

/// Which start values of a 1-dof joint the user fixed. A fixed start value is kept when the
/// closure equations of kinematic loops are solved at the start; a start value that is not fixed
/// is only a guess (`phi_guess = ...`, or nothing: 0). Outside loops every start value is used
/// as given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StartFixed {
    /// The coordinate (`phi`, `s`) was given.
    pub position: bool,
    /// The speed (`w`, `v`) was given.
    pub speed: bool,
}

/// A joint between two object frames: `to` moves relative to `from`. At zero joint coordinates
/// the two frames coincide (a free joint starts at `position`/`rotation` instead).
#[derive(Debug, Clone, PartialEq)]
pub struct JointSpec {
    /// The joint's full name: the prefix of its FMU variables (`rev1.phi`).
    pub name: String,
    pub from: String,
    pub to: String,
    pub kind: JointKind,
    /// May the bodies on either side of the joint collide with each other (default false).
    pub can_collide: bool,
    /// Report the force and torque the joint transmits as outputs (`NAME.f`, `NAME.t`).
    pub output_forces: bool,
    pub location: Location,
}

#[derive(Debug, Clone, PartialEq)]
pub enum JointKind {
    /// Rotation by `phi` about `axis` (unit vector in `from` coordinates).
    Revolute {
        axis: Vector3<f64>,
        /// Start angle [rad] and angular velocity [rad/s].
        phi: f64,
        w: f64,
        /// Which of `phi`, `w` are fixed rather than guesses.
        fixed: StartFixed,
        flange: FlangeMode,
        /// Linear rotational spring: stiffness [N.m/rad] and unstretched angle [rad].
        spring: Option<(f64, f64)>,
        /// Linear rotational damper [N.m.s/rad].
        damper: Option<f64>,
        /// End stops at `lower` and `upper` [rad].
        stop: Option<EndStop>,
        /// The joint moves as a gear of another (`follows`), with no coordinates of its own.
        follows: Option<Follow>,
        /// The angle [rad] as a function of time (`motion = ...`); the flange is then `Motion`
        /// and the angle, speed and acceleration follow the function instead of inputs.
        motion: Option<TimeFunction>,
    },
    /// Translation by `s` along `axis` (unit vector in `from` coordinates).
    Prismatic {
        axis: Vector3<f64>,
        /// Start position [m] and velocity [m/s].
        s: f64,
        v: f64,
        /// Which of `s`, `v` are fixed rather than guesses.
        fixed: StartFixed,
        flange: FlangeMode,
        /// Linear spring: stiffness [N/m] and unstretched position [m].
        spring: Option<(f64, f64)>,
        /// Linear damper [N.s/m].
        damper: Option<f64>,
        /// End stops at `lower` and `upper` [m].
        stop: Option<EndStop>,
        /// As for revolute joints.
        follows: Option<Follow>,
        /// The position [m] as a function of time (`motion = ...`), as for revolute joints.
        motion: Option<TimeFunction>,
    },
    /// Six degrees of freedom of `to` relative to `from` (which must be rigidly attached to the
    /// world).
    Free {
        /// Start position of `to` in `from` coordinates [m].
        position: Vector3<f64>,
        /// Start orientation of `to` relative to `from`.
        rotation: UnitQuaternion<f64>,
        /// Start velocity of the origin of `to`, in `from` coordinates [m/s].
        v: Vector3<f64>,
        /// Start angular velocity of `to`, in `to` coordinates [rad/s].
        w: Vector3<f64>,
    },
    /// The origins of `from` and `to` coincide; any relative rotation. It has no coordinates and
    /// must close a kinematic loop (it is always a cut-joint).
    Spherical,
    /// A passive joint of two or three axes, as the Modelica MultiBody library draws it:
    /// `universal`, `cylindrical` or `planar`.
    Compound {
        kind: CompoundKind,
        /// The axes in the order they move `to` relative to `from`; each direction is given in
        /// the frame the preceding axes have moved (where it equals its direction in `to`).
        axes: Vec<AxisSpec>,
        /// Passive, or every axis driven by a torque (force) input (`flange = force`).
        flange: FlangeMode,
    },
}

/// The end stops of a revolute or prismatic joint: the coordinate's range and the elastic law
/// that holds it there (Modelica's `ElastoGap` with exponent 1: a spring `stiffness` times the
/// penetration, plus a damper `damping` times its rate, the damper's force limited to the
/// spring's so that a stop never pulls; [`crate::dynamics::end_stops`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EndStop {
    /// The least and greatest coordinate [rad or m]; −∞ or +∞ for a side without a stop.
    pub lower: f64,
    pub upper: f64,
    /// [N.m/rad or N/m], > 0.
    pub stiffness: f64,
    /// [N.m.s/rad or N.s/m], ≥ 0.
    pub damping: f64,
}

/// A joint that follows another (URDF's `mimic`): its coordinate is `ratio` times the
/// leader's plus `offset`, a gear constraint between the two ([`crate::dynamics`] eliminates
/// the follower's coordinate and passes its generalized force to the leader through the ratio).
#[derive(Debug, Clone, PartialEq)]
pub struct Follow {
    /// The leading joint's full name.
    pub leader: String,
    /// Follower's coordinate per leader's, in SI (rad/rad, m/m, m/rad or rad/m), not zero.
    pub ratio: f64,
    /// The follower's coordinate where the leader's is zero [rad or m].
    pub offset: f64,
    /// Where `follows` is written.
    pub location: Location,
}

/// What acts on a joint's axes besides the bodies: its flange mode, spring, damper, end stops
/// and prescribed motion (all passive for joints that have none of them).
#[derive(Debug, Clone, Default)]
pub struct JointDrive {
    pub flange: FlangeMode,
    pub spring: Option<(f64, f64)>,
    pub damper: Option<f64>,
    pub stop: Option<EndStop>,
    pub motion: Option<TimeFunction>,
    pub follows: Option<Follow>,
}

impl JointDrive {
    /// Anything but a passive joint.
    pub fn is_driven(&self) -> bool {
        self.flange != FlangeMode::Passive
            || self.spring.is_some()
            || self.damper.is_some()
            || self.stop.is_some()
            || self.motion.is_some()
            || self.follows.is_some()
    }
}

impl JointKind {
    /// The joint's flange mode, spring, damper and prescribed motion.
    pub fn drive(&self) -> JointDrive {
        match self {
            JointKind::Revolute {
                flange,
                spring,
                damper,
                stop,
                motion,
                follows,
                ..
            }
            | JointKind::Prismatic {
                flange,
                spring,
                damper,
                stop,
                motion,
                follows,
                ..
            } => JointDrive {
                flange: *flange,
                spring: *spring,
                damper: *damper,
                stop: *stop,
                motion: motion.clone(),
                follows: follows.clone(),
            },
            JointKind::Compound { flange, .. } => JointDrive {
                flange: *flange,
                ..JointDrive::default()
            },
            JointKind::Free { .. } | JointKind::Spherical => JointDrive::default(),
        }
    }

    /// The joint's axes, the one joint model that every later stage reads: one for a revolute or
    /// prismatic joint (`phi`, `w`, `a` or `s`, `v`, `a`), those of a compound joint, none for
    /// free and spherical joints (which have their own coordinates, or none).
    pub fn axes(&self) -> Vec<AxisSpec> {
        match self {
            JointKind::Revolute {
                axis,
                phi,
                w,
                fixed,
                ..
            } => vec![AxisSpec {
                motion: AxisMotion::Turn,
                direction: axis.normalize(),
                names: ["phi", "w", "a", "tau"],
                q: *phi,
                qd: *w,
                fixed: *fixed,
            }],
            JointKind::Prismatic {
                axis, s, v, fixed, ..
            } => vec![AxisSpec {
                motion: AxisMotion::Slide,
                direction: axis.normalize(),
                names: ["s", "v", "a", "f"],
                q: *s,
                qd: *v,
                fixed: *fixed,
            }],
            JointKind::Compound { axes, .. } => axes.clone(),
            JointKind::Free { .. } | JointKind::Spherical => Vec::new(),
        }
    }
}

/// The joints of several axes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompoundKind {
    /// Rotation about `axis_a` (in `from`), then about `axis_b` (in `to`), perpendicular to it:
    /// Modelica's `Joints.Universal` (a Cardan joint). Coordinates `phi_a`, `phi_b`.
    Universal,
    /// Translation along `axis` and rotation about it: Modelica's `Joints.Cylindrical`.
    /// Coordinates `s`, `phi`.
    Cylindrical,
    /// Translation along `axis_x` and `normal × axis_x`, then rotation about `normal`:
    /// Modelica's `Joints.Planar`. Coordinates `s_x`, `s_y`, `phi`.
    Planar,
}

impl CompoundKind {
    /// The word of the model format (`joint NAME universal { ... }`).
    pub fn word(self) -> &'static str {
        match self {
            CompoundKind::Universal => "universal",
            CompoundKind::Cylindrical => "cylindrical",
            CompoundKind::Planar => "planar",
        }
    }
}

/// Whether an axis of a joint turns or slides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AxisMotion {
    Turn,
    Slide,
}

/// One axis of a compound joint: its motion, its direction and the names and start values of its
/// coordinate (Modelica's names: `phi_a`, `w_a`, `a_a` of a universal joint's first axis).
#[derive(Debug, Clone, PartialEq)]
pub struct AxisSpec {
    pub motion: AxisMotion,
    /// Unit vector (see [`JointKind::Compound`] for the frame it is given in).
    pub direction: Vector3<f64>,
    /// Names of the coordinate, its speed, its acceleration and the torque (force) on its flange.
    pub names: [&'static str; 4],
    /// Start coordinate [rad or m] and speed [rad/s or m/s].
    pub q: f64,
    pub qd: f64,
    pub fixed: StartFixed,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ShapeSpec {
    Sphere {
        diameter: f64,
    },
    /// Edge lengths along the object's x, y, z axes [m].
    Box {
        lengths: Vector3<f64>,
    },
    /// Axis along the object's z axis.
    Cylinder {
        diameter: f64,
        length: f64,
    },
    /// Axis along z; `length` is the length of the cylindrical part (without the end caps).
    Capsule {
        diameter: f64,
        length: f64,
    },
    /// Axis along z, base at z = 0, apex at z = length.
    Cone {
        diameter: f64,
        length: f64,
    },
    /// Full axis lengths along x, y, z [m].
    Ellipsoid {
        lengths: Vector3<f64>,
    },
    /// Triangles read from STL or OBJ files.
    Mesh(std::sync::Arc<MeshSpec>),
}

/// A `shape mesh`: its files, read and scaled.
#[derive(Debug, Clone, PartialEq)]
pub struct MeshSpec {
    /// The files as the model names them, relative to the model file's folder (`file`, or each
    /// of `files`); an FMU carries them under `resources/` by the same names.
    pub files: Vec<String>,
    /// Each file's bytes' digest, in the order of `files` ([`crate::mesh::digest`]): a changed
    /// mesh changes the FMU's GUID.
    pub digests: Vec<u64>,
    /// The factor per axis that turns the file's numbers into metres.
    pub scale: Vector3<f64>,
    pub collision: MeshCollision,
    /// The pieces (each OBJ object, each file), scaled, in the object's frame.
    pub pieces: Vec<crate::mesh::TriangleMesh>,
    /// How many edges keep the pieces from being closed, consistently oriented surfaces
    /// ([`crate::mesh::TriangleMesh::open_edges`], summed): zero for a mesh that bounds a solid.
    pub open_edges: usize,
}

/// What of a mesh collides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MeshCollision {
    /// The convex hull of all its vertices.
    Hull,
    /// Each piece's convex hull (the pieces of a convex decomposition).
    Pieces,
}

#[derive(Debug, Clone, PartialEq)]
pub struct VisualSpec {
    /// RGB, each 0..=255.
    pub color: [u8; 3],
    /// 0 = opaque, 1 = invisible.
    pub transparency: f64,
}

/// Mass properties of one object, in its own frame.
#[derive(Debug, Clone, PartialEq)]
pub struct MassSpec {
    /// [kg]
    pub mass: f64,
    /// Center of mass in the object's frame [m].
    pub center_of_mass: Vector3<f64>,
    /// Inertia tensor about the center of mass, in the object's frame [kg.m2].
    pub inertia: Matrix3<f64>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ForceKind {
    /// Linear spring: stiffness [N/m], unstretched length [m].
    Spring { stiffness: f64, length: f64 },
    /// Linear damper [N.s/m] on the relative speed along the line.
    Damper { damping: f64 },
    /// Spring and damper in parallel.
    SpringDamper {
        stiffness: f64,
        length: f64,
        damping: f64,
    },
}

/// A force element acting along the line between the origins of two object frames.
#[derive(Debug, Clone, PartialEq)]
pub struct ForceSpec {
    pub name: String,
    pub from: String,
    pub to: String,
    pub kind: ForceKind,
    pub location: Location,
}

/// A one-dimensional drive train on the flange of a revolute (prismatic) joint: a source, then
/// elements in series from the source to the flange ([OEM03] §6.3: Modelica's Rotational library
/// connected to a joint's flange). Angles, torques and inertias become positions, forces and
/// masses on a prismatic joint.
#[derive(Debug, Clone, PartialEq)]
pub struct DriveSpec {
    /// The drive's full name: the prefix of its FMU variables (`D.i`).
    pub name: String,
    /// The full name of the joint whose flange the chain ends at.
    pub joint: String,
    /// True on a prismatic joint: the chain carries forces and masses.
    pub translational: bool,
    pub source: DriveSource,
    /// The elements from the source end to the flange.
    pub elements: Vec<DriveElement>,
    pub location: Location,
}

/// What drives the chain at its source end.
#[derive(Debug, Clone, PartialEq)]
pub enum DriveSource {
    /// No source: the chain only adds inertia and compliance to the joint.
    None,
    /// A torque (force) given as the FMU input `NAME.tau` (`NAME.f`).
    Input,
    /// A DC motor with permanent magnets.
    Motor(DcMotorSpec),
}

/// A DC motor: L di/dt = v − R i − k w, torque k i on its rotor.
#[derive(Debug, Clone, PartialEq)]
pub struct DcMotorSpec {
    /// Armature resistance [Ohm].
    pub resistance: f64,
    /// Armature inductance [H], > 0.
    pub inductance: f64,
    /// Motor constant [N.m/A] (= back-EMF constant in V.s/rad).
    pub k: f64,
    /// Rotor inertia [kg.m2].
    pub inertia: f64,
    /// Start current [A].
    pub current: f64,
    pub voltage: MotorVoltage,
}

/// Where a DC motor's armature voltage comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum MotorVoltage {
    /// The FMU input `NAME.v`.
    Input,
    /// A function of time.
    Function(TimeFunction),
    /// A PI speed controller on the joint's speed.
    SpeedControl(SpeedControlSpec),
}

/// A PI controller that sets the motor voltage from the speed error of the joint, with the
/// voltage limited to ±`v_max` and a back-calculating anti-windup: u_c = Kp·e + Ki·x,
/// u = clamp(u_c, −v_max, v_max), dx/dt = e + (u − u_c)/Kp, e = w_ref − w.
#[derive(Debug, Clone, PartialEq)]
pub struct SpeedControlSpec {
    /// The reference speed of the joint [rad/s] as a function of time.
    pub w_ref: TimeFunction,
    /// Proportional gain [V.s/rad], > 0.
    pub kp: f64,
    /// Integral gain [V/rad].
    pub ki: f64,
    /// Voltage limit [V], > 0.
    pub v_max: f64,
}

/// One element of a drive chain.
#[derive(Debug, Clone, PartialEq)]
pub enum DriveElement {
    /// A rigid inertia [kg.m2] (mass [kg]), with optional start angle and speed (position and
    /// velocity) when a compliant element separates it from the joint.
    Inertia {
        inertia: f64,
        start: StartValues,
        location: Location,
    },
    /// An ideal gear: the speed on the source side is `ratio` times the speed on the flange side.
    Gear { ratio: f64 },
    /// A spring and damper in parallel between the elements before and after it: torque (force)
    /// c·(φ_rel − φ_rel0) + d·ω_rel with φ_rel = φ_flange_side − φ_source_side.
    Compliance {
        stiffness: f64,
        damping: f64,
        rest: f64,
        location: Location,
    },
}

/// Start angle and speed (position and velocity) of a drive inertia, when given.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StartValues {
    pub position: Option<f64>,
    pub speed: Option<f64>,
}
