//! One field's effect each, in a scene where it dominates, against a closed form: the rest
//! position of a joint's spring, a prismatic joint's start values and damper, a line spring and
//! a line damper, a fixed joint's rotation, a free joint's start rotation and spin, a point
//! mass's gravity, a contact output's distance, a box's contact smoothing, a drive train's
//! damper, and a drive spring's unstretched angle with the start angle of the inertia before it. Each had no test of its own
//! (docs/testing.md, feature table): a wrong sign or a coefficient off by 10 % in any of them
//! passed the whole suite.
//!
//! No gravity but in the orbit and under the turned bob: each other motion is a linear
//! oscillator or a linear decay.

use fmu3d_tests::simulate;
use fmu_runtime::model;

/// The largest difference between `values` and `expected(t)` over the run's samples.
fn largest_error(time: &[f64], values: &[f64], expected: impl Fn(f64) -> f64) -> f64 {
    time.iter()
        .zip(values)
        .map(|(t, v)| (v - expected(*t)).abs())
        .fold(0.0, f64::max)
}

/// The model `source` run to `stop` at the tolerance 1e-8, sampled every `interval`.
fn run(source: &str, stop: f64, interval: f64) -> fmu3d_tests::Trajectory {
    let spec = model::load_str_with(source, "field_effects.m3d", &[]).expect("model");
    simulate(spec, 1e-8, stop, interval)
}

/// A revolute joint's spring (c = 2 N·m/rad) with `spring_rest` 0.3 rad on a body of J = 0.02
/// kg·m² about the axis, released at rest at φ = 0: φ(t) = 0.3 (1 − cos ωt), ω = √(c/J) =
/// 10 rad/s. A prismatic joint's spring (c = 50 N/m) with `spring_rest` 0.1 m on 2 kg, released
/// at s = 0: s(t) = 0.1 (1 − cos 5t).
#[test]
fn a_joint_spring_swings_about_its_rest_position() {
    let run = run(
        r#"
model springs "joint springs with a rest position"
gravity none
object wheel { mass { m = 1 kg; inertia = diag(0.02, 0.02, 0.02) kg.m2 } }
joint rev revolute { from = world; to = wheel; axis = z; phi = 0; w = 0; spring = 2 N.m/rad; spring_rest = 0.3 rad }
object slider { mass { m = 2 kg; inertia = diag(0.01, 0.01, 0.01) kg.m2 } }
joint pri prismatic { from = world; to = slider; axis = x; s = 0; v = 0; spring = 50 N/m; spring_rest = 0.1 m }
"#,
        2.0,
        0.01,
    );
    let phi = largest_error(&run.time, run.column("rev.phi"), |t| {
        0.3 * (1.0 - (10.0 * t).cos())
    });
    let s = largest_error(&run.time, run.column("pri.s"), |t| {
        0.1 * (1.0 - (5.0 * t).cos())
    });
    eprintln!("revolute spring about its rest angle: {phi:.1e} rad; prismatic: {s:.1e} m");
    // A rest position 10 % off moves the centre of the swing by 0.03 rad (0.01 m).
    assert!(phi < 1e-6, "{phi} rad");
    assert!(s < 1e-8, "{s} m");
}

/// A prismatic joint started off its spring's rest at a speed, with a damper: c = 50 N/m,
/// d = 2 N·s/m on 2 kg, `s` = 0.05 m and `v` = 0.3 m/s at t = 0. The damped oscillator
/// s(t) = e^(−σt) (s0 cos ω_d t + (v0 + σ s0)/ω_d sin ω_d t), σ = d/(2m) = 0.5 /s,
/// ω_d = √(c/m − σ²). A start value 10 % off moves s by 5 mm (s) or 6 mm (v), a damping 10 %
/// off by 0.7 mm within the first 2 s.
#[test]
fn a_slider_starts_at_its_start_values_and_its_damper_decays_the_swing() {
    let run = run(
        r#"
model damped_slider "a damped slider started off its rest"
gravity none
object slider { mass { m = 2 kg; inertia = diag(0.01, 0.01, 0.01) kg.m2 } }
joint pri prismatic { from = world; to = slider; axis = x; s = 0.05 m; v = 0.3 m/s; spring = 50 N/m; damper = 2 N.s/m }
"#,
        4.0,
        0.01,
    );
    let (s0, v0, sigma) = (0.05, 0.3, 0.5);
    let omega = (25.0f64 - sigma * sigma).sqrt();
    let expected = |t: f64| {
        (-sigma * t).exp()
            * (s0 * (omega * t).cos() + (v0 + sigma * s0) / omega * (omega * t).sin())
    };
    let s = largest_error(&run.time, run.column("pri.s"), expected);
    eprintln!("damped slider from its start values: within {s:.1e} m");
    assert!(s < 1e-7, "{s} m");
}

