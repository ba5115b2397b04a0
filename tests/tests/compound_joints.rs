//! The joints of several axes against closed forms: a Cardan shaft (universal joint closing a
//! loop), a sleeve on a cylindrical joint under an axial force and a torque, a puck in an
//! inclined plane (planar joint), a universal-joint pendulum's two small-oscillation periods
//! (universal joint in the spanning tree), and a cylindrical joint written in either direction
//! (the reversed chain of axes).

use fmu3d_tests::{load, simulate, upward_zero_crossings};
use fmu_runtime::model;
use fmu_runtime::simulation::{Simulation, SimulationOptions};
use std::f64::consts::PI;

/// The output shaft of a Cardan joint turns at ω₂ = ω₁·cos β / (1 − sin²β·sin²φ₁), its angle
/// tan φ₂ = cos β·tan φ₁, over a full turn of the input, for three bend angles.
#[test]
fn cardan_shaft_output_speed_follows_the_closed_form() {
    for beta_deg in [10.0f64, 30.0, 45.0] {
        let beta = beta_deg.to_radians();
        let run = simulate(load("cardan_shaft", &[("beta", beta)]), 1e-8, 1.0, 1e-3);
        let w1 = run.parameter("w1");
        let (mut speed_error, mut angle_error) = (0.0f64, 0.0f64);
        for (k, &t) in run.time.iter().enumerate() {
            let phi1 = w1 * t;
            let w2 = w1 * beta.cos() / (1.0 - (beta.sin() * phi1.sin()).powi(2));
            speed_error = speed_error.max((run.column("output.w")[k] - w2).abs() / w1);
            let phi2 = (beta.cos() * phi1.sin()).atan2(phi1.cos());
            let turns = ((run.column("output.phi")[k] - phi2) / (2.0 * PI)).round();
            angle_error =
                angle_error.max((run.column("output.phi")[k] - phi2 - 2.0 * PI * turns).abs());
        }
        let turned = run.column("input.phi").last().copied().unwrap_or(0.0);
        eprintln!(
            "Cardan shaft at beta = {beta_deg} deg: output speed error {speed_error:.2e} of w1, \
             angle error {angle_error:.2e} rad over {:.2} turns",
            turned / (2.0 * PI)
        );
        assert!(turned >= 2.0 * PI - 1e-9, "a full turn of the input");
        // Measured 1.2e-8 (speed, relative) and 3e-9 rad at tolerance 1e-8.
        assert!(speed_error < 1e-7, "output speed error {speed_error:e}");
        assert!(angle_error < 1e-7, "output angle error {angle_error:e} rad");
    }
}

/// The sleeve slides under gravity and the force input and spins under the torque input, each
/// as if the other motion were not there: s = v₀t + (f/m − g)·t²/2, φ = ω₀t + τ/(J + m e²)·t²/2.
#[test]
fn cylindrical_slide_and_spin_are_decoupled() {
    let spec = load("cylindrical_slide", &[]);
    let options = SimulationOptions {
        tolerance: Some(1e-9),
        ..SimulationOptions::default()
    };
    let mut sim = Simulation::new(spec, options).expect("starts");
    let (force, torque) = (30.0, 0.4);
    let f = sim.variables.find("cyl.f").expect("the force input");
    let tau = sim.variables.find("cyl.tau").expect("the torque input");
    sim.set_input(f, force).expect("an input");
    sim.set_input(tau, torque).expect("an input");
    let parameter = |name: &str| {
        sim.scene
            .parameters
            .iter()
            .find(|p| p.name == name)
            .map(|p| p.value)
            .expect("a parameter")
    };
    let (m, e, j) = (parameter("m"), parameter("e"), parameter("J"));
    let (v0, w0) = (parameter("v0"), parameter("w0"));
    let s_index = sim.variables.find("cyl.s").expect("s");
    let phi_index = sim.variables.find("cyl.phi").expect("phi");
    let (mut s_error, mut phi_error) = (0.0f64, 0.0f64);
    for k in 1..=100 {
        let t = k as f64 * 0.02;
        sim.advance_to(t).expect("steps");
        let values = sim.output_values();
        let value = |index| {
            let position = sim.variables.outputs().position(|(i, _)| i == index);
            values[position.expect("an output")]
        };
        let s = v0 * t + (force / m - 9.81) * t * t / 2.0;
        let phi = w0 * t + torque / (j + m * e * e) * t * t / 2.0;
        s_error = s_error.max((value(s_index) - s).abs());
        phi_error = phi_error.max((value(phi_index) - phi).abs() / phi.abs().max(1.0));
    }
    eprintln!("cylindrical joint: slide error {s_error:.2e} m, spin error {phi_error:.2e} rad");
    // Measured 4e-13 m and 1e-12 rad: the motions are polynomials of degree 2, which the
    // integrator follows exactly up to its rounding.
    assert!(s_error < 1e-9, "slide error {s_error:e} m");
    assert!(phi_error < 1e-9, "spin error {phi_error:e} rad");
}

