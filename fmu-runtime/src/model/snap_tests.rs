//! SNAP: placements computed from rigid mates against transforms worked out by hand, the same
//! placements whatever the order of the statements, redundant mates reported, contradictory
//! ones refused with their place in the file.

use super::tests::fails;
use super::*;
use nalgebra::{Isometry3, Matrix3, Rotation3, Vector3};
use std::f64::consts::FRAC_PI_2;

fn load(src: &str) -> ModelSpec {
    load_str(src, "snap.m3d").unwrap_or_else(|e| panic!("{e}"))
}

/// Pose of an object in the world, through its parents (which must end at the world).
fn world_pose(spec: &ModelSpec, name: &str) -> Isometry3<f64> {
    let mut pose = Isometry3::identity();
    let mut current = name.to_string();
    while current != WORLD {
        let object = spec
            .objects
            .iter()
            .find(|o| o.name == current)
            .unwrap_or_else(|| panic!("no object {current}"));
        pose = Isometry3::from_parts(object.position.into(), object.rotation) * pose;
        current = object
            .parent
            .clone()
            .unwrap_or_else(|| panic!("{current} is not placed"));
    }
    pose
}

fn rotation_y(angle: f64) -> Matrix3<f64> {
    *Rotation3::from_axis_angle(&Vector3::y_axis(), angle).matrix()
}

/// Rotation that maps the unit vectors x, y, z onto the given columns.
fn columns(x: [f64; 3], y: [f64; 3], z: [f64; 3]) -> Matrix3<f64> {
    Matrix3::from_columns(&[x.into(), y.into(), z.into()])
}

fn assert_pose(spec: &ModelSpec, name: &str, position: [f64; 3], rotation: Matrix3<f64>) {
    let pose = world_pose(spec, name);
    let position_error = (pose.translation.vector - Vector3::from(position)).norm();
    let rotation_error = (pose.rotation.to_rotation_matrix().matrix() - rotation).norm();
    assert!(
        position_error < 1e-12 && rotation_error < 1e-12,
        "{name}: position {} (error {position_error:.1e}), rotation {} (error {rotation_error:.1e})",
        pose.translation.vector,
        pose.rotation.to_rotation_matrix().matrix()
    );
}

/// The three-level example of [OpenPLX]: a rod inside two nested sub-assemblies, locked by its
/// connector to a connector of a world-fixed mount. The rod hangs from the assembly's first
/// object `base` (0.2 m along z, turned 90° about z), so SNAP places `base`, through two
/// parents and two instance levels.
#[test]
fn places_the_root_of_a_nested_instance_from_a_connector_deep_inside() {
    let spec = load(
        "assembly RodParent() {
           object base { }
           object rod {
             parent = base; position = [0, 0, 0.2] m; rotation = axis_angle(z, 90 deg)
             mass { m = 10 kg }
             mate connector { position = [0, 0, -0.6] m; main_axis = y; normal = z }
           }
         }
         assembly RodParentParent() { instance rod_system = RodParent() }
         object mount { parent = world; position = [0, 1, 0] m
           mate world_connector { position = [0.5, 0, 0] m; main_axis = y; normal = x }
         }
         instance rod_system = RodParentParent()
         joint world_lock fixed { from = mount.world_connector; to = rod_system.rod_system.rod.connector }",
    );
    // The world connector A: at [0.5, 1, 0], z along y, x along x (so its y is -z). The rod's
    // connector M in the rod: z along y, x along z (y along x). Rod = A·M⁻¹ maps z → x, x → -z,
    // y → y: a quarter turn about y; the connector 0.6 m down the rod's z lands on A, so the rod
    // is at [0.5 + 0.6, 1, 0]; `base` is 0.2 m further back along the rod's z.
    let rod = rotation_y(FRAC_PI_2);
    assert_pose(&spec, "rod_system.rod_system.rod", [1.1, 1.0, 0.0], rod);
    let base = columns([0.0, -1.0, 0.0], [0.0, 0.0, -1.0], [1.0, 0.0, 0.0]);
    assert_pose(&spec, "rod_system.rod_system.base", [0.9, 1.0, 0.0], base);
    let a = world_pose(&spec, "mount.world_connector");
    let m = world_pose(&spec, "rod_system.rod_system.rod.connector");
    assert!((a.inverse() * m).translation.vector.norm() < 1e-12);
    assert!((a.inverse() * m).rotation.angle() < 1e-12);
    assert_eq!(
        spec.snapped,
        vec![SnappedSpec {
            object: "rod_system.rod_system.base".into(),
            mate: "world_lock".into()
        }]
    );
    assert!(spec.redundant_mates.is_empty());
}

