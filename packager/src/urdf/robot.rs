//! The robot a URDF file describes (its links, joints and materials), read from the element
//! tree with every value checked, and the notes on what the file holds that is not converted.
//!
//! URDF's conventions, as ROS defines them (wiki.ros.org/urdf/XML): lengths in metres, angles
//! in radians, `origin rpy` roll, pitch and yaw about the fixed x, y and z axes, inertia about
//! the centre of mass in the `inertial` origin's axes, `cylinder` along z.

use std::collections::HashMap;

use super::xml::Element;

/// A placement: `origin xyz` [m] and `rpy` [rad].
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Pose {
    pub xyz: [f64; 3],
    pub rpy: [f64; 3],
}

/// A link's `inertial`: its mass [kg], the frame of its centre of mass and its inertia about it
/// in that frame's axes, `[ixx, iyy, izz, ixy, ixz, iyz]` (tensor elements) [kg m²].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Inertial {
    pub origin: Pose,
    pub mass: f64,
    pub inertia: [f64; 6],
    pub line: usize,
}

/// A `visual` or `collision` geometry.
#[derive(Debug, Clone, PartialEq)]
pub enum Geometry {
    Box {
        size: [f64; 3],
    },
    Cylinder {
        radius: f64,
        length: f64,
    },
    Sphere {
        radius: f64,
    },
    /// `filename` as written, and its `scale`.
    Mesh {
        filename: String,
        scale: [f64; 3],
    },
}

/// A `visual` or `collision` element: its origin in the link's frame, its geometry and (for a
/// visual) its colour, RGBA from 0 to 1.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    pub origin: Pose,
    pub geometry: Geometry,
    pub color: Option<[f64; 4]>,
    pub line: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    pub name: String,
    pub inertial: Option<Inertial>,
    pub visuals: Vec<Shape>,
    pub collisions: Vec<Shape>,
    pub line: usize,
}

/// URDF's joint types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JointKind {
    Revolute,
    Continuous,
    Prismatic,
    Fixed,
    Floating,
    Planar,
}

/// A joint's `limit`: the range of its coordinate [rad or m] (absent for `continuous`), and the
/// largest effort [N m or N] and speed [rad/s or m/s].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limit {
    pub lower: Option<f64>,
    pub upper: Option<f64>,
    pub effort: Option<f64>,
    pub velocity: Option<f64>,
    pub line: usize,
}

/// A joint's `mimic`: it follows `joint` as `multiplier · q + offset`.
#[derive(Debug, Clone, PartialEq)]
pub struct Mimic {
    pub joint: String,
    pub multiplier: f64,
    pub offset: f64,
    pub line: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Joint {
    pub name: String,
    pub kind: JointKind,
    pub parent: String,
    pub child: String,
    pub origin: Pose,
    /// The joint's axis in its frame, unit length (x where the file gives none).
    pub axis: [f64; 3],
    pub limit: Option<Limit>,
    /// `dynamics damping` [N m s/rad or N s/m] and `friction` [N m or N], with the line.
    pub damping: f64,
    pub friction: f64,
    pub dynamics_line: usize,
    pub mimic: Option<Mimic>,
    pub line: usize,
}

/// Something in the file that is read but not converted, with its line: said on the standard
/// error and written into the model file, never dropped silently.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub line: usize,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Robot {
    pub name: String,
    pub links: Vec<Link>,
    pub joints: Vec<Joint>,
    pub notes: Vec<Note>,
}

impl Robot {
    /// The robot of a URDF file's root element. An error names the line and what to change.
    pub fn read(root: &Element) -> Result<Robot, String> {
        if root.name != "robot" {
            return Err(format!(
                "line {}: the root element is <{}>, not <robot>: not a URDF file",
                root.line, root.name
            ));
        }
        let name = required(root, "name")?.to_string();
        let mut notes = Vec::new();
        let mut materials: HashMap<String, [f64; 4]> = HashMap::new();
        for material in root.children_named("material") {
            if let Some(color) = color_of(material, &mut notes)? {
                materials.insert(required(material, "name")?.to_string(), color);
            }
        }
        let mut links = Vec::new();
        let mut joints = Vec::new();
        for element in &root.children {
            match element.name.as_str() {
                "link" => links.push(link(element, &materials, &mut notes)?),
                "joint" => joints.push(joint(element, &mut notes)?),
                "material" => {}
                other => notes.push(Note {
                    line: element.line,
                    text: format!(
                        "<{other}> is not read (fmu3d converts links, joints and materials)"
                    ),
                }),
            }
        }
        let robot = Robot {
            name,
            links,
            joints,
            notes,
        };
        robot.check_tree()?;
        Ok(robot)
    }