/// The flange inputs of a universal and a planar joint, `flange = force`, without gravity: a
/// ball of equal principal inertias J (centre at the joint) under τ_a and τ_b turns as
/// φ_a = ½ τ_a/J t², φ_b = ½ τ_b/J t² (its kinetic energy ½ J (φ̇_a² + φ̇_b²): the second axis,
/// turned about the first, stays perpendicular to it); a puck under f_x, f_y and τ slides and
/// turns as s = ½ f/m t², φ = ½ τ/J t². An input read into another coordinate, or with its sign
/// reversed, moves them by their whole travel.
#[test]
fn universal_and_planar_flange_inputs_drive_each_coordinate() {
    let text = r#"
model flanges "universal and planar joints driven through their flanges"
gravity none
object ball { mass { m = 1 kg; inertia = diag(0.02, 0.02, 0.02) kg.m2 } }
joint u universal { from = world; to = ball; axis_a = x; axis_b = y; flange = force }
object puck { mass { m = 0.5 kg; inertia = diag(0.001, 0.001, 0.002) kg.m2 } }
joint p planar { from = world; to = puck; normal = z; flange = force }
"#;
    let spec = model::load_str(text, "flanges.m3d").expect("loads");
    let options = SimulationOptions {
        tolerance: Some(1e-10),
        ..SimulationOptions::default()
    };
    let mut sim = Simulation::new(spec, options).expect("starts");
    for (name, value) in [
        ("u.tau_a", 0.1),
        ("u.tau_b", -0.05),
        ("p.f_x", 1.0),
        ("p.f_y", -0.5),
        ("p.tau", 0.01),
    ] {
        let input = sim.variables.find(name).expect("an input");
        sim.set_input(input, value).expect("an input");
    }
    let coordinates: Vec<(usize, f64)> = [
        ("u.phi_a", 0.1 / 0.02),
        ("u.phi_b", -0.05 / 0.02),
        ("p.s_x", 1.0 / 0.5),
        ("p.s_y", -0.5 / 0.5),
        ("p.phi", 0.01 / 0.002),
    ]
    .iter()
    .map(|(name, a)| (sim.variables.find(name).expect("a coordinate"), *a))
    .collect();
    let mut worst = 0.0f64;
    for k in 1..=50 {
        let t = k as f64 * 0.01;
        sim.advance_to(t).expect("steps");
        let indices: Vec<usize> = coordinates.iter().map(|(i, _)| *i).collect();
        for (value, (_, a)) in sim.values_of(&indices).iter().zip(&coordinates) {
            worst = worst.max((value - 0.5 * a * t * t).abs());
        }
    }
    eprintln!("universal and planar flanges: coordinates within {worst:.1e} of ½ a t²");
    // Polynomial motions, integrated exactly up to rounding.
    assert!(worst < 1e-10, "{worst}");
}