/// A line spring (c = 8 N/m, `length` 1 m) between the world's origin and a free 2 kg body
/// released at rest at x = 1.2 m: x(t) = 1 + 0.2 cos(2t). A stiffness 10 % off moves x by up to
/// 4 cm within 4 s, a length 10 % off by 0.1 m.
#[test]
fn a_line_spring_swings_a_body_about_its_length() {
    let run = run(
        r#"
model line_spring "a body on a line spring"
gravity none
object anchor { parent = world }
object body { mass { m = 2 kg; inertia = diag(0.01, 0.01, 0.01) kg.m2 }; output = true }
joint fly free { from = world; to = body; position = [1.2, 0, 0] m }
force pull spring { from = anchor; to = body; c = 8 N/m; length = 1 m }
"#,
        4.0,
        0.01,
    );
    let x = largest_error(&run.time, run.column("body.r[1]"), |t| {
        1.0 + 0.2 * (2.0 * t).cos()
    });
    eprintln!("line spring: x within {x:.1e} m");
    assert!(x < 1e-6, "{x} m");
}

/// `gravity point` with `center` [0.5, 0, 0] m and `mu` 4 m³/s²: a body released 1 m from the
/// centre at √(mu/r) = 2 m/s across the radius orbits in a circle, x = 0.5 + cos 2t,
/// y = sin 2t (Kepler: period 2π √(r³/mu) = π s). A `mu` 10 % off moves it by 0.2 m within 4 s,
/// a centre 10 % off by 0.05 m.
#[test]
fn a_body_orbits_a_point_mass_in_a_circle_at_keplers_period() {
    let run = run(
        r#"
model orbit "a body orbiting a point mass"
gravity point { center = [0.5, 0, 0] m; mu = 4 m3/s2 }
object body { mass { m = 1 kg; inertia = diag(0.01, 0.01, 0.01) kg.m2 }; output = true }
joint fly free { from = world; to = body; position = [1.5, 0, 0] m; v = [0, 2, 0] m/s }
"#,
        4.0,
        0.01,
    );
    let x = largest_error(&run.time, run.column("body.r[1]"), |t| {
        0.5 + (2.0 * t).cos()
    });
    let y = largest_error(&run.time, run.column("body.r[2]"), |t| (2.0 * t).sin());
    eprintln!("orbit: x within {x:.1e} m, y within {y:.1e} m");
    // The integrator's phase error grows along the orbit: 1.2e-5 m after 1.3 turns.
    assert!(x < 3e-5 && y < 3e-5, "x {x} m, y {y} m");
}

/// A `contact_output`'s `distance` and `penetration` against the geometry: a ball (diameter
/// 100 mm) lowered by a prescribed motion, y(t) = 0.1 − 0.1 t m, onto a table whose top is at
/// y = 0: distance y − 0.05 m (negative while it penetrates), penetration max(0, 0.05 − y).
/// A radius or a sign off shifts them by millimetres.
#[test]
fn a_contact_outputs_distance_and_penetration_follow_the_geometry() {
    let run = run(
        r#"
model lowered_ball "a ball lowered into a table"
gravity none
object table { parent = world; position = [0, -0.05, 0] m; shape box { lengths = [1, 0.1, 1] m }; contact { material = dry_wood } }
object ball { shape sphere { diameter = 0.1 m }; mass { material = steel }; contact { material = steel } }
joint lift prismatic { from = world; to = ball; axis = y; motion = 0.1 - 0.1*t; can_collide = true }
contact_output touch { from = ball; to = table }
"#,
        0.8,
        0.01,
    );
    let distance = largest_error(&run.time, run.column("touch.distance"), |t| {
        0.1 - 0.1 * t - 0.05
    });
    let penetration = largest_error(&run.time, run.column("touch.penetration"), |t| {
        (0.05 - (0.1 - 0.1 * t)).max(0.0)
    });
    eprintln!(
        "contact output: distance within {distance:.1e} m, penetration within {penetration:.1e} m"
    );
    assert!(
        distance < 1e-12 && penetration < 1e-12,
        "{distance} m, {penetration} m"
    );
}

