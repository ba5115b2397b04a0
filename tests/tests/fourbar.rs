//! The four-bar crank-rocker (`models/fourbar.m3d`), its crank moved by the model's expression
//! of time θ(t) = φ1 + ω·t + A·sin(2πt/T) through one full revolution: the crank joint follows
//! the expression and its derivatives, the loop stays closed and the rocker follows
//! Freudenstein's equation, solved here in closed form from the bar lengths (independent of the
//! engine).

use fmu3d_tests::load;
use fmu_runtime::simulation::{Simulation, SimulationOptions};
use std::f64::consts::PI;

fn variable(simulation: &Simulation, name: &str) -> usize {
    simulation
        .variables
        .variables
        .iter()
        .position(|v| v.name == name)
        .unwrap_or_else(|| panic!("no variable {name}"))
}

fn distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

/// Rocker angle ψ for crank angle θ from Freudenstein's equation
/// K1 cos ψ − K2 cos θ + K3 = cos(θ − ψ), both branches (tangent half-angle solution).
fn freudenstein(a: f64, b: f64, c: f64, d: f64, theta: f64) -> [f64; 2] {
    let (k1, k2, k3) = (
        d / a,
        d / c,
        (a * a - b * b + c * c + d * d) / (2.0 * a * c),
    );
    let big_a = theta.cos() - k1 - k2 * theta.cos() + k3;
    let big_b = -2.0 * theta.sin();
    let big_c = k1 - (k2 + 1.0) * theta.cos() + k3;
    let root = (big_b * big_b - 4.0 * big_a * big_c).sqrt();
    [
        2.0 * ((-big_b + root) / (2.0 * big_a)).atan(),
        2.0 * ((-big_b - root) / (2.0 * big_a)).atan(),
    ]
}

fn wrap(x: f64) -> f64 {
    (x + PI).rem_euclid(2.0 * PI) - PI
}

#[test]
fn closes_and_follows_freudenstein_over_a_crank_revolution() {
    let spec = load("fourbar", &[]);
    let options = SimulationOptions {
        tolerance: Some(1e-8),
        ..SimulationOptions::default()
    };
    let mut sim = Simulation::new(spec, options).expect("the four-bar assembles");
    let p = |sim: &Simulation, name: &str| {
        sim.spec
            .parameters
            .iter()
            .find(|q| q.name == name)
            .map(|q| q.value)
            .expect("parameter")
    };
    let (a, b, c, d) = (p(&sim, "a"), p(&sim, "b"), p(&sim, "c"), p(&sim, "d"));
    let (phi1, omega) = (p(&sim, "phi1"), p(&sim, "w1"));
    let (amplitude, period_sine) = (p(&sim, "A"), p(&sim, "T"));
    let nu = 2.0 * PI / period_sine;
    // The crank's angle, speed and acceleration, differentiated by hand.
    let crank = |t: f64| {
        [
            phi1 + omega * t + amplitude * (nu * t).sin(),
            omega + amplitude * nu * (nu * t).cos(),
            -amplitude * nu * nu * (nu * t).sin(),
        ]
    };
    // The prescribed joint has no inputs: its angle, speed and acceleration are outputs.
    assert!(sim
        .variables
        .variables
        .iter()
        .all(|v| v.causality != fmu_runtime::assembly::Causality::Input));
    let joint = [
        variable(&sim, "rev1.phi"),
        variable(&sim, "rev1.w"),
        variable(&sim, "rev1.a"),
    ];
    let mut motion_error = 0.0f64;
    let names: Vec<String> = sim
        .variables
        .outputs()
        .map(|(_, v)| v.name.clone())
        .collect();
    let column = |name: &str| names.iter().position(|n| n == name).expect(name);
    let vector = |values: &[f64], name: &str| -> [f64; 3] {
        std::array::from_fn(|i| values[column(&format!("{name}[{}]", i + 1))])
    };
    let period = 2.0 * PI / omega;
    let steps = 400;
    let (mut closure, mut angle_error, mut branch) = (0.0f64, 0.0f64, None);
    for k in 0..=steps {
        let t = period * k as f64 / steps as f64;
        sim.advance_to(t).expect("the integrator reaches the time");
        let expected = crank(t);
        for (value, exact) in sim.values_of(&joint).iter().zip(expected) {
            motion_error = motion_error.max((value - exact).abs() / (1.0 + exact.abs()));
        }
        let values = sim.output_values();
        let r = |name: &str| vector(&values, name);
        // Every joint of the loop keeps its two frames together, whichever joint is cut.
        for (x, y) in [
            ([0.0, 0.0, 0.0], r("bar1.obj1.r")),
            (r("bar1.obj2.r"), r("bar2.obj1.r")),
            (r("bar3.obj2.r"), r("bar2.obj2.r")),
            ([d, 0.0, 0.0], r("bar3.obj1.r")),
        ] {
            closure = closure.max(distance(x, y));
        }
        let (crank0, crank1) = (r("bar1.obj1.r"), r("bar1.obj2.r"));
        let theta = (crank1[1] - crank0[1]).atan2(crank1[0] - crank0[0]);
        assert!(
            wrap(theta - expected[0]).abs() < 1e-9,
            "the crank follows its input"
        );
        let (rocker0, rocker1) = (r("bar3.obj1.r"), r("bar3.obj2.r"));
        let psi = (rocker1[1] - rocker0[1]).atan2(rocker1[0] - rocker0[0]);
        let solutions = freudenstein(a, b, c, d, theta);
        // The assembly mode chosen at the start (by the guesses) is kept.
        let index = *branch.get_or_insert_with(|| {
            if wrap(solutions[0] - psi).abs() < wrap(solutions[1] - psi).abs() {
                0
            } else {
                1
            }
        });
        angle_error = angle_error.max(wrap(psi - solutions[index]).abs());
    }
    eprintln!(
        "four-bar: closure residual {closure:.2e} m, rocker angle error {angle_error:.2e} rad"
    );
    eprintln!("four-bar: crank motion error {motion_error:.2e} (relative to 1 + |value|)");
    // Measured: 3.8e-16, 5.5e-10 m, 1.6e-9 rad. The outputs are the integrator's dense output
    // between its steps: the loop is closed there to the tolerance (1e-8), at the steps to the
    // Newton iteration's (2.9e-11 m when every output ended a step).
    assert!(motion_error < 1e-14, "crank motion error {motion_error:e}");
    assert!(closure < 5e-9, "closure residual {closure:e} m");
    assert!(
        angle_error < 1.6e-8,
        "rocker angle error {angle_error:e} rad"
    );
    // Redundant closure equations of the planar loop were removed: 5 revolute constraints, 2
    // independent in the plane.
    let mechanism = sim.mechanism();
    assert_eq!(mechanism.cuts.len(), 1);
    assert_eq!((mechanism.rows.len(), mechanism.dropped.len()), (2, 3));
}