/// In a plane tilted by α the puck slides down with g·sin α along the slope, keeps its speed
/// across the slope and its spin about the normal.
#[test]
fn planar_joint_on_an_inclined_plane_follows_the_closed_form() {
    let run = simulate(load("planar_slider", &[]), 1e-9, 1.0, 1e-2);
    let alpha = run.parameter("alpha");
    let (v_x0, v_y0, w0) = (
        run.parameter("v_x0"),
        run.parameter("v_y0"),
        run.parameter("w0"),
    );
    let mut error = 0.0f64;
    for (k, &t) in run.time.iter().enumerate() {
        let expected = [
            ("slider.s_x", v_x0 * t - 9.81 * alpha.sin() * t * t / 2.0),
            ("slider.v_x", v_x0 - 9.81 * alpha.sin() * t),
            ("slider.s_y", v_y0 * t),
            ("slider.v_y", v_y0),
            ("slider.phi", w0 * t),
            ("slider.w", w0),
        ];
        for (name, value) in expected {
            error = error.max((run.column(name)[k] - value).abs());
        }
    }
    eprintln!("planar joint on an inclined plane: largest coordinate error {error:.2e}");
    // Measured 3e-15: polynomial motions, integrated exactly up to rounding.
    assert!(error < 1e-10, "coordinate error {error:e}");
}

/// A planar joint in the vertical plane (normal z) whose first slide runs along
/// `axis_x` = [0.6, 0.8, 0]: gravity (−y) pulls the puck with −0.8 g along it and, along the
/// second slide normal × axis_x = [−0.8, 0.6, 0], with −0.6 g; its spin stays. An `axis_x` turned
/// by 10 % of its angle, or the second slide taken the other way, changes these by 3 % or more.
#[test]
fn a_planar_joints_first_axis_sets_the_directions_of_its_slides() {
    let text = r#"
model planar_axes "a puck in a vertical plane, its slides turned"
gravity uniform { g = [0, -9.81, 0] m/s2 }
object puck { mass { m = 0.5 kg; inertia = diag(0.001, 0.001, 0.002) kg.m2 } }
joint slider planar { from = world; to = puck; normal = z; axis_x = [0.6, 0.8, 0]; w = 2 rad/s }
"#;
    let spec = model::load_str(text, "planar_axes.m3d").expect("loads");
    let run = simulate(spec, 1e-9, 1.0, 1e-2);
    let mut error = 0.0f64;
    for (k, &t) in run.time.iter().enumerate() {
        let expected = [
            ("slider.s_x", -0.8 * 9.81 * t * t / 2.0),
            ("slider.s_y", -0.6 * 9.81 * t * t / 2.0),
            ("slider.phi", 2.0 * t),
        ];
        for (name, value) in expected {
            error = error.max((run.column(name)[k] - value).abs());
        }
    }
    eprintln!("planar joint with a turned first axis: largest coordinate error {error:.2e}");
    // Polynomial motions, integrated exactly up to rounding.
    assert!(error < 1e-10, "coordinate error {error:e}");
}