/// A free joint's start `rotation` and its angular velocity `w` (in `to` coordinates): a body
/// with equal principal inertias, started turned 90° about z and spinning at 1 rad/s about its
/// own x axis, which the turn points along the world's y, turns about the world's y:
/// orientation R_y(t)·R_z(90°), as Modelica's quaternion Q = [n sin(φ/2), cos(φ/2)] (up to its
/// sign). The turn's axis reversed, or `w` read in world coordinates, turns it about other axes.
#[test]
fn a_free_joints_start_rotation_and_spin_turn_the_body_as_composed() {
    use nalgebra::{UnitQuaternion, Vector3};
    let run = run(
        r#"
model turned_spin "a turned body spinning about its own x axis"
gravity none
object body { mass { m = 1 kg; inertia = diag(0.01, 0.01, 0.01) kg.m2 }; output = true }
joint fly free { from = world; to = body; rotation = axis_angle([0, 0, 1], 90 deg); w = [1, 0, 0] rad/s }
"#,
        2.0,
        0.01,
    );
    let mut worst = 0.0f64;
    for (k, t) in run.time.iter().enumerate() {
        let q = UnitQuaternion::from_axis_angle(&Vector3::y_axis(), *t)
            * UnitQuaternion::from_axis_angle(&Vector3::z_axis(), std::f64::consts::FRAC_PI_2);
        let expected = [q.i, q.j, q.k, q.w];
        let actual: Vec<f64> = (1..=4)
            .map(|i| run.column(&format!("body.Q[{i}]"))[k])
            .collect();
        let same = (0..4)
            .map(|i| (actual[i] - expected[i]).abs())
            .fold(0.0, f64::max);
        let opposite = (0..4)
            .map(|i| (actual[i] + expected[i]).abs())
            .fold(0.0, f64::max);
        worst = worst.max(same.min(opposite));
    }
    eprintln!("turned and spinning body: Q within {worst:.1e}");
    assert!(worst < 1e-7, "{worst}");
}

/// A `fixed` joint's `rotation`, axis and sign: a pendulum about z whose bob hangs from it
/// through a fixed joint at [1, 0, 0] turned 90° about x, the bob's centre at [0, 0, 0.5] in its
/// own frame, so at [1, −0.5, 0] in the pendulum's (R_x(90°) takes z to −y). Gravity along −x
/// then turns the pendulum with α = −0.5 m g / (I + m (1² + 0.5²)) at rest; a turn the other
/// way puts the bob at +0.5 and reverses α, a turn about another axis leaves it 0.
#[test]
fn a_fixed_joints_rotation_places_the_bob_by_its_axis_and_sign() {
    let run = run(
        r#"
model turned_bob "a bob on a turned fixed joint"
gravity uniform { g = [-9.81, 0, 0] m/s2 }
object arm { }
joint rev revolute { from = world; to = arm; axis = z; flange = force }
object bob { mass { m = 1 kg; center = [0, 0, 0.5] m; inertia = diag(0.001, 0.001, 0.001) kg.m2 } }
joint hold fixed { from = arm; to = bob; position = [1, 0, 0] m; rotation = axis_angle([1, 0, 0], 90 deg) }
"#,
        0.01,
        0.01,
    );
    let expected = -0.5 * 9.81 / (0.001 + 1.25);
    let alpha = run.column("rev.a")[0];
    let error = (alpha - expected).abs() / expected.abs();
    eprintln!("bob turned by a fixed joint: α = {alpha:.6} rad/s² ({expected:.6}), {error:.1e}");
    assert!(error < 1e-12, "α = {alpha}, expected {expected}");
}

