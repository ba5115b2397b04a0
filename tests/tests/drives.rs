//! Drive trains on joint flanges (`drive`) against closed-form solutions of their linear ODEs:
//! a DC motor through a gear on an inertia, two inertias coupled by a spring and damper, and the
//! translational variant on a prismatic joint. No gravity acts, so each system is linear.

use fmu3d_tests::{simulate, upward_zero_crossings, Trajectory};
use fmu_runtime::model;
use fmu_runtime::simulation::{Simulation, SimulationOptions};
use std::f64::consts::PI;

fn run(source: &str, stop: f64, interval: f64) -> Trajectory {
    let spec = model::load_str_with(source, "drive.m3d", &[]).expect("the model loads");
    simulate(spec, 1e-10, stop, interval)
}

/// Largest deviation of `actual` from `expected(t)` relative to `scale`.
fn worst(trajectory: &Trajectory, name: &str, scale: f64, expected: impl Fn(f64) -> f64) -> f64 {
    trajectory
        .time
        .iter()
        .zip(trajectory.column(name))
        .map(|(t, v)| (v - expected(*t)).abs() / scale)
        .fold(0.0, f64::max)
}

const MOTOR: &str = r#"
model motor_on_inertia
parameters {
  V = 6 V
  J_L = 0.01 kg.m2
}
gravity none
object load { mass { m = 1 kg; inertia = diag(0.001, 0.001, 0.002) kg.m2 } }
joint shaft revolute { from = world; to = load; axis = z }
drive D {
  joint = shaft
  motor { R = 0.5 Ohm; L = 0.5 mH; k = 0.05 N.m/A; J = 2e-5 kg.m2; v = V }
  gear { ratio = 10 }
  inertia { J = J_L }
}
"#;

/// The reduced inertia of [`MOTOR`] at the load: J_m n² + J_L + J_b.
const MOTOR_J: f64 = 2e-5 * 10.0 * 10.0 + 0.01 + 0.002;

/// [`MOTOR`]'s current and load speed from i0 at rest (see [`dc_motor_step`]).
fn motor_closed_form(i0: f64) -> impl Fn(f64) -> [f64; 2] {
    let (v, r, l, k, n): (f64, f64, f64, f64, f64) = (6.0, 0.5, 0.5e-3, 0.05, 10.0);
    let a = [[-r / l, -k * n / l], [n * k / MOTOR_J, 0.0]];
    let trace = a[0][0] + a[1][1];
    let det = a[0][0] * a[1][1] - a[0][1] * a[1][0];
    let disc = trace * trace - 4.0 * det;
    assert!(disc > 0.0, "the test's parameters give real eigenvalues");
    let (l1, l2) = ((trace + disc.sqrt()) / 2.0, (trace - disc.sqrt()) / 2.0);
    let x_inf = [0.0, v / (k * n)];
    move |t: f64| {
        let c0 = (l1 * (l2 * t).exp() - l2 * (l1 * t).exp()) / (l1 - l2);
        let c1 = ((l1 * t).exp() - (l2 * t).exp()) / (l1 - l2);
        let d = [i0 - x_inf[0], -x_inf[1]];
        let ad = [
            a[0][0] * d[0] + a[0][1] * d[1],
            a[1][0] * d[0] + a[1][1] * d[1],
        ];
        [
            x_inf[0] + c0 * d[0] + c1 * ad[0],
            x_inf[1] + c0 * d[1] + c1 * ad[1],
        ]
    }
}