/// A plate turned 30° about the vertical, a motor bolted on it by two bolts (the second
/// written from the motor to the plate), a pulley keyed on the motor with a quarter-turn offset
/// (written from the pulley, which is placed later), and a cover 20 mm along the pulley's bore.
const OBJECTS: [&str; 4] = [
    "object plate { parent = world; position = [0, 0.5, 0] m; rotation = axis_angle(y, 30 deg); mate a { position = [-0.04, 0.005, 0] m; main_axis = y; normal = x }; mate b { position = [0.04, 0.005, 0] m; main_axis = y; normal = x } }",
    "object motor { mass { m = 1 kg }; mate a { position = [-0.04, 0, -0.06] m; main_axis = z; normal = x }; mate b { position = [0.04, 0, -0.06] m; main_axis = z; normal = x }; mate top { position = [0, 0, 0.06] m; main_axis = z; normal = x } }",
    "object pulley { mass { m = 1 kg }; mate bore { position = [0, 0, 0.01] m; main_axis = -z; normal = y } }",
    "object cover { mass { m = 1 kg }; mate seat { main_axis = x } }",
];
const MATES: [&str; 4] = [
    "joint bolt_a fixed { from = plate.a; to = motor.a }",
    "joint bolt_b fixed { from = motor.b; to = plate.b }",
    "joint key fixed { from = pulley.bore; to = motor.top; rotation = axis_angle(z, 90 deg) }",
    "joint cap fixed { from = pulley.bore; to = cover.seat; position = [0, 0, 0.02] m }",
];

/// The placements of [`OBJECTS`], worked out by hand.
fn assert_hand_computed(spec: &ModelSpec) {
    let yaw = 30f64.to_radians();
    // Motor: its z (the holes' main axis) on the plate's y, its x on the plate's x; its holes
    // 0.06 m below its origin sit 0.005 m above the plate's origin.
    let motor = rotation_y(yaw) * columns([1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]);
    assert_pose(spec, "motor", [0.0, 0.565, 0.0], motor);
    // Pulley: bore B (x along y, z along -z, so y along x) = motor.top · Rz(-90°), so the pulley
    // is motor · Rz(-90°) · B⁻¹ = motor · Rx(180°); the bore, 0.01 m along the pulley's z, sits
    // on the motor's top at [0, 0.625, 0].
    let pulley = motor * columns([1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, -1.0]);
    assert_pose(spec, "pulley", [0.0, 0.635, 0.0], pulley);
    // Cover: seat C (z along x, x along y, y along z) = bore · offset, 0.02 m along the bore's
    // z (up); cover = motor · Rz(-90°) · C⁻¹.
    let cover = motor * columns([0.0, 0.0, 1.0], [0.0, -1.0, 0.0], [1.0, 0.0, 0.0]);
    assert_pose(spec, "cover", [0.0, 0.645, 0.0], cover);
}

#[test]
fn placements_equal_the_hand_computed_transforms() {
    let spec = load(&[OBJECTS.join("\n"), MATES.join("\n")].join("\n"));
    assert_hand_computed(&spec);
    let placed: Vec<(&str, &str)> = spec
        .snapped
        .iter()
        .map(|s| (s.object.as_str(), s.mate.as_str()))
        .collect();
    assert_eq!(
        placed,
        [("motor", "bolt_a"), ("pulley", "key"), ("cover", "cap")]
    );
    let redundant = &spec.redundant_mates;
    assert_eq!(redundant.len(), 1);
    assert_eq!(redundant[0].name, "bolt_b");
    assert_eq!(redundant[0].location.line, 6);
    assert_eq!(
        redundant[0].determined_by,
        ["fixed joint `bolt_a` (line 5)"]
    );
    assert!(redundant[0].position_error < 1e-12 && redundant[0].angle_error < 1e-12);
}