    /// The link called `name`.
    pub fn link(&self, name: &str) -> Option<&Link> {
        self.links.iter().find(|l| l.name == name)
    }

    /// The root link: the one link that is no joint's child.
    pub fn root(&self) -> &Link {
        self.links
            .iter()
            .find(|l| !self.joints.iter().any(|j| j.child == l.name))
            .unwrap_or(&self.links[0])
    }

    /// Links and joints form one tree: names unique, every joint's links exist, each link the
    /// child of one joint at most, one root, no cycle.
    fn check_tree(&self) -> Result<(), String> {
        if self.links.is_empty() {
            return Err("the robot has no <link>".to_string());
        }
        for (k, link) in self.links.iter().enumerate() {
            if let Some(first) = self.links[..k].iter().find(|l| l.name == link.name) {
                return Err(format!(
                    "line {}: a second link `{}` (the first is on line {})",
                    link.line, link.name, first.line
                ));
            }
        }
        for (k, joint) in self.joints.iter().enumerate() {
            if let Some(first) = self.joints[..k].iter().find(|j| j.name == joint.name) {
                return Err(format!(
                    "line {}: a second joint `{}` (the first is on line {})",
                    joint.line, joint.name, first.line
                ));
            }
            for (role, name) in [("parent", &joint.parent), ("child", &joint.child)] {
                if self.link(name).is_none() {
                    return Err(format!(
                        "line {}: joint `{}` names the {role} link `{name}`, which the file does \
                         not define",
                        joint.line, joint.name
                    ));
                }
            }
            if let Some(first) = self.joints[..k].iter().find(|j| j.child == joint.child) {
                return Err(format!(
                    "line {}: link `{}` is the child of joint `{}` and of joint `{}` (line {}): \
                     a URDF robot is a tree, each link the child of one joint",
                    joint.line, joint.child, joint.name, first.name, first.line
                ));
            }
        }
        let roots: Vec<&Link> = self
            .links
            .iter()
            .filter(|l| !self.joints.iter().any(|j| j.child == l.name))
            .collect();
        match roots.as_slice() {
            [_] => Ok(()),
            [] => Err("every link is a joint's child: the joints form a loop".to_string()),
            [first, second, ..] => Err(format!(
                "links `{}` (line {}) and `{}` (line {}) are both roots (no joint's child): join \
                 them by a joint, a URDF robot is one tree",
                first.name, first.line, second.name, second.line
            )),
        }
    }
}

/// Attribute `name` of `element`, which URDF requires.
fn required<'e>(element: &'e Element, name: &str) -> Result<&'e str, String> {
    element.attribute(name).ok_or_else(|| {
        format!(
            "line {}: <{}> has no `{name}` attribute, which URDF requires",
            element.line, element.name
        )
    })
}

/// The numbers of attribute `name` (separated by spaces), `N` of them, or `default` where the
/// attribute is absent.
fn numbers<const N: usize>(
    element: &Element,
    name: &str,
    default: Option<[f64; N]>,
) -> Result<[f64; N], String> {
    let Some(text) = element.attribute(name) else {
        return default.ok_or_else(|| {
            format!(
                "line {}: <{}> has no `{name}` attribute, which URDF requires",
                element.line, element.name
            )
        });
    };
    let bad = || {
        format!(
            "line {}: <{} {name}=\"{text}\">: expected {N} number{} separated by spaces",
            element.line,
            element.name,
            if N == 1 { "" } else { "s" }
        )
    };
    let values: Vec<f64> = text
        .split_whitespace()
        .map(|word| word.parse::<f64>().ok().filter(|v| v.is_finite()))
        .collect::<Option<Vec<f64>>>()
        .ok_or_else(bad)?;
    values.try_into().map_err(|_| bad())
}

/// One number: attribute `name`, or `default`.
fn number(element: &Element, name: &str, default: Option<f64>) -> Result<f64, String> {
    numbers::<1>(element, name, default.map(|d| [d])).map(|[v]| v)
}