/// A line damper (d = 4 N·s/m) between the world's origin and a free 2 kg body that moves away
/// along x at 1 m/s from x = 1 m: v(t) = e^(−d t/m), x(t) = 1 + (m/d)(1 − e^(−d t/m)).
#[test]
fn a_line_damper_slows_a_body_exponentially() {
    let run = run(
        r#"
model line_damper "a body leaving a damper's anchor"
gravity none
object anchor { parent = world }
object body { mass { m = 2 kg; inertia = diag(0.01, 0.01, 0.01) kg.m2 }; output = true }
joint fly free { from = world; to = body; position = [1, 0, 0] m; v = [1, 0, 0] m/s }
force brake damper { from = anchor; to = body; d = 4 N.s/m }
"#,
        2.0,
        0.01,
    );
    let x = largest_error(&run.time, run.column("body.r[1]"), |t| {
        1.0 + 0.5 * (1.0 - (-2.0 * t).exp())
    });
    let v = largest_error(&run.time, run.column("body.v[1]"), |t| (-2.0 * t).exp());
    eprintln!("line damper: x within {x:.1e} m, v within {v:.1e} m/s");
    // d 10 % off changes x(2 s) by 4 cm.
    assert!(x < 5e-7 && v < 1e-6, "x {x} m, v {v} m/s");
}

/// A drive train of an inertia J1 = 0.01 kg·m² spinning at 10 rad/s and a damper (d = 0.05
/// N·m·s/rad) to a joint's body of J2 = 0.02 kg·m² at rest: the relative speed decays at
/// λ = d (J1 + J2)/(J1 J2) = 7.5 /s and the momentum is kept, so ω2(t) = (J1 ω0/(J1 + J2))
/// (1 − e^(−λt)) and ω1(t) = ω0 − (J2/J1) ω2(t).
#[test]
fn a_drive_damper_couples_an_inertia_to_the_joint_at_its_rate() {
    let run = run(
        r#"
model drive_damper "an inertia spinning a wheel through a damper"
gravity none
object wheel { mass { m = 1 kg; inertia = diag(0.02, 0.02, 0.02) kg.m2 } }
joint rev revolute { from = world; to = wheel; axis = z; phi = 0; w = 0 }
drive clutch { joint = rev; inertia { J = 0.01 kg.m2; w = 10 rad/s }; damper { d = 0.05 N.m.s/rad } }
"#,
        1.0,
        0.01,
    );
    let (j1, j2, w0, d) = (0.01, 0.02, 10.0, 0.05);
    let lambda = d * (j1 + j2) / (j1 * j2);
    let joint = |t: f64| j1 * w0 / (j1 + j2) * (1.0 - (-lambda * t).exp());
    let wheel = largest_error(&run.time, run.column("rev.w"), joint);
    let inertia = largest_error(&run.time, run.column("clutch.w[1]"), |t| {
        w0 - j2 / j1 * joint(t)
    });
    eprintln!("drive damper: wheel within {wheel:.1e} rad/s, inertia within {inertia:.1e} rad/s");
    assert!(wheel < 1e-6 && inertia < 1e-6, "{wheel}, {inertia}");
}

/// A drive spring (c = 8 N·m/rad) with `phi_rel0` 0.2 rad between an inertia J1 = 0.01 kg·m²
/// started at `phi` = 0 and a joint's body J2 = 0.02 kg·m², both at rest at angle 0: the
/// relative angle φ_rel = φ_joint − φ_1 (flange side less source side, Modelica's
/// `SpringDamper`) swings about 0.2: φ_rel(t) = 0.2 (1 − cos ωt), ω² = c (1/J1 + 1/J2) = 1200,
/// while the centre of inertia stays put: J1 φ_1 + J2 φ_joint = 0.
#[test]
fn a_drive_spring_swings_about_its_unstretched_angle() {
    let run = run(
        r#"
model drive_spring "an inertia on a wheel through a preloaded spring"
gravity none
object wheel { mass { m = 1 kg; inertia = diag(0.02, 0.02, 0.02) kg.m2 } }
joint rev revolute { from = world; to = wheel; axis = z; phi = 0; w = 0 }
drive coupling { joint = rev; inertia { J = 0.01 kg.m2; phi = 0 rad; w = 0 rad/s }; spring { c = 8 N.m/rad; phi_rel0 = 0.2 rad } }
"#,
        0.5,
        0.001,
    );
    let (j1, j2): (f64, f64) = (0.01, 0.02);
    let omega = (8.0 * (1.0 / j1 + 1.0 / j2)).sqrt();
    let (joint, inertia) = (run.column("rev.phi"), run.column("coupling.phi[1]"));
    let relative: Vec<f64> = joint.iter().zip(inertia).map(|(b, a)| b - a).collect();
    let swing = largest_error(&run.time, &relative, |t| 0.2 * (1.0 - (omega * t).cos()));
    let centre = joint
        .iter()
        .zip(inertia)
        .map(|(b, a)| (j1 * a + j2 * b).abs())
        .fold(0.0, f64::max);
    eprintln!(
        "drive spring: relative angle within {swing:.1e} rad, centre of inertia {centre:.1e}"
    );
    assert!(swing < 1e-6, "{swing} rad");
    assert!(centre < 1e-9, "{centre} kg·m²·rad");
}