/// Every order of the four mates, with the objects first in reverse order or after the mates:
/// the placements do not change; one of the two bolts is redundant.
#[test]
fn the_order_of_the_statements_does_not_matter() {
    let mut orders = 0;
    for permutation in permutations(4) {
        let mates: Vec<&str> = permutation.iter().map(|&i| MATES[i]).collect();
        let objects: Vec<&str> = OBJECTS.iter().rev().copied().collect();
        for text in [
            [objects.join("\n"), mates.join("\n")].join("\n"),
            [mates.join("\n"), OBJECTS.join("\n")].join("\n"),
        ] {
            let spec = load(&text);
            assert_hand_computed(&spec);
            assert_eq!(spec.redundant_mates.len(), 1, "{text}");
            assert!(spec.redundant_mates[0].name.starts_with("bolt_"));
            orders += 1;
        }
    }
    assert_eq!(orders, 48);
}

fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for shorter in permutations(n - 1) {
        for slot in 0..=shorter.len() {
            let mut p = shorter.clone();
            p.insert(slot, n - 1);
            out.push(p);
        }
    }
    out
}

/// A mate between two objects that `parent` already placed: redundant when they agree.
#[test]
fn a_mate_between_placed_objects_that_agree_is_redundant() {
    let spec = load(
        "object a { parent = world; rotation = axis_angle(x, 90 deg); mate c { position = [1, 0, 0] m; main_axis = z } }
         object b { parent = world; position = [1, 0, 0] m; mate c { main_axis = -y } }
         joint j fixed { from = a.c; to = b.c }",
    );
    assert!(spec.snapped.is_empty());
    assert_eq!(spec.redundant_mates.len(), 1);
    assert_eq!(
        spec.redundant_mates[0].determined_by,
        [
            "the `parent` of `a` (line 1)",
            "the `parent` of `b` (line 2)"
        ]
    );
}

const PLATE: &str = "object plate { parent = world; mate a { position = [-0.04, 0, 0] m; main_axis = y; normal = x }; mate b { position = [0.04, 0, 0] m; main_axis = y; normal = x } }\n";

#[test]
fn contradictory_mates_name_both_mates_and_the_mismatch() {
    // The motor's holes are 90 mm apart, the plate's 80 mm.
    let e = fails(
        &format!("{PLATE}object motor {{ mass {{ m = 1 kg }}; mate a {{ position = [-0.045, 0, 0] m; main_axis = z }}; mate b {{ position = [0.045, 0, 0] m; main_axis = z }} }}\njoint bolt_a fixed {{ from = plate.a; to = motor.a }}\njoint bolt_b fixed {{ from = plate.b; to = motor.b }}"),
        4,
        7,
        "fixed joint `bolt_b` contradicts the placement given by fixed joint `bolt_a` (line 3): `plate.b` and `motor.b` are 0.01 m apart, their main axes agree, their normals agree",
    );
    assert!(e.help.as_deref().unwrap_or("").contains("remove `bolt_b`"));
    // The second hole's normal turned a quarter turn about the main axis.
    fails(
        &format!("{PLATE}object motor {{ mass {{ m = 1 kg }}; mate a {{ position = [-0.04, 0, 0] m; main_axis = z; normal = x }}; mate b {{ position = [0.04, 0, 0] m; main_axis = z; normal = y }} }}\njoint bolt_a fixed {{ from = plate.a; to = motor.a }}\njoint bolt_b fixed {{ from = plate.b; to = motor.b }}"),
        4,
        7,
        "are at the same place, their main axes agree, their normals are 1.571 rad (90°) apart",
    );
    // The second hole's main axis tilted by 10 degrees about the normal.
    fails(
        &format!("{PLATE}object motor {{ mass {{ m = 1 kg }}; mate a {{ position = [-0.04, 0, 0] m; main_axis = z; normal = x }}; mate b {{ position = [0.04, 0, 0] m; main_axis = [0, sin(10 deg), cos(10 deg)]; normal = x }} }}\njoint bolt_a fixed {{ from = plate.a; to = motor.a }}\njoint bolt_b fixed {{ from = plate.b; to = motor.b }}"),
        4,
        7,
        "their main axes are 0.1745 rad (10°) apart, their normals agree",
    );
}

