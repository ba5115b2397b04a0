//! `fmi2GetRealOutputDerivatives` through the C API: the first time derivative of every output
//! against central differences of the outputs over small communication steps, the exact
//! relations (d phi/dt = w, d w/dt = a), a closed form for a motion-driven joint's force, and the
//! argument checks.

use fmu3d_tests::fmi2_host::{Resources, Slave};
use fmu_runtime::fmi2::exports::*;
use fmu_runtime::fmi2::types::*;
use fmu_runtime::model::load_str;
use fmu_runtime::simulation::{Simulation, SimulationOptions};

/// A torque-driven pendulum carrying a second arm on a passive joint about another axis (so the
/// arm turns in 3D), driven by a DC motor through a gear and a spring (drive outputs: current,
/// motor speed, the angle of the part before the spring), and a slider moved by a prescribed
/// motion.
const MODEL: &str = r#"
model derivatives "Pendulum with a crossed arm, and a motion-driven slider"
parameters {
  m = 1 kg      "mass of the pendulum"
  L = 0.5 m     "distance of its center of mass from the axis"
  M = 2 kg      "mass of the slider"
}
gravity uniform { g = [0, -9.81, 0] m/s2 }
experiment { stop_time = 2 s; interval = 10 ms; tolerance = 1e-10 }
object body {
  mass { m = m; center = [L, 0, 0] m; inertia = diag(0.001, 0.001, 0.001) kg.m2 }
  output = true
}
joint rev revolute { from = world; to = body; axis = z; phi = 0.3; flange = force }
object tip { parent = body; position = [1, 0, 0] m }
object arm {
  mass { m = 0.3 kg; center = [0, 0.2, 0] m; inertia = diag(0.002, 0.001, 0.002) kg.m2 }
  output = true
}
joint cross revolute { from = tip; to = arm; axis = x; phi = 0.5; w = 1 }
drive wrist {
  joint = cross
  motor { R = 1 Ohm; L = 1 mH; k = 0.05 N.m/A; J = 1e-5 kg.m2; v = 2*sin(4*t) }
  gear { ratio = 5 }
  spring { c = 2 N.m/rad; d = 0.005 N.m.s/rad }
}
object slider { mass { m = M; inertia = diag(0.01, 0.01, 0.01) kg.m2 } }
joint slide prismatic { from = world; to = slider; axis = x; flange = motion }
"#;

const SLIDER_MASS: f64 = 2.0;

fn simulation() -> Simulation {
    Simulation::new(
        load_str(MODEL, "derivatives.m3d").expect("loads"),
        SimulationOptions::default(),
    )
    .expect("starts")
}

fn vr(name: &str) -> u32 {
    simulation()
        .variables
        .find(name)
        .unwrap_or_else(|| panic!("no variable {name}")) as u32
}

/// The k-th derivative of a·sin(ω·t): a·ωᵏ·sin(ω·t + k·π/2).
fn sine(amplitude: f64, omega: f64, k: i32, t: f64) -> f64 {
    amplitude * omega.powi(k) * (omega * t + f64::from(k) * std::f64::consts::FRAC_PI_2).sin()
}

/// Sets the drive torque 0.2·sin(3t) and the slider's motion 0.1·sin(5t) (position, speed,
/// acceleration) at time t, each with its first three derivatives, so the inputs the FMU
/// interpolates are smooth to the fourth order across communication points.
fn drive(slave: &Slave, t: f64) {
    let tau = vr("rev.tau");
    let motion = [vr("slide.s"), vr("slide.v"), vr("slide.a")];
    assert_eq!(slave.set(&[tau], &[sine(0.2, 3.0, 0, t)]), Fmi2Status::Ok);
    let values: Vec<f64> = (0..3).map(|k| sine(0.1, 5.0, k, t)).collect();
    assert_eq!(slave.set(&motion, &values), Fmi2Status::Ok);
    for order in 1..=3 {
        assert_eq!(
            slave.set_derivatives(&[tau], order, &[sine(0.2, 3.0, order, t)]),
            Fmi2Status::Ok
        );
        let values: Vec<f64> = (0..3).map(|k| sine(0.1, 5.0, k + order, t)).collect();
        assert_eq!(
            slave.set_derivatives(&motion, order, &values),
            Fmi2Status::Ok
        );
    }
}

fn output_references() -> Vec<(String, u32)> {
    let sim = simulation();
    sim.variables
        .outputs()
        .map(|(index, v)| (v.name.clone(), index as u32))
        .collect()
}

