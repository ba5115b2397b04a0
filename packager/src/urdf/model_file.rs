//! The model file (`.m3d`) of a URDF robot: one `object` per link with its mass, one child
//! object per visual and per collision geometry, one `object NAME_origin` and one `joint` per
//! moving joint, a fixed joint as the child link's `parent`. Names are the URDF's where the
//! model format allows them; the others are renamed, and the file's first lines say how.

use std::collections::HashSet;
use std::fmt::Write as _;

use nalgebra::{Matrix3, Rotation3};

use super::robot::{Geometry, Inertial, Joint, JointKind, Link, Mimic, Note, Pose, Robot, Shape};

/// How a robot becomes a model.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The root link moves on a free joint; else it is fixed to the world.
    pub floating_base: bool,
    /// The robot's links collide with each other (else they form one collision group).
    pub self_collision: bool,
    /// The solid material of every collision geometry.
    pub contact_material: String,
}

/// What the model file says of a geometry's mesh: its `file` (relative to the model file),
/// given the URDF's `filename`; `None` leaves the geometry out (the robot's notes say why).
pub type MeshFile<'a> = dyn FnMut(&str) -> Option<String> + 'a;

/// Names of the model format: a letter or `_`, then letters, digits and `_`; not a word of the
/// format.
struct Names {
    used: HashSet<String>,
    renamed: Vec<(String, String)>,
}

/// Whether `name` is a word of the model format (a statement, `world`, `in`, `true`,
/// `false`), which a converted name must not be.
fn reserved(name: &str) -> bool {
    ["world", "in", "true", "false"].contains(&name)
        || fmu_runtime::model::STATEMENTS.contains(&name)
}

impl Names {
    /// A unique model-format name for `wanted` (recorded as a rename where it differs).
    fn take(&mut self, wanted: &str) -> String {
        let mut name = fmu_runtime::fmu::identifier(wanted);
        if reserved(&name) {
            name.push('_');
        }
        let base = name.clone();
        let mut k = 2;
        while self.used.contains(&name) {
            name = format!("{base}_{k}");
            k += 1;
        }
        self.used.insert(name.clone());
        if name != wanted {
            self.renamed.push((wanted.to_string(), name.clone()));
        }
        name
    }
}

/// A number as the shortest text that reads back to the same `f64`.
fn num(x: f64) -> String {
    if x == 0.0 {
        "0".to_string()
    } else {
        format!("{x}")
    }
}

fn vector(v: &[f64; 3]) -> String {
    format!("[{}, {}, {}]", num(v[0]), num(v[1]), num(v[2]))
}

/// `; position = ...; rotation = rpy(...)` of a placement, leaving out what is zero.
fn placement(pose: &Pose) -> String {
    let mut text = String::new();
    if pose.xyz != [0.0; 3] {
        write!(text, "; position = {} m", vector(&pose.xyz)).ok();
    }
    if pose.rpy != [0.0; 3] {
        let [r, p, y] = pose.rpy;
        write!(text, "; rotation = rpy({}, {}, {})", num(r), num(p), num(y)).ok();
    }
    text
}

/// R = Rz(yaw) Ry(pitch) Rx(roll).
fn rpy_matrix(rpy: &[f64; 3]) -> Matrix3<f64> {
    Rotation3::from_euler_angles(rpy[0], rpy[1], rpy[2]).into_inner()
}

/// An inertia tensor whose largest principal moment exceeds the sum of the other two (no
/// solid body has it; robot files have such rounded values) with that moment lowered to the
/// sum, about the same axes (MuJoCo's `balanceinertia`), and the three moments before; `None`
/// for a tensor a body can have.
fn balanced(i: &Matrix3<f64>) -> Option<(Matrix3<f64>, [f64; 3])> {
    let eigen = i.symmetric_eigen();
    let p = eigen.eigenvalues;
    let largest = p.imax();
    let others = p.sum() - p[largest];
    if p[largest] <= others * (1.0 + 1e-9) {
        return None;
    }
    let mut moments = p;
    moments[largest] = others;
    let axes = eigen.eigenvectors;
    let balanced = axes * Matrix3::from_diagonal(&moments) * axes.transpose();
    let mut before = [p[0], p[1], p[2]];
    before.sort_by(f64::total_cmp);
    Some((0.5 * (balanced + balanced.transpose()), before))
}