#[test]
fn an_impossible_rigid_loop_is_refused_at_the_mate_that_closes_it() {
    // a → b → c places c 2 m from a along x; the third mate wants it 1 m away.
    fails(
        "object a { parent = world; mate east { position = [1, 0, 0] m; main_axis = z }; mate far { position = [1, 0, 0] m; main_axis = z } }
object b { mass { m = 1 kg }; mate west { main_axis = z }; mate east { position = [1, 0, 0] m; main_axis = z } }
object c { mass { m = 1 kg }; mate west { main_axis = z } }
joint ab fixed { from = a.east; to = b.west }
joint bc fixed { from = b.east; to = c.west }
joint ca fixed { from = a.far; to = c.west }",
        6,
        7,
        "fixed joint `ca` contradicts the placement given by fixed joint `bc` (line 5), fixed joint `ab` (line 4): `a.far` and `c.west` are 1 m apart",
    );
}

#[test]
fn impossible_mates_are_errors_with_a_hint() {
    let motor = "object motor { mass { m = 1 kg }; mate a { main_axis = z }; mate bearing { main_axis = z } }\n";
    let e = fails(
        &format!("{motor}joint j fixed {{ from = motor.a; to = motor.bearing }}"),
        2,
        7,
        "fixed joint `j` joins `motor.a` and `motor.bearing`, which belong to the same object `motor`",
    );
    assert!(e.help.as_deref().unwrap_or("").contains("other part"));
    let e = fails(
        &format!("{PLATE}{motor}joint j fixed {{ from = plate.a; to = motor.bering }}"),
        3,
        38,
        "object `motor` has no mate connector `bering`",
    );
    assert_eq!(e.help.as_deref(), Some("did you mean `bearing`?"));
    let e = fails(
        &format!("{PLATE}{motor}joint j fixed {{ from = plate.a; to = motor.shaft }}"),
        3,
        38,
        "object `motor` has no mate connector `shaft`",
    );
    assert_eq!(
        e.help.as_deref(),
        Some("the connectors of `motor` are: a, bearing")
    );
    fails(
        &format!("{motor}object pulley {{ mass {{ m = 1 kg }}; mate bore {{ main_axis = z }} }}\njoint key fixed {{ from = motor.bearing; to = pulley.bore }}"),
        3,
        7,
        "fixed joint `key` joins `motor.bearing` and `pulley.bore`, but neither part is placed",
    );
    fails(
        &format!("{PLATE}{motor}joint spin revolute {{ from = world; to = motor }}\njoint bolt fixed {{ from = plate.a; to = motor.a }}"),
        4,
        7,
        "fixed joint `bolt` cannot join `plate.a` and `motor.a`: the part of `plate.a` is fixed to the world and the part of `motor.a` is moved by joint `spin` (line 3)",
    );
    // The mate bolts the carrier to the arm that the carrier is to move.
    fails(
        &format!("{motor}object arm {{ mass {{ m = 1 kg }}; mate x {{ main_axis = z }} }}\njoint j revolute {{ from = motor; to = arm }}\njoint m fixed {{ from = arm.x; to = motor.a }}"),
        3,
        7,
        "joint `j` would move `arm` relative to `motor`, but both belong to one rigid part",
    );
    // A part placed by a mate has no position of its own.
    fails(
        &format!("{PLATE}object motor {{ position = [1, 0, 0] m; mate a {{ main_axis = z }} }}\njoint bolt fixed {{ from = plate.a; to = motor.a }}"),
        2,
        16,
        "has a position or rotation but no `parent`",
    );
}