/// The universal joint's start values: the same rod released at φ_a = 2 mrad, φ_b = −1 mrad
/// with ω_a = 5 mrad/s and ω_b = 8 mrad/s swings about each axis as its linear oscillator from
/// those values, φ(t) = φ0 cos ωt + (ω0/ω) sin ωt, ω² = m g l / (I + m l²) (the axes' coupling
/// and the pendulum's nonlinearity are of the amplitude squared: 2.2e-8 rad here). A start
/// value 10 % off moves its angle by 1e-4 rad.
#[test]
fn universal_joint_start_values_start_each_axis_swing() {
    let text = r#"
model universal_pendulum "A rod hanging from a universal joint"
gravity uniform { g = [0, -9.81, 0] m/s2 }
object rod {
  mass { m = 1 kg; center = [0, -0.5, 0] m; inertia = diag(0.02, 0.05, 0.06) kg.m2 }
  output = true
}
joint u universal { from = world; to = rod; axis_a = x; axis_b = z; phi_a = 0.002; phi_b = -0.001; w_a = 0.005; w_b = 0.008 }
"#;
    let spec = model::load_str(text, "universal_start.m3d").expect("loads");
    let run = simulate(spec, 1e-10, 3.0, 1e-2);
    let (m, l, g) = (1.0f64, 0.5f64, 9.81f64);
    let mut worst = 0.0f64;
    for (angle, inertia, phi0, w0) in [
        ("u.phi_a", 0.02f64, 0.002f64, 0.005f64),
        ("u.phi_b", 0.06, -0.001, 0.008),
    ] {
        let omega = (m * g * l / (inertia + m * l * l)).sqrt();
        let error = run
            .time
            .iter()
            .zip(run.column(angle))
            .map(|(t, phi)| {
                (phi - (phi0 * (omega * t).cos() + w0 / omega * (omega * t).sin())).abs()
            })
            .fold(0.0, f64::max);
        eprintln!("universal joint from its start values, {angle}: within {error:.1e} rad");
        worst = worst.max(error);
    }
    assert!(worst < 5e-8, "{worst} rad");
}

/// A rod hanging from a universal joint (axes x then z, both through the pivot) swings about
/// each axis with its own small-oscillation period 2π·√((I + m l²)/(m g l)).
#[test]
fn universal_joint_pendulum_has_the_period_of_each_axis() {
    let text = r#"
model universal_pendulum "A rod hanging from a universal joint"
gravity uniform { g = [0, -9.81, 0] m/s2 }
experiment { stop_time = 6 s; interval = 1 ms; tolerance = 1e-10 }
object rod {
  mass { m = 1 kg; center = [0, -0.5, 0] m; inertia = diag(0.02, 0.05, 0.06) kg.m2 }
  output = true
}
joint u universal { from = world; to = rod; axis_a = x; axis_b = z; phi_a = 0.002; phi_b = 0.002 }
"#;
    let spec = model::load_str(text, "universal_pendulum.m3d").expect("loads");
    let run = simulate(spec, 1e-10, 6.0, 1e-3);
    let (m, l, g) = (1.0f64, 0.5f64, 9.81f64);
    for (speed, inertia) in [("u.w_a", 0.02f64), ("u.w_b", 0.06)] {
        let crossings = upward_zero_crossings(&run.time, run.column(speed));
        let periods = crossings.len() - 1;
        let measured = (crossings[periods] - crossings[0]) / periods as f64;
        let expected = 2.0 * PI * ((inertia + m * l * l) / (m * g * l)).sqrt();
        let error = (measured - expected).abs() / expected;
        eprintln!(
            "universal pendulum, {speed}: period {measured:.6} s against {expected:.6} s \
             ({error:.1e}) over {periods} periods"
        );
        // Measured 1e-6: the amplitude 2 mrad lengthens the period by θ²/16 = 2.5e-7, the
        // coupling of the two axes is of the same order, and the crossings are interpolated
        // linearly between 1 ms samples.
        assert!(error < 1e-5, "{speed}: period error {error:e}");
    }
}