/// Voltage step V on a motor (R, L, k, rotor J_m) through a gear of ratio n on the load inertia
/// J_L plus the body's J_b. With J = J_m n² + J_L + J_b and the load speed w:
///   L di/dt = V − R i − k n w,   J dw/dt = n k i,
/// a linear system x' = A x + b with equilibrium i = 0, w = V/(k n); from i0 at rest
/// x(t) = x∞ + e^{At}(x0 − x∞), and for real eigenvalues λ1 ≠ λ2 of A
/// e^{At} = (λ1 e^{λ2 t} − λ2 e^{λ1 t})/(λ1 − λ2) I + (e^{λ1 t} − e^{λ2 t})/(λ1 − λ2) A.
/// The largest deviations, relative to the peak current and its speed, torque and power, of
/// current, speed, motor speed, motor torque, electrical power and flange torque.
fn dc_motor_step(i0: f64) -> [f64; 6] {
    let (v, k, n, j_b) = (6.0, 0.05, 10.0, 0.002);
    let j = MOTOR_J;
    let state = motor_closed_form(i0);
    let x_inf = [0.0, v / (k * n)];
    let source = MOTOR.replace("v = V }", &format!("v = V; i = {i0} A }}"));
    let run = run(&source, 0.3, 1e-3);
    let i_peak = run.column("D.i").iter().cloned().fold(0.0, f64::max);
    let w_end = x_inf[1];
    let current = worst(&run, "D.i", i_peak, |t| state(t)[0]);
    let speed = worst(&run, "shaft.w", w_end, |t| state(t)[1]);
    let motor_speed = worst(&run, "D.w_motor", n * w_end, |t| n * state(t)[1]);
    let torque = worst(&run, "D.tau_motor", k * i_peak, |t| k * state(t)[0]);
    let power = worst(&run, "D.P_el", v * i_peak, |t| v * state(t)[0]);
    // The load inertia belongs to the drive: the flange torque accelerates the body alone,
    // J_b dw/dt.
    let flange = worst(&run, "D.tau_flange", n * k * i_peak, |t| {
        j_b * n * k * state(t)[0] / j
    });
    eprintln!(
        "DC motor step from {i0} A: peak current {i_peak:.4} A; largest errors relative to the \
         peak: current {current:.2e}, speed {speed:.2e}, motor speed {motor_speed:.2e}, torque \
         {torque:.2e}, power {power:.2e}, flange torque {flange:.2e}"
    );
    [current, speed, motor_speed, torque, power, flange]
}

#[test]
fn dc_motor_through_a_gear_follows_the_closed_form_step_response() {
    // Achieved about 1e-9 (the integrator's tolerance on a smooth response).
    for e in dc_motor_step(0.0) {
        assert!(e < 1e-8, "deviation {e:.2e} from the closed form");
    }
}

/// The motor's start current `i` (5 A, where the step alone peaks near 10 A) enters the same
/// response as x0: 10 % off (0.5 A) moves the current by 4 % of its peak.
#[test]
fn a_dc_motors_start_current_starts_its_step_response() {
    for e in dc_motor_step(5.0) {
        assert!(e < 1e-8, "deviation {e:.2e} from the closed form");
    }
}

/// Two inertias joined by a spring c and damper d: the source-side inertia J1 (behind a gear of
/// ratio n, so it counts J1 n² at the spring) starts turning, the joint's body J2 at rest. The
/// relative angle x = φ2 − φ1 (φ1 at the gear's output) obeys J_red x'' + d x' + c x = 0 with
/// J_red = J1' J2 / (J1' + J2); the common speed P/(J1' + J2) stays.
fn two_inertias(damping: f64) -> (Trajectory, f64, f64, f64, f64, f64, f64) {
    let (j1, n, j2, c, w1) = (0.002, 2.0, 0.004, 50.0, 3.0);
    let model = format!(
        r#"
model two_inertias
gravity none
object body {{ mass {{ m = 1 kg; inertia = diag(0.002, 0.002, {j2}) kg.m2 }} }}
joint shaft revolute {{ from = world; to = body; axis = z }}
drive D {{
  joint = shaft
  inertia {{ J = {j1} kg.m2; w = {w1} rad/s }}
  gear {{ ratio = {n} }}
  spring {{ c = {c} N.m/rad; d = {damping} N.m.s/rad }}
}}
"#
    );
    let run = run(&model, 1.0, 1e-3);
    (run, j1 * n * n, j2, c, w1 / n, n, damping)
}