/// The `mass { ... }` block of an inertial: its centre and its inertia turned into the link's
/// axes (I_link = R I R^T), balanced where no body has it (with a note); `None` for a massless
/// link.
fn mass_block(inertial: &Inertial, link: &str, notes: &mut Vec<Note>) -> Option<String> {
    if inertial.mass <= 0.0 {
        return None;
    }
    let [ixx, iyy, izz, ixy, ixz, iyz] = inertial.inertia;
    let local = Matrix3::new(ixx, ixy, ixz, ixy, iyy, iyz, ixz, iyz, izz);
    let r = rpy_matrix(&inertial.origin.rpy);
    let mut i = r * local * r.transpose();
    if let Some((fixed, [a, b, c])) = balanced(&i) {
        notes.push(Note {
            line: inertial.line,
            text: format!(
                "link `{link}`: the principal moments of inertia {a:e}, {b:e}, {c:e} kg m² \
                 violate the triangle inequality (no solid body has them): the largest is \
                 lowered to the sum of the other two, {:e} kg m², about the same axes",
                a + b
            ),
        });
        i = fixed;
    }
    let mut text = format!("mass {{ m = {} kg", num(inertial.mass));
    if inertial.origin.xyz != [0.0; 3] {
        write!(text, "; center = {} m", vector(&inertial.origin.xyz)).ok();
    }
    if i != Matrix3::zeros() {
        write!(
            text,
            "; inertia = [{}, {}, {}, {}, {}, {}] kg.m2",
            num(i[(0, 0)]),
            num(i[(1, 1)]),
            num(i[(2, 2)]),
            num(i[(0, 1)]),
            num(i[(0, 2)]),
            num(i[(1, 2)])
        )
        .ok();
    }
    text.push_str(" }");
    Some(text)
}

/// The `shape ...` of a geometry, or `None` where its mesh is left out.
fn shape(geometry: &Geometry, mesh_file: &mut MeshFile) -> Option<String> {
    Some(match geometry {
        Geometry::Box { size } => format!("shape box {{ lengths = {} m }}", vector(size)),
        Geometry::Cylinder { radius, length } => format!(
            "shape cylinder {{ diameter = {} m; length = {} m }}",
            num(2.0 * radius),
            num(*length)
        ),
        Geometry::Sphere { radius } => {
            format!("shape sphere {{ diameter = {} m }}", num(2.0 * radius))
        }
        Geometry::Mesh { filename, scale } => {
            let file = mesh_file(filename)?;
            let scale = if scale == &[1.0; 3] {
                String::new()
            } else {
                format!("; scale = {}", vector(scale))
            };
            format!("shape mesh {{ file = \"{file}\"{scale} }}")
        }
    })
}

/// What follows a geometry's shape: a visual's colour; a collision's contact (in the robot's
/// group unless its links collide with each other), hidden where the link has visuals.
fn looks(s: &Shape, kind: &str, link: &Link, settings: &Settings, group: &str) -> String {
    if kind == "visual" {
        return s
            .color
            .map(|c| format!("; {}", visual_block(&c)))
            .unwrap_or_default();
    }
    let group = if settings.self_collision {
        String::new()
    } else {
        format!("; group = {group}")
    };
    let hidden = if link.visuals.is_empty() {
        ""
    } else {
        "; visual { transparency = 1 }"
    };
    format!(
        "; contact {{ material = {}{group} }}{hidden}",
        settings.contact_material
    )
}

/// `visual { ... }` of a colour (RGBA 0 to 1).
fn visual_block(color: &[f64; 4]) -> String {
    let rgb = |c: f64| num((c * 255.0).round());
    let mut text = format!(
        "visual {{ color = [{}, {}, {}]",
        rgb(color[0]),
        rgb(color[1]),
        rgb(color[2])
    );
    if color[3] < 1.0 {
        write!(text, "; transparency = {}", num(1.0 - color[3])).ok();
    }
    text.push_str(" }");
    text
}