/// A positive number (a size or a mass).
fn positive(element: &Element, name: &str) -> Result<f64, String> {
    let value = number(element, name, None)?;
    if value > 0.0 {
        Ok(value)
    } else {
        Err(format!(
            "line {}: <{} {name}=\"{value}\">: must be positive",
            element.line, element.name
        ))
    }
}

/// The `origin` child of `element` (zero where absent).
fn origin(element: &Element) -> Result<Pose, String> {
    match element.child("origin") {
        None => Ok(Pose::default()),
        Some(origin) => Ok(Pose {
            xyz: numbers(origin, "xyz", Some([0.0; 3]))?,
            rpy: numbers(origin, "rpy", Some([0.0; 3]))?,
        }),
    }
}

/// A `material`'s colour (RGBA 0 to 1), if it gives one; a texture is noted.
fn color_of(material: &Element, notes: &mut Vec<Note>) -> Result<Option<[f64; 4]>, String> {
    if let Some(texture) = material.child("texture") {
        notes.push(Note {
            line: texture.line,
            text: "<texture> is not converted: the part is drawn in its colour (grey without one)"
                .to_string(),
        });
    }
    match material.child("color") {
        Some(color) => {
            let rgba: [f64; 4] = numbers(color, "rgba", None)?;
            if rgba.iter().any(|c| !(0.0..=1.0).contains(c)) {
                return Err(format!(
                    "line {}: <color rgba>: each of red, green, blue and alpha is from 0 to 1",
                    color.line
                ));
            }
            Ok(Some(rgba))
        }
        None => Ok(None),
    }
}

fn link(
    element: &Element,
    materials: &HashMap<String, [f64; 4]>,
    notes: &mut Vec<Note>,
) -> Result<Link, String> {
    let inertial = match element.child("inertial") {
        None => None,
        Some(inertial) => {
            let mass = inertial
                .child("mass")
                .ok_or_else(|| format!("line {}: <inertial> has no <mass>", inertial.line))?;
            let mass = number(mass, "value", None)?;
            if mass < 0.0 {
                return Err(format!(
                    "line {}: a negative mass ({mass} kg)",
                    inertial.line
                ));
            }
            let inertia = match inertial.child("inertia") {
                None => [0.0; 6],
                Some(i) => [
                    number(i, "ixx", Some(0.0))?,
                    number(i, "iyy", Some(0.0))?,
                    number(i, "izz", Some(0.0))?,
                    number(i, "ixy", Some(0.0))?,
                    number(i, "ixz", Some(0.0))?,
                    number(i, "iyz", Some(0.0))?,
                ],
            };
            Some(Inertial {
                origin: origin(inertial)?,
                mass,
                inertia,
                line: inertial.line,
            })
        }
    };
    let mut visuals = Vec::new();
    let mut collisions = Vec::new();
    for (kind, list) in [("visual", &mut visuals), ("collision", &mut collisions)] {
        for shape in element.children_named(kind) {
            let geometry_element = shape
                .child("geometry")
                .ok_or_else(|| format!("line {}: <{kind}> has no <geometry>", shape.line))?;
            let Some(geometry) = geometry(geometry_element, notes)? else {
                continue;
            };
            let color = match shape.child("material") {
                None => None,
                Some(material) => match color_of(material, notes)? {
                    Some(color) => Some(color),
                    None => material
                        .attribute("name")
                        .and_then(|name| materials.get(name).copied()),
                },
            };
            list.push(Shape {
                origin: origin(shape)?,
                geometry,
                color,
                line: shape.line,
            });
        }
    }
    Ok(Link {
        name: required(element, "name")?.to_string(),
        inertial,
        visuals,
        collisions,
        line: element.line,
    })
}