/// `output_forces` of a prismatic joint: a 2 kg slider (centre of mass 0.1 m ahead of its
/// origin along the axis x) on a spring (c = 50 N/m, rest 0) released at s = 0.1 m, gravity
/// 9.81 m/s² along −y. The world exerts on it, at its origin: along the axis the spring's pull
/// −c s(t), s(t) = 0.1 cos(5t); across it the weight's reaction m g along y; and the torque
/// that holds the weight's moment, (0.1, 0, 0) × (0, −m g, 0) reversed: +0.1 m g about z.
#[test]
fn a_prismatic_joint_reports_the_force_and_torque_it_transmits() {
    let run = run(
        r#"
model slider_forces "a slider on a spring under gravity"
gravity uniform { g = [0, -9.81, 0] m/s2 }
object slider { mass { m = 2 kg; center = [0.1, 0, 0] m; inertia = diag(0.01, 0.01, 0.01) kg.m2 } }
joint pri prismatic { from = world; to = slider; axis = x; s = 0.1 m; v = 0; spring = 50 N/m; output_forces = true }
"#,
        2.0,
        0.01,
    );
    let weight = 2.0 * 9.81;
    let along = largest_error(&run.time, run.column("pri.f_reaction[1]"), |t| {
        -50.0 * 0.1 * (5.0 * t).cos()
    });
    let across = largest_error(&run.time, run.column("pri.f_reaction[2]"), |_| weight);
    let moment = largest_error(&run.time, run.column("pri.t_reaction[3]"), |_| 0.1 * weight);
    eprintln!(
        "prismatic reaction: along the axis within {along:.1e} N, across {across:.1e} N, moment \
         {moment:.1e} N·m"
    );
    assert!(
        along < 1e-5 && across < 1e-9 && moment < 1e-9,
        "{along}, {across}, {moment}"
    );
}

/// The `plastic` solid material (ρ = 1050 kg/m³, E = 2.3 GPa, ν = 0.35, docs/model-format.md):
/// a plastic ball (diameter 50 mm, its mass from the density) resting on a steel floor sinks by
/// Hertz's static compression δ = (m g / (4/3 √R c_res))^(2/3), c_res = 1 / (1/c_p + 1/c_s),
/// c = E / (1 − ν²), steel 200 GPa and 0.30: 1.15 µm. A modulus, a Poisson's ratio or a density
/// 10 % off moves δ by 4 to 7 %.
#[test]
fn a_plastic_ball_rests_at_its_hertz_depth_on_steel() {
    let error = hertz_rest_error("plastic", 1050.0, 2.3e9, 0.35, "");
    // At rest the spring carries the weight exactly (7.7e-12 measured).
    assert!(error.abs() < 1e-6, "plastic: {error:e}");
}

/// The relative error of the depth at which a ball of `material` (diameter 50 mm, its mass
/// from `density`) rests on a steel floor, against Hertz's static compression
/// δ = (m g / (4/3 √R c_res))^(2/3), c_res = 1 / (1/c_ball + 1/c_steel), c = E / (1 − ν²), steel
/// 200 GPa and 0.30. `pair`: a `contact_pair` line, for materials steel has none with.
fn hertz_rest_error(material: &str, density: f64, e: f64, nu: f64, pair: &str) -> f64 {
    let trajectory = run(
        &format!(
            r#"
model resting_ball "a ball resting on steel"
{pair}
object floor {{ parent = world; position = [0, -0.05, 0] m; shape box {{ lengths = [1, 0.1, 1] m }}; contact {{ material = steel }} }}
object ball {{ shape sphere {{ diameter = 0.05 m }}; mass {{ material = {material} }}; contact {{ material = {material} }}; output = true }}
joint drop free {{ from = world; to = ball; position = [0, 0.025, 0] m }}
"#
        ),
        1.0,
        0.01,
    );
    let r: f64 = 0.025;
    let mass = density * 4.0 / 3.0 * std::f64::consts::PI * r.powi(3);
    let modulus = |e: f64, nu: f64| e / (1.0 - nu * nu);
    let c_res = 1.0 / (1.0 / modulus(e, nu) + 1.0 / modulus(2.0e11, 0.30));
    let expected = (mass * 9.81 / (4.0 / 3.0 * r.sqrt() * c_res)).powf(2.0 / 3.0);
    let y = trajectory.column("ball.r[2]");
    let depth = r - y[y.len() - 1];
    let error = depth / expected - 1.0;
    eprintln!(
        "{material} ball on steel: rests {depth:.4e} m deep (Hertz {expected:.4e} m, {error:+.1e})"
    );
    error
}