/// The model file's text for `robot`, read from `source` (named in its first line), and the
/// notes on what it leaves out (the robot's own and the conversion's).
pub fn write(
    robot: &Robot,
    source: &str,
    settings: &Settings,
    mesh_file: &mut MeshFile,
) -> (String, Vec<Note>) {
    let mut notes = robot.notes.clone();
    let mut names = Names {
        used: HashSet::new(),
        renamed: Vec::new(),
    };
    // Links and joints first, so that they keep their names where they can.
    let link_names: Vec<String> = robot.links.iter().map(|l| names.take(&l.name)).collect();
    let joint_names: Vec<String> = robot.joints.iter().map(|j| names.take(&j.name)).collect();
    let model_name = {
        let mut model_names = Names {
            used: HashSet::new(),
            renamed: Vec::new(),
        };
        model_names.take(&robot.name)
    };
    let link_name = |name: &str| -> &str {
        let k = robot.links.iter().position(|l| l.name == name).unwrap_or(0);
        &link_names[k]
    };
    let group = format!("{model_name}_links");
    let root = robot.root();
    let mut body = String::new();
    for (k, link) in robot.links.iter().enumerate() {
        let name = &link_names[k];
        let attachment = match robot.joints.iter().find(|j| j.child == link.name) {
            Some(j) if j.kind == JointKind::Fixed => {
                format!("parent = {}{}", link_name(&j.parent), placement(&j.origin))
            }
            None if link.name == root.name && !settings.floating_base => {
                "parent = world".to_string()
            }
            _ => String::new(),
        };
        let mass = match &link.inertial {
            Some(inertial) => match mass_block(inertial, &link.name, &mut notes) {
                Some(block) => block,
                None => {
                    if inertial.inertia != [0.0; 6] {
                        notes.push(Note {
                            line: inertial.line,
                            text: format!(
                                "link `{}` has mass 0: its inertia is left out (a mass in \
                                 fmu3d is positive)",
                                link.name
                            ),
                        });
                    }
                    String::new()
                }
            },
            None => String::new(),
        };
        writeln!(body, "# link `{}` (line {})", link.name, link.line).ok();
        let fields: Vec<&str> = [attachment.as_str(), mass.as_str()]
            .into_iter()
            .filter(|f| !f.is_empty())
            .collect();
        if fields.is_empty() {
            writeln!(body, "object {name} {{ }}").ok();
        } else {
            writeln!(body, "object {name} {{ {} }}", fields.join("; ")).ok();
        }
        for (list, kind) in [(&link.visuals, "visual"), (&link.collisions, "collision")] {
            for (n, s) in list.iter().enumerate() {
                let Some(shape_text) = shape(&s.geometry, mesh_file) else {
                    continue;
                };
                let object = names.take(&format!("{}_{kind}{}", link.name, n + 1));
                writeln!(
                    body,
                    "object {object} {{ parent = {name}{}; {shape_text}{} }}",
                    placement(&s.origin),
                    looks(s, kind, link, settings, &group)
                )
                .ok();
            }
        }
    }
    if settings.floating_base {
        let name = names.take(&format!("{}_floating", root.name));
        writeln!(
            body,
            "# the root link moves freely (--floating-base)\njoint {name} free {{ from = world; to = {} }}",
            link_name(&root.name)
        )
        .ok();
    }
    for (k, joint) in robot.joints.iter().enumerate() {
        if joint.kind == JointKind::Fixed {
            continue;
        }
        let name = &joint_names[k];
        let origin = names.take(&format!("{}_origin", joint.name));
        joint_notes(robot, joint, &mut notes);
        writeln!(
            body,
            "# joint `{}` ({}, line {}){}",
            joint.name,
            kind_word(joint.kind),
            joint.line,
            limit_comment(joint)
        )
        .ok();
        writeln!(
            body,
            "object {origin} {{ parent = {}{} }}",
            link_name(&joint.parent),
            placement(&joint.origin)
        )
        .ok();
        let (from, to) = (origin, link_name(&joint.child));
        let axis = vector(&joint.axis);
        let fields = match joint.kind {
            JointKind::Revolute | JointKind::Continuous | JointKind::Prismatic => {
                let (kind, unit) = if joint.kind == JointKind::Prismatic {
                    ("prismatic", "N.s/m")
                } else {
                    ("revolute", "N.m.s/rad")
                };
                let damper = if joint.damping > 0.0 {
                    format!("; damper = {} {unit}", num(joint.damping))
                } else {
                    String::new()
                };
                let stop = end_stop(joint).map_or(String::new(), |f| format!("; {f}"));
                // A mimic joint moves with its leader; every other has a torque (force) input.
                let drive = match leader(robot, joint) {
                    Ok(Some((k, mimic))) => format!(
                        "follows = {}; follow_ratio = {}; follow_offset = {}",
                        joint_names[k],
                        num(mimic.multiplier),
                        num(mimic.offset)
                    ),
                    _ => "flange = force".to_string(),
                };
                format!(
                    "{kind} {{ from = {from}; to = {to}; axis = {axis}; {drive}{damper}{stop} }}"
                )
            }
            JointKind::Planar => {
                format!("planar {{ from = {from}; to = {to}; normal = {axis}; axis_x = {}; flange = force }}", vector(&perpendicular(&joint.axis)))
            }
            JointKind::Floating => format!("free {{ from = {from}; to = {to} }}"),
            // Fixed joints are attachments (the child link's `parent`), written with the links.
            JointKind::Fixed => continue,
        };
        writeln!(body, "joint {name} {fields}").ok();
    }
    let mut text = String::new();
    writeln!(
        text,
        "# Converted by `fmu3d convert` from {source} (URDF robot `{}`). Edit freely.",
        robot.name
    )
    .ok();
    writeln!(
        text,
        "# Every moving joint but a mimic one has `flange = force`: its torque (force) is an \
         input. URDF is z-up."
    )
    .ok();
    if !names.renamed.is_empty() {
        writeln!(
            text,
            "# Renamed (model-format names are letters, digits and _):"
        )
        .ok();
        for (from, to) in &names.renamed {
            writeln!(text, "#   `{from}` -> {to}").ok();
        }
    }
    if !notes.is_empty() {
        writeln!(text, "# Not converted:").ok();
        for note in &notes {
            writeln!(text, "#   line {}: {}", note.line, note.text).ok();
        }
    }
    writeln!(text, "model {model_name} \"URDF robot {}\"", robot.name).ok();
    writeln!(text, "gravity uniform {{ g = [0, 0, -9.81] m/s2 }}").ok();
    text.push_str(&body);
    (text, notes)
}