/// The geometry of a `geometry` element; `None` (with a note) for one that is not converted.
fn geometry(element: &Element, notes: &mut Vec<Note>) -> Result<Option<Geometry>, String> {
    let Some(shape) = element.children.first() else {
        return Err(format!("line {}: <geometry> is empty", element.line));
    };
    Ok(Some(match shape.name.as_str() {
        "box" => {
            let size: [f64; 3] = numbers(shape, "size", None)?;
            if size.iter().any(|s| *s <= 0.0) {
                return Err(format!(
                    "line {}: <box size>: every length must be positive",
                    shape.line
                ));
            }
            Geometry::Box { size }
        }
        "cylinder" | "sphere" if number(shape, "radius", None)? == 0.0 => {
            notes.push(Note {
                line: shape.line,
                text: format!(
                    "<{} radius=\"0\"> is left out: a shape of no size",
                    shape.name
                ),
            });
            return Ok(None);
        }
        "cylinder" => Geometry::Cylinder {
            radius: positive(shape, "radius")?,
            length: positive(shape, "length")?,
        },
        "sphere" => Geometry::Sphere {
            radius: positive(shape, "radius")?,
        },
        "mesh" => Geometry::Mesh {
            filename: required(shape, "filename")?.to_string(),
            scale: numbers(shape, "scale", Some([1.0; 3]))?,
        },
        other => {
            notes.push(Note {
                line: shape.line,
                text: format!(
                    "<{other}> geometry is not converted (box, cylinder, sphere and mesh are)"
                ),
            });
            return Ok(None);
        }
    }))
}

fn joint(element: &Element, notes: &mut Vec<Note>) -> Result<Joint, String> {
    let name = required(element, "name")?.to_string();
    let kind = match required(element, "type")? {
        "revolute" => JointKind::Revolute,
        "continuous" => JointKind::Continuous,
        "prismatic" => JointKind::Prismatic,
        "fixed" => JointKind::Fixed,
        "floating" => JointKind::Floating,
        "planar" => JointKind::Planar,
        other => {
            return Err(format!(
                "line {}: joint `{name}` has type `{other}`: URDF's types are revolute, \
                 continuous, prismatic, fixed, floating and planar",
                element.line
            ))
        }
    };
    let link_of = |role: &str| -> Result<String, String> {
        let child = element.child(role).ok_or_else(|| {
            format!(
                "line {}: joint `{name}` has no <{role}>, which URDF requires",
                element.line
            )
        })?;
        Ok(required(child, "link")?.to_string())
    };
    let axis = match element.child("axis") {
        // A fixed joint's axis means nothing (franka_panda writes 0 0 0 there).
        Some(_) if kind == JointKind::Fixed => [1.0, 0.0, 0.0],
        None => [1.0, 0.0, 0.0],
        Some(axis) => {
            let a: [f64; 3] = numbers(axis, "xyz", Some([1.0, 0.0, 0.0]))?;
            let norm = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
            if norm == 0.0 {
                return Err(format!(
                    "line {}: joint `{name}` has the axis 0 0 0: give its direction",
                    axis.line
                ));
            }
            a.map(|c| c / norm)
        }
    };
    let limit = match element.child("limit") {
        None => None,
        Some(limit) => Some(Limit {
            lower: limit
                .attribute("lower")
                .map(|_| number(limit, "lower", None))
                .transpose()?,
            upper: limit
                .attribute("upper")
                .map(|_| number(limit, "upper", None))
                .transpose()?,
            effort: limit
                .attribute("effort")
                .map(|_| number(limit, "effort", None))
                .transpose()?,
            velocity: limit
                .attribute("velocity")
                .map(|_| number(limit, "velocity", None))
                .transpose()?,
            line: limit.line,
        }),
    };
    let (damping, friction, dynamics_line) = match element.child("dynamics") {
        None => (0.0, 0.0, element.line),
        Some(d) => (
            number(d, "damping", Some(0.0))?,
            number(d, "friction", Some(0.0))?,
            d.line,
        ),
    };
    if damping < 0.0 || friction < 0.0 {
        return Err(format!(
            "line {dynamics_line}: joint `{name}`: damping and friction must not be negative"
        ));
    }
    let mimic = match element.child("mimic") {
        None => None,
        Some(m) => Some(Mimic {
            joint: required(m, "joint")?.to_string(),
            multiplier: number(m, "multiplier", Some(1.0))?,
            offset: number(m, "offset", Some(0.0))?,
            line: m.line,
        }),
    };
    for unread in ["calibration", "safety_controller"] {
        if let Some(e) = element.child(unread) {
            notes.push(Note {
                line: e.line,
                text: format!("joint `{name}`: <{unread}> is not converted (it concerns a real robot's controller)"),
            });
        }
    }
    Ok(Joint {
        kind,
        parent: link_of("parent")?,
        child: link_of("child")?,
        origin: origin(element)?,
        axis,
        limit,
        damping,
        friction,
        dynamics_line,
        mimic,
        line: element.line,
        name,
    })
}