/// A box's contact `smoothing` a is the radius of the spheres at its corners, on which it rests
/// on a face: four Hertz contacts of radius a, each carrying m g / 4, sink by
/// δ = (m g / (4 c_res · 4/3 √a))^(2/3), with c_res the plane-strain moduli of steel and dry
/// wood (E = 2.0e11 Pa, ν = 0.3; 1.1e10 Pa, 0.4; docs/model-format.md) in series. The floor's
/// own smoothing (0.1 mm) is not on the path. A radius 10 % off moves δ by 3 %.
#[test]
fn a_boxs_smoothing_is_the_radius_of_the_corner_contacts_it_rests_on() {
    let plane_strain = |e: f64, nu: f64| e / (1.0 - nu * nu);
    let (steel, wood) = (plane_strain(2.0e11, 0.3), plane_strain(1.1e10, 0.4));
    let c_res = steel * wood / (steel + wood);
    for smoothing in [2e-3f64, 4e-3] {
        let run = run(
            &format!(
                r#"
model resting_box "a steel-faced block resting on a wooden floor"
object floor {{ parent = world; position = [0, -0.05, 0] m; shape box {{ lengths = [1, 0.1, 1] m }}; contact {{ material = dry_wood; smoothing = 0.1 mm }} }}
object block {{ shape box {{ lengths = [0.1, 0.1, 0.1] m }}; mass {{ m = 1 kg; inertia = diag(0.002, 0.002, 0.002) kg.m2 }}; contact {{ material = steel; smoothing = {smoothing} m }}; output = true }}
joint drop free {{ from = world; to = block; position = [0, 0.05, 0] m }}
"#
            ),
            2.0,
            0.01,
        );
        let height = *run.column("block.r[2]").last().expect("samples");
        let sunk = 0.05 - height;
        let expected = (9.81 / (4.0 * c_res * 4.0 / 3.0 * smoothing.sqrt())).powf(2.0 / 3.0);
        let error = (sunk / expected - 1.0).abs();
        eprintln!(
            "smoothing {smoothing} m: sunk {sunk:.6e} m, Hertz {expected:.6e} m ({error:.1e})"
        );
        assert!(
            error < 1e-9,
            "smoothing {smoothing} m: {sunk} m against {expected} m"
        );
    }
}

/// The solid materials `aluminium`, `rubber`, `billiard_table` and `cushion` (density, Young's
/// modulus, Poisson's ratio of docs/model-format.md), as the plastic ball above: a ball of each
/// (diameter 50 mm, its mass from the density) resting on a steel floor sinks by Hertz's static
/// compression. A density, a modulus or a Poisson's ratio 10 % off moves δ by 1 to 7 %; the
/// spring carries the weight exactly at rest (2.1e-11 at most).
#[test]
fn aluminium_rubber_and_the_billiard_woods_rest_at_their_hertz_depth_on_steel() {
    for (material, density, e, nu) in [
        ("aluminium", 2700.0, 6.9e10, 0.32),
        ("rubber", 920.0, 5.0e7, 0.49),
        ("billiard_table", 700.0, 1.1e10, 0.40),
        ("cushion", 700.0, 1.1e10, 0.40),
    ] {
        let pair =
            format!("contact_pair {material} steel {{ cor = 0.5; mu_k = 0.3; mu_r = 0.001 }}");
        let error = hertz_rest_error(material, density, e, nu, &pair);
        assert!(error.abs() < 1e-9, "{material}: {error:e}");
    }
}