/// URDF's word for a joint type.
fn kind_word(kind: JointKind) -> &'static str {
    match kind {
        JointKind::Revolute => "revolute",
        JointKind::Continuous => "continuous",
        JointKind::Prismatic => "prismatic",
        JointKind::Fixed => "fixed",
        JointKind::Floating => "floating",
        JointKind::Planar => "planar",
    }
}

/// A unit vector perpendicular to the unit vector `n`.
fn perpendicular(n: &[f64; 3]) -> [f64; 3] {
    let n = nalgebra::Vector3::from(*n);
    let helper = if n.x.abs() < 0.9 {
        nalgebra::Vector3::x()
    } else {
        nalgebra::Vector3::y()
    };
    let p = (helper - n * n.dot(&helper)).normalize();
    [p.x, p.y, p.z]
}

/// `: limit ...` for the joint's comment: what the URDF says of its range, effort and speed.
fn limit_comment(joint: &Joint) -> String {
    let Some(limit) = &joint.limit else {
        return String::new();
    };
    let (angle, effort, speed) = match joint.kind {
        JointKind::Prismatic => ("m", "N", "m/s"),
        _ => ("rad", "N.m", "rad/s"),
    };
    let mut parts = Vec::new();
    if let Some(lower) = limit.lower {
        parts.push(format!("lower {} {angle}", num(lower)));
    }
    if let Some(upper) = limit.upper {
        parts.push(format!("upper {} {angle}", num(upper)));
    }
    if let Some(e) = limit.effort {
        parts.push(format!("effort {} {effort}", num(e)));
    }
    if let Some(v) = limit.velocity {
        parts.push(format!("velocity {} {speed}", num(v)));
    }
    format!(": limit {}", parts.join(", "))
}