/// A cylindrical joint met by the search from its `to` end runs its axes backwards (in reverse
/// order, each reversed). In a loop — a carriage on a slide, a sleeve on a vertical cylindrical
/// joint on the carriage, an arm from a world pivot whose tip holds the sleeve through a revolute
/// joint — the sleeve moves the same whichever way the cylindrical joint is written, with
/// coordinates of opposite sign.
#[test]
fn a_joint_of_several_axes_met_from_its_to_end_moves_the_same() {
    let model = |joint: &str| {
        format!(
            r#"
model carriage "A carriage, a sleeve and an arm in one loop"
gravity uniform {{ g = [0, -9.81, 0] m/s2 }}
object carriage {{ mass {{ m = 1 kg; inertia = diag(0.01, 0.01, 0.01) kg.m2 }} }}
object pin {{ parent = carriage }}
object sleeve {{ mass {{ m = 0.5 kg; center = [0.15, 0.02, 0] m; inertia = diag(0.002, 0.003, 0.004) kg.m2 }}; output = true }}
object grip {{ parent = sleeve }}
object ball {{ parent = sleeve; position = [0.3, 0, 0] m }}
object pivot {{ parent = world; position = [0.7, 0, 0] m }}
object arm {{ mass {{ m = 1 kg; center = [0.2, 0, 0] m; inertia = diag(0.01, 0.01, 0.01) kg.m2 }} }}
object tip {{ parent = arm; position = [0.4, 0, 0] m }}
joint slide prismatic {{ from = world; to = carriage; axis = x; s_guess = 0 }}
joint hinge revolute {{ from = pivot; to = arm; axis = z; phi = 180 deg }}
joint hold revolute {{ from = tip; to = ball; axis = z; phi_guess = 180 deg }}
{joint}
"#
        )
    };
    let run = |text: &str| {
        let spec = model::load_str(text, "carriage.m3d").expect("loads");
        simulate(spec, 1e-10, 1.0, 1e-2)
    };
    // The cylindrical joint's axes commute, so its coordinates simply change sign. The planar
    // joint's slides and turn do not: written backwards, its coordinates are those of the
    // inverse motion, φ' = −φ and s' = −R(−φ)·s.
    for (kind, fields, negated) in [
        (
            "cylindrical",
            "axis = z",
            &["c.s", "c.phi", "c.v", "c.w"][..],
        ),
        ("planar", "normal = z", &["c.phi", "c.w"][..]),
    ] {
        let joint = |from: &str, to: &str| {
            model(&format!(
                "joint c {kind} {{ from = {from}; to = {to}; {fields}; phi_guess = 0 }}"
            ))
        };
        let (a, b) = (run(&joint("pin", "grip")), run(&joint("grip", "pin")));
        let mut position = 0.0f64;
        let mut coordinates = 0.0f64;
        for k in 0..a.time.len() {
            let (ra, rb): ([f64; 3], [f64; 3]) = (a.vector("sleeve.r", k), b.vector("sleeve.r", k));
            for i in 0..3 {
                position = position.max((ra[i] - rb[i]).abs());
            }
            for name in negated {
                coordinates = coordinates.max((a.column(name)[k] + b.column(name)[k]).abs());
            }
            if kind == "planar" {
                let (x, y, phi) = (
                    a.column("c.s_x")[k],
                    a.column("c.s_y")[k],
                    a.column("c.phi")[k],
                );
                let (c, s) = (phi.cos(), phi.sin());
                let inverse = [-(c * x + s * y), -(-s * x + c * y), -phi];
                for (name, value) in ["c.s_x", "c.s_y", "c.phi"].iter().zip(inverse) {
                    coordinates = coordinates.max((b.column(name)[k] - value).abs());
                }
            }
        }
        let turned = a.column("c.phi").iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let moved = (a.vector::<3>("sleeve.r", a.time.len() - 1)[0] - 0.0).abs();
        eprintln!(
            "{kind} joint both ways: sleeve positions {position:.2e} m apart, coordinates \
             {coordinates:.2e} from opposite; the sleeve turned up to {turned:.2} rad and moved \
             {moved:.2} m"
        );
        assert!(turned > 0.1, "the sleeve turns: {turned} rad");
        // Measured 0 (cylindrical: the same products of rotations bit for bit); planar 7.4e-9 m
        // and 5.2e-8 in the coordinates (the slides carry the angle's error times 1.2 m): two
        // integrations of one motion at tolerance 1e-10. Not reversing the chain of axes makes
        // the planar coordinates 2.8 apart.
        assert!(
            position < 1e-7,
            "{kind}: positions differ by {position:e} m"
        );
        assert!(
            coordinates < 2e-7,
            "{kind}: coordinates differ by {coordinates:e}"
        );
    }
}