#[test]
fn derivatives_match_central_differences_and_the_exact_relations() {
    let resources = Resources::new("output-derivatives", MODEL);
    let slave = Slave::new(&resources);
    slave.initialize(None);
    let outputs = output_references();
    let references: Vec<u32> = outputs.iter().map(|(_, vr)| *vr).collect();
    // Coarse steps to t0 − h, then two small ones across t0.
    let (t0, h): (f64, f64) = (0.7, 1e-4);
    let mut t: f64 = 0.0;
    while t < t0 - h - 1e-12 {
        let step = (t0 - h - t).min(0.01);
        drive(&slave, t);
        assert_eq!(slave.step(t, step), Fmi2Status::Ok);
        t += step;
    }
    // Inputs set exactly at each of the three points before the outputs are read.
    drive(&slave, t);
    let before = slave.get(&references).1;
    assert_eq!(slave.step(t, h), Fmi2Status::Ok);
    t += h;
    drive(&slave, t);
    let now = slave.get(&references).1;
    let (status, derivatives) = slave.output_derivatives(&references, 1);
    assert_eq!(status, Fmi2Status::Ok, "{}", slave.last_error());
    assert_eq!(slave.step(t, h), Fmi2Status::Ok);
    drive(&slave, t + h);
    let after = slave.get(&references).1;

    let value = |name: &str| now[outputs.iter().position(|(n, _)| n == name).expect(name)];
    let derivative =
        |name: &str| derivatives[outputs.iter().position(|(n, _)| n == name).expect(name)];
    // Exact: the derivative of a state is the state's own rate.
    assert_eq!(derivative("rev.phi"), value("rev.w"));
    assert_eq!(derivative("rev.w"), value("rev.a"));
    assert_eq!(derivative("cross.phi"), value("cross.w"));
    assert_eq!(derivative("wrist.phi[1]"), value("wrist.w[1]"));
    // A motion-driven slider alone on its axis: f = M·a, so df/dt = M·(jerk of the motion).
    let jerk = sine(0.1, 5.0, 3, t);
    assert!(
        (derivative("slide.f") - SLIDER_MASS * jerk).abs() <= 1e-6 * (SLIDER_MASS * jerk).abs(),
        "d slide.f/dt = {}, M·jerk = {}",
        derivative("slide.f"),
        SLIDER_MASS * jerk
    );
    // Every output against the central difference over ±h: its error is h²/6·g''' plus the
    // integration error (tolerance 1e-10) over 2h, both below 1e-5 of the value's scale here.
    let mut worst = (0.0, String::new());
    for (k, (name, _)) in outputs.iter().enumerate() {
        let central = (after[k] - before[k]) / (2.0 * h);
        let error = (derivatives[k] - central).abs() / (1.0 + central.abs());
        if error > worst.0 {
            worst = (error, name.clone());
        }
        assert!(
            error < 1e-5,
            "{name}: derivative {} against the central difference {central}",
            derivatives[k]
        );
    }
    eprintln!(
        "{} outputs; worst relative difference {:.1e} ({})",
        outputs.len(),
        worst.0,
        worst.1
    );
    // Nothing trivial was compared: the arm turns in 3D and accelerates.
    assert!(derivative("arm.Q[1]").abs() > 1e-3 && derivative("arm.Q[2]").abs() > 1e-3);
    assert!(derivative("rev.a").abs() > 1e-2);
    assert!(derivative("wrist.i").abs() > 1e-2);
}

#[test]
fn bad_arguments_are_errors_with_messages() {
    let resources = Resources::new("output-derivatives-arguments", MODEL);
    let phi = vr("rev.phi");
    let tau = vr("rev.tau");
    type Case = (
        &'static str,
        fn(&Slave, u32, u32) -> Fmi2Status,
        &'static str,
    );
    let cases: [Case; 6] = [
        (
            "order 0",
            |s, phi, _| s.output_derivatives(&[phi], 0).0,
            "derivative order 0 of `rev.phi` is not provided",
        ),
        (
            "order 2",
            |s, phi, _| s.output_derivatives(&[phi], 2).0,
            "maxOutputDerivativeOrder is 1",
        ),
        (
            "an input",
            |s, _, tau| s.output_derivatives(&[tau], 1).0,
            "`rev.tau` (value reference",
        ),
        (
            "unknown value reference",
            |s, _, _| s.output_derivatives(&[100_000], 1).0,
            "value reference 100000 does not exist",
        ),
        (
            "null order[]",
            |s, phi, _| unsafe {
                fmi2GetRealOutputDerivatives(
                    s.c,
                    [phi].as_ptr(),
                    1,
                    std::ptr::null(),
                    [0.0].as_mut_ptr(),
                )
            },
            "order[] is a null pointer",
        ),
        (
            "null value[]",
            |s, phi, _| unsafe {
                fmi2GetRealOutputDerivatives(
                    s.c,
                    [phi].as_ptr(),
                    1,
                    [1].as_ptr(),
                    std::ptr::null_mut(),
                )
            },
            "value[] is a null pointer",
        ),
    ];
    for (what, call, expected) in cases {
        let slave = Slave::new(&resources);
        slave.initialize(None);
        assert_eq!(slave.step(0.0, 0.01), Fmi2Status::Ok);
        assert_eq!(call(&slave, phi, tau), Fmi2Status::Error, "{what}");
        assert!(
            slave.last_error().contains(expected),
            "{what}: {}",
            slave.last_error()
        );
    }
}