/// How stiff an end stop is made from the limit's effort: it holds the rated effort at
/// this overtravel [rad for revolute joints, m for prismatic ones].
const STOP_OVERTRAVEL: (f64, f64) = (0.01, 0.001);

/// What a `<limit>` of a revolute or prismatic joint makes of its range (URDF's `lower` and
/// `upper`, 0 where absent): end stops that hold the rated effort at [`STOP_OVERTRAVEL`] past
/// the range, damped by the effort over the rated speed (the damper's force at the rated speed
/// is the rated effort); `Err` with the reason when the limit gives no stop.
fn stop_fields(joint: &Joint) -> Result<Option<String>, String> {
    let Some(limit) = &joint.limit else {
        return Ok(None);
    };
    let (overtravel, stiffness_unit, damping_unit) = match joint.kind {
        JointKind::Revolute => (STOP_OVERTRAVEL.0, "N.m/rad", "N.m.s/rad"),
        JointKind::Prismatic => (STOP_OVERTRAVEL.1, "N/m", "N.s/m"),
        _ => return Ok(None),
    };
    let (lower, upper) = (limit.lower.unwrap_or(0.0), limit.upper.unwrap_or(0.0));
    if lower >= upper {
        return Err(format!(
            "its range is empty (lower {} >= upper {})",
            num(lower),
            num(upper)
        ));
    }
    let effort = limit.effort.filter(|e| *e > 0.0).ok_or(
        "it has no positive effort to size the stop from (stop_stiffness = effort / overtravel)",
    )?;
    let stiffness = effort / overtravel;
    let damping = match limit.velocity {
        Some(v) if v > 0.0 => effort / v,
        _ => 0.0,
    };
    let unit = if joint.kind == JointKind::Revolute {
        ""
    } else {
        " m"
    };
    Ok(Some(format!(
        "lower = {}{unit}; upper = {}{unit}; stop_stiffness = {} {stiffness_unit}; stop_damping = {} {damping_unit}",
        num(lower),
        num(upper),
        num(stiffness),
        num(damping)
    )))
}

/// The stop fields of `joint`, where its limit gives stops ([`stop_fields`]).
fn end_stop(joint: &Joint) -> Option<String> {
    stop_fields(joint).ok().flatten()
}

/// The joint a `<mimic>` joint follows (its index in the robot's joints) and the mimic, where
/// both are revolute, continuous or prismatic and the leader mimics no other; `Err` with the
/// reason otherwise.
fn leader<'r>(robot: &'r Robot, joint: &'r Joint) -> Result<Option<(usize, &'r Mimic)>, String> {
    let Some(mimic) = &joint.mimic else {
        return Ok(None);
    };
    let one_axis = |kind: JointKind| {
        matches!(
            kind,
            JointKind::Revolute | JointKind::Continuous | JointKind::Prismatic
        )
    };
    let Some(k) = robot.joints.iter().position(|j| j.name == mimic.joint) else {
        return Err(format!("there is no joint `{}`", mimic.joint));
    };
    let followed = &robot.joints[k];
    if !one_axis(joint.kind) || !one_axis(followed.kind) {
        return Err(
            "a joint follows another only between revolute, continuous and prismatic joints".into(),
        );
    }
    if followed.mimic.is_some() {
        return Err(format!("`{}` mimics a joint itself", followed.name));
    }
    if followed.name == joint.name {
        return Err("it mimics itself".into());
    }
    Ok(Some((k, mimic)))
}