#[test]
fn two_inertias_on_a_spring_oscillate_at_the_closed_form_frequency() {
    let (run, j1, j2, c, w10, _, _) = two_inertias(0.0);
    let omega = (c * (j1 + j2) / (j1 * j2)).sqrt();
    let w_cm = j1 * w10 / (j1 + j2);
    // x' = −w10 cos(Ωt): w1 = w_cm − J2/(J1+J2) x', w2 = w_cm + J1/(J1+J2) x'.
    let x_dot = |t: f64| -w10 * (omega * t).cos();
    let e1 = worst(&run, "D.w[1]", w10, |t| w_cm - j2 / (j1 + j2) * x_dot(t));
    let e2 = worst(&run, "shaft.w", w10, |t| w_cm + j1 / (j1 + j2) * x_dot(t));
    let relative: Vec<f64> = run
        .column("shaft.phi")
        .iter()
        .zip(run.column("D.phi[1]"))
        .map(|(a, b)| a - b)
        .collect();
    let crossings = upward_zero_crossings(&run.time, &relative);
    let period = (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
    let expected = 2.0 * PI / omega;
    eprintln!(
        "two inertias: period {period:.6} s (closed form {expected:.6} s), speed errors \
         {e1:.2e}, {e2:.2e} of the start speed"
    );
    assert!(crossings.len() >= 3);
    assert!((period - expected).abs() < 1e-5 * expected);
    assert!(e1 < 1e-6 && e2 < 1e-6);
}

#[test]
fn a_damper_between_two_inertias_dissipates_what_the_closed_form_says() {
    let (run, j1, j2, c, w10, _, d) = two_inertias(0.05);
    let j_red = j1 * j2 / (j1 + j2);
    let omega_n = (c / j_red).sqrt();
    let zeta = d / (2.0 * (c * j_red).sqrt());
    assert!(zeta < 1.0, "underdamped");
    let omega_d = omega_n * (1.0 - zeta * zeta).sqrt();
    // x(0) = 0, x'(0) = v0 = −w10.
    let v0 = -w10;
    let x = |t: f64| v0 / omega_d * (-zeta * omega_n * t).exp() * (omega_d * t).sin();
    let x_dot = |t: f64| {
        v0 * (-zeta * omega_n * t).exp()
            * ((omega_d * t).cos() - zeta * omega_n / omega_d * (omega_d * t).sin())
    };
    let momentum_energy = 0.5 * (j1 * w10).powi(2) / (j1 + j2);
    let energy_closed =
        |t: f64| momentum_energy + 0.5 * j_red * x_dot(t).powi(2) + 0.5 * c * x(t).powi(2);
    let e0 = 0.5 * j1 * w10 * w10;
    let mut worst_energy = 0.0f64;
    for k in 0..run.time.len() {
        let (w1, w2) = (run.column("D.w[1]")[k], run.column("shaft.w")[k]);
        let deflection = run.column("shaft.phi")[k] - run.column("D.phi[1]")[k];
        let energy = 0.5 * j1 * w1 * w1 + 0.5 * j2 * w2 * w2 + 0.5 * c * deflection * deflection;
        worst_energy = worst_energy.max((energy - energy_closed(run.time[k])).abs() / e0);
    }
    let dissipated = e0 - energy_closed(1.0);
    eprintln!(
        "damped two inertias: {:.4} of the start energy dissipated by 1 s; energy error {worst_energy:.2e} of it",
        dissipated / e0
    );
    assert!(
        dissipated > 0.5 * (e0 - momentum_energy),
        "the damper takes most of the oscillation"
    );
    // Achieved 5.1e-9.
    assert!(worst_energy < 5e-8);
}

/// A prismatic joint: a slider of mass m_b carrying the drive's mass m, on the joint's own spring
/// c, swings with the period 2π sqrt((m + m_b)/c); two masses coupled by the drive's spring swing
/// with 2π sqrt(m_red/c).
#[test]
fn masses_on_springs_of_a_translational_drive_swing_with_their_periods() {
    let (m, m_b, c): (f64, f64, f64) = (2.0, 0.5, 400.0);
    let model = format!(
        r#"
model slider
gravity none
object slider {{ mass {{ m = {m_b} kg }} }}
joint rail prismatic {{ from = world; to = slider; axis = x; s = 0.01 m; spring = {c} N/m }}
drive D {{ joint = rail; mass {{ m = {m} kg }} }}
object slider2 {{ mass {{ m = {m_b} kg }} }}
joint rail2 prismatic {{ from = world; to = slider2; axis = y }}
drive D2 {{ joint = rail2; force {{ }}; mass {{ m = {m} kg; v = 0.2 m/s }}; spring {{ c = {c} N/m }} }}
"#
    );
    let run = run(&model, 2.0, 1e-3);
    let period_of = |signal: &[f64]| {
        let crossings = upward_zero_crossings(&run.time, signal);
        assert!(crossings.len() >= 3);
        (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64
    };
    let single = period_of(run.column("rail.v"));
    let expected_single = 2.0 * PI * ((m + m_b) / c).sqrt();
    let relative: Vec<f64> = run
        .column("rail2.s")
        .iter()
        .zip(run.column("D2.s[1]"))
        .map(|(a, b)| a - b)
        .collect();
    let coupled = period_of(&relative);
    let expected_coupled = 2.0 * PI * (m * m_b / (c * (m + m_b))).sqrt();
    eprintln!(
        "translational drives: period {single:.6} s (closed form {expected_single:.6} s), coupled \
         {coupled:.6} s (closed form {expected_coupled:.6} s)"
    );
    assert!((single - expected_single).abs() < 1e-5 * expected_single);
    assert!((coupled - expected_coupled).abs() < 1e-5 * expected_coupled);
    // The force input exists and starts at zero; the momentum of the coupled pair stays.
    let momentum: Vec<f64> = (0..run.time.len())
        .map(|k| m * run.column("D2.v[1]")[k] + m_b * run.column("rail2.v")[k])
        .collect();
    assert!(momentum.iter().all(|p| (p - m * 0.2).abs() < 1e-8));
}

/// The force and torque sources: the FMU inputs `D.f` (6 N) and `T.tau` (0.3 N·m), set before
/// the run, accelerate their joint's body and the drive's mass or inertia together, from rest:
/// s = ½ (f / (m + m_b)) t² and φ = ½ (τ / (J + J_b)) t². A source 10 % off, or reversed, moves
/// them by 10 % (or 200 %) of their travel.
#[test]
fn force_and_torque_sources_accelerate_the_joint_with_the_drives_mass() {
    let model = r#"
model sources
gravity none
object slider { mass { m = 2 kg; inertia = diag(0.01, 0.01, 0.01) kg.m2 } }
joint rail prismatic { from = world; to = slider; axis = x }
drive D { joint = rail; force { }; mass { m = 1 kg } }
object wheel { mass { m = 1 kg; inertia = diag(0.01, 0.01, 0.02) kg.m2 } }
joint shaft revolute { from = world; to = wheel; axis = z }
drive T { joint = shaft; torque { }; inertia { J = 0.01 kg.m2 } }
"#;
    let spec = model::load_str_with(model, "sources.m3d", &[]).expect("the model loads");
    let options = SimulationOptions {
        tolerance: Some(1e-10),
        ..SimulationOptions::default()
    };
    let mut sim = Simulation::new(spec, options).expect("starts");
    let force = sim.variables.find("D.f").expect("the force input");
    let torque = sim.variables.find("T.tau").expect("the torque input");
    sim.set_input(force, 6.0).expect("an input");
    sim.set_input(torque, 0.3).expect("an input");
    let (s, phi) = (
        sim.variables.find("rail.s").expect("s"),
        sim.variables.find("shaft.phi").expect("phi"),
    );
    let mut worst: f64 = 0.0;
    for k in 1..=10 {
        let t = 0.1 * k as f64;
        sim.advance_to(t).expect("steps");
        let values = sim.values_of(&[s, phi]);
        let expected = [0.5 * (6.0 / 3.0) * t * t, 0.5 * (0.3 / 0.03) * t * t];
        for (value, expected) in values.iter().zip(expected) {
            worst = worst.max((value - expected).abs() / expected);
        }
    }
    eprintln!("force and torque sources: within {worst:.1e} of ½ a t²");
    // A constant acceleration is a polynomial the integrator follows to round-off (4e-16).
    assert!(worst < 1e-12, "{worst}");
}

/// A snapshot of the motor's run taken at 0.05 s, during the current's rise, restored into a
/// fresh simulation that continues to 0.3 s: current and speed follow the step response's
/// closed form from rest at 0, as if never interrupted. A snapshot without the drive's states
/// (the current, the part's angle and speed) would restart the fresh run's current from 0 A
/// at 0.05 s, off by amperes.
#[test]
fn a_restored_snapshot_continues_the_motors_step_response() {
    let spec = || model::load_str_with(MOTOR, "drive.m3d", &[]).expect("the model loads");
    let options = || SimulationOptions {
        tolerance: Some(1e-10),
        ..SimulationOptions::default()
    };
    let mut first = Simulation::new(spec(), options()).expect("starts");
    first.advance_to(0.05).expect("steps");
    let snapshot = first.snapshot().expect("a snapshot");
    let mut fresh = Simulation::new(spec(), options()).expect("starts");
    fresh.restore(&snapshot).expect("restores");
    assert_eq!(
        fresh.time(),
        0.05,
        "the fresh run continues from the snapshot"
    );
    let (current, speed) = (
        fresh.variables.find("D.i").expect("the current"),
        fresh.variables.find("shaft.w").expect("the speed"),
    );
    let state = motor_closed_form(0.0);
    let (i_scale, w_scale) = (10.0, 6.0 / (0.05 * 10.0));
    let mut worst = 0.0f64;
    for k in 6..=30 {
        let t = 0.01 * k as f64;
        fresh.advance_to(t).expect("steps");
        let values = fresh.values_of(&[current, speed]);
        let expected = state(t);
        worst = worst
            .max((values[0] - expected[0]).abs() / i_scale)
            .max((values[1] - expected[1]).abs() / w_scale);
    }
    eprintln!(
        "motor restored at 0.05 s: within {worst:.1e} of the closed form (of 10 A, 12 rad/s)"
    );
    assert!(worst < 1e-8, "{worst}");
}

/// The drive's states (part angle and speed, motor current) are part of a snapshot: continuing
/// from a restored snapshot repeats the outputs to the last bit, and the voltage input drives the
/// motor.
#[test]
fn snapshots_hold_the_drive_states() {
    let model = r#"
model motor_spring
gravity none
object body { mass { m = 1 kg; inertia = diag(0.01, 0.01, 0.02) kg.m2 } }
joint shaft revolute { from = world; to = body; axis = z }
drive D {
  joint = shaft
  motor { R = 1 Ohm; L = 2 mH; k = 0.1 N.m/A; J = 1e-4 kg.m2 }
  gear { ratio = 5 }
  spring { c = 20 N.m/rad; d = 0.01 N.m.s/rad }
  inertia { J = 0.005 kg.m2 }
}
"#;
    let spec = model::load_str_with(model, "motor_spring.m3d", &[]).expect("the model loads");
    let mut sim = Simulation::new(spec, SimulationOptions::default()).expect("starts");
    assert_eq!(
        sim.state_count(),
        5,
        "joint angle and speed, part angle and speed, current"
    );
    let voltage = sim.variables.find("D.v").expect("the voltage input");
    sim.set_input(voltage, 12.0).expect("an input");
    sim.advance_to(0.05).expect("steps");
    let snapshot = sim.snapshot().expect("a snapshot");
    let continue_to = |sim: &mut Simulation| {
        sim.advance_to(0.1).expect("steps");
        sim.output_values()
            .iter()
            .map(|v| v.to_bits())
            .collect::<Vec<_>>()
    };
    let first = continue_to(&mut sim);
    sim.restore(&snapshot).expect("restores");
    assert_eq!(continue_to(&mut sim), first);
    let current = sim.variables.find("D.i").expect("the current");
    assert!(
        sim.values_of(&[current])[0] > 0.1,
        "the voltage drives a current"
    );
}

/// The speed controller's law, from the outputs alone: with e = w_ref − w and the back-
/// calculating integrator dx/dt = e + (v − u_c)/Kp, u_c = Kp e + Ki x, x obeys the linear
/// ODE dx/dt = v/Kp − (Ki/Kp) x, integrated here from the sampled voltage (trapezoid, 0.1 ms);
/// the voltage must be clamp(Kp e + Ki x, ±U_max) at every sample, saturated while the set
/// speed ramps up (in 20 ms instead of the model's 200 ms) and not after. And the crank's mean
/// speed settles at the set speed (the eccentric weight makes it swing about it).
#[test]
fn the_speed_controller_follows_its_law_through_saturation() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("python/models/crank_drive_pi.m3d");
    let source = std::fs::read_to_string(&path).expect("the model file is readable");
    let spec = fmu_runtime::model::load_str_with(
        &source,
        &path.display().to_string(),
        &[("t_ramp".to_string(), 0.02)],
    )
    .expect("model");
    let run = fmu3d_tests::simulate(spec, 1e-10, 2.0, 1e-4);
    let (kp, ki, u_max, w_set) = (
        run.parameter("Kp"),
        run.parameter("Ki"),
        run.parameter("U_max"),
        run.parameter("w_set"),
    );
    let (t, v, w_ref, w) = (
        &run.time,
        run.column("motor.v"),
        run.column("motor.w_ref"),
        run.column("crank.w"),
    );
    let mut x = 0.0;
    let (mut worst, mut saturated) = (0.0f64, 0);
    for k in 0..t.len() {
        if k > 0 {
            let h = t[k] - t[k - 1];
            // x' = v/Kp − (Ki/Kp) x: trapezoid in v, exact decay in x.
            let decay = (-ki / kp * h).exp();
            x = x * decay + 0.5 * h * (v[k - 1] * decay + v[k]) / kp;
        }
        let predicted = (kp * (w_ref[k] - w[k]) + ki * x).clamp(-u_max, u_max);
        worst = worst.max((predicted - v[k]).abs());
        saturated += usize::from(v[k].abs() > u_max - 1e-9);
    }
    // The mean speed over the last 0.5 s (six turns): the eccentric weight's pull alternates.
    let last: Vec<f64> = (0..t.len())
        .filter(|&k| t[k] >= 1.5)
        .map(|k| w[k])
        .collect();
    let settled = (last.iter().sum::<f64>() / last.len() as f64 - w_set).abs();
    eprintln!(
        "speed control: voltage off its law by at most {worst:.2e} V, {saturated} of {} samples \
         saturated, |w − w_set| at 2 s {settled:.2e} rad/s",
        t.len()
    );
    assert!(saturated > 100, "the test needs a saturated start");
    // Measured 7.8e-6 V (the trapezoid over 0.1 ms samples).
    assert!(
        worst < 1e-4,
        "the voltage leaves the controller's law by {worst} V"
    );
    // Measured 3.6e-5 rad/s.
    assert!(
        settled < 5e-4,
        "the crank's mean speed is off by {settled} rad/s"
    );
}