/// The notes on what of `joint` is not converted.
fn joint_notes(robot: &Robot, joint: &Joint, notes: &mut Vec<Note>) {
    if let (Some(limit), Err(reason)) = (&joint.limit, stop_fields(joint)) {
        notes.push(Note {
            line: limit.line,
            text: format!(
                "joint `{}`: <limit lower upper> is not enforced: {reason}; add `lower`, `upper` \
                 and `stop_stiffness` by hand",
                joint.name
            ),
        });
    }
    if joint.friction > 0.0 {
        notes.push(Note {
            line: joint.dynamics_line,
            text: format!(
                "joint `{}`: <dynamics friction> is not converted (fmu3d's joints have no \
                 Coulomb friction); its damping is",
                joint.name
            ),
        });
    }
    if joint.damping > 0.0 && matches!(joint.kind, JointKind::Planar | JointKind::Floating) {
        notes.push(Note {
            line: joint.dynamics_line,
            text: format!(
                "joint `{}`: <dynamics damping> of a {} joint is not converted (dampers act on \
                 revolute and prismatic joints)",
                joint.name,
                kind_word(joint.kind)
            ),
        });
    }
    if let (Some(mimic), Err(reason)) = (&joint.mimic, leader(robot, joint)) {
        notes.push(Note {
            line: mimic.line,
            text: format!(
                "joint `{}`: <mimic joint=\"{}\"> is not converted ({reason}): the joint moves \
                 by itself, with a torque (force) input",
                joint.name, mimic.joint
            ),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_model_format_and_stay_unique() {
        let mut names = Names {
            used: HashSet::new(),
            renamed: Vec::new(),
        };
        assert_eq!(names.take("base_link"), "base_link");
        assert_eq!(names.take("arm-1.link"), "arm_1_link");
        assert_eq!(names.take("arm_1_link"), "arm_1_link_2");
        assert_eq!(names.take("2nd"), "_2nd");
        assert_eq!(names.take("world"), "world_");
        assert_eq!(names.renamed.len(), 4);
    }

    #[test]
    fn rpy_is_about_the_fixed_axes() {
        // Roll then yaw about the fixed axes: x goes to y by the yaw, the roll turns y to z.
        let r = rpy_matrix(&[
            std::f64::consts::FRAC_PI_2,
            0.0,
            std::f64::consts::FRAC_PI_2,
        ]);
        let x = r * nalgebra::Vector3::x();
        let y = r * nalgebra::Vector3::y();
        assert!((x - nalgebra::Vector3::y()).norm() < 1e-15, "{x}");
        assert!((y - nalgebra::Vector3::z()).norm() < 1e-15, "{y}");
    }

    #[test]
    fn an_inertia_no_body_has_is_balanced_about_its_axes() {
        // xarm6's link 2 (pybullet_data) rounded: 3.06e-3 + 2.36e-2 < 2.69e-2.
        let r = rpy_matrix(&[0.3, -0.2, 1.1]);
        let i = r
            * Matrix3::from_diagonal(&nalgebra::Vector3::new(3.06e-3, 2.36e-2, 2.69e-2))
            * r.transpose();
        let (fixed, before) = balanced(&i).expect("unbalanced");
        assert!((before[2] - 2.69e-2).abs() < 1e-15);
        let back = r.transpose() * fixed * r;
        let expected = Matrix3::from_diagonal(&nalgebra::Vector3::new(3.06e-3, 2.36e-2, 2.666e-2));
        assert!((back - expected).norm() < 1e-15, "{back}");
        assert!(balanced(&fixed).is_none());
        assert!(balanced(&Matrix3::from_diagonal(&nalgebra::Vector3::new(
            1.0, 1.0, 2.0
        )))
        .is_none());
    }

    #[test]
    fn an_inertia_in_a_turned_frame_is_turned_into_the_links_axes() {
        let inertial = Inertial {
            origin: Pose {
                xyz: [0.1, 0.0, 0.0],
                rpy: [0.0, 0.0, std::f64::consts::FRAC_PI_2],
            },
            mass: 2.0,
            inertia: [1.0, 2.0, 3.0, 0.0, 0.0, 0.0],
            line: 1,
        };
        let block = mass_block(&inertial, "l", &mut Vec::new()).expect("a mass");
        // A quarter turn about z swaps the x and y moments.
        assert!(block.starts_with("mass { m = 2 kg; center = [0.1, 0, 0] m; inertia = [2"));
        assert!(
            block.contains(", 1.0000000000000002, 3,") || block.contains(", 1, 3,"),
            "{block}"
        );
    }
}
