//! Shared helpers of the integration tests: load a shipped model (optionally with parameters
//! changed), simulate it, and hand back the outputs as columns.

use fmu_runtime::model;
use fmu_runtime::simulation::{Simulation, SimulationOptions};
use std::path::PathBuf;

/// Path of a shipped example model.
pub fn model_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("models")
        .join(format!("{name}.m3d"))
}

/// A shipped model with some parameters overridden (SI values).
pub fn load(name: &str, overrides: &[(&str, f64)]) -> model::ModelSpec {
    try_load(name, overrides).expect("the model loads")
}

/// [`load`], or the model's error.
pub fn try_load(
    name: &str,
    overrides: &[(&str, f64)],
) -> Result<model::ModelSpec, model::ModelError> {
    let path = model_path(name);
    let source = std::fs::read_to_string(&path).expect("the model file is readable");
    let overrides: Vec<(String, f64)> =
        overrides.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    model::load_str_with(&source, &path.display().to_string(), &overrides)
}

/// Output trajectories sampled at a fixed interval.
#[derive(Debug)]
pub struct Trajectory {
    pub time: Vec<f64>,
    pub names: Vec<String>,
    /// `columns[i][k]`: output `names[i]` at `time[k]`.
    pub columns: Vec<Vec<f64>>,
    pub simulation: Simulation,
}

impl Trajectory {
    pub fn column(&self, name: &str) -> &[f64] {
        let index = self
            .names
            .iter()
            .position(|n| n == name)
            .unwrap_or_else(|| panic!("no output named {name}: {:?}", self.names));
        &self.columns[index]
    }

    /// Values of a 3- or 4-vector output (`body.r` → body.r[1..3]) at sample `k`.
    pub fn vector<const N: usize>(&self, name: &str, k: usize) -> [f64; N] {
        std::array::from_fn(|i| self.column(&format!("{name}[{}]", i + 1))[k])
    }

    /// Kinetic plus potential energy at sample `k` of bodies given as (frame, mass, inertia):
    /// each body's mass sits at a frame with outputs `r`, `v`, `w`, with an isotropic inertia
    /// about it, under gravity `g` along −y.
    pub fn mechanical_energy(&self, bodies: &[(&str, f64, f64)], g: f64, k: usize) -> f64 {
        bodies
            .iter()
            .map(|(name, m, j)| {
                let r: [f64; 3] = self.vector(&format!("{name}.r"), k);
                let v: [f64; 3] = self.vector(&format!("{name}.v"), k);
                let w: [f64; 3] = self.vector(&format!("{name}.w"), k);
                let v2: f64 = v.iter().map(|x| x * x).sum();
                let w2: f64 = w.iter().map(|x| x * x).sum();
                0.5 * m * v2 + 0.5 * j * w2 + m * g * r[1]
            })
            .sum()
    }

    /// Largest |E(t) − E(0)| / |E(0)| of [`Self::mechanical_energy`] over the run.
    pub fn relative_energy_drift(&self, bodies: &[(&str, f64, f64)], g: f64) -> f64 {
        let e0 = self.mechanical_energy(bodies, g, 0);
        (0..self.time.len())
            .map(|k| (self.mechanical_energy(bodies, g, k) - e0).abs())
            .fold(0.0, f64::max)
            / e0.abs()
    }

    pub fn parameter(&self, name: &str) -> f64 {
        self.simulation
            .spec
            .parameters
            .iter()
            .find(|p| p.name == name)
            .map(|p| p.value)
            .unwrap_or_else(|| panic!("no parameter {name}"))
    }
}

/// Simulates `spec` from its start time to `stop` with outputs every `interval`.
pub fn simulate(spec: model::ModelSpec, tolerance: f64, stop: f64, interval: f64) -> Trajectory {
    let options = SimulationOptions {
        tolerance: Some(tolerance),
        ..SimulationOptions::default()
    };
    simulate_with(spec, options, stop, interval)
}

/// [`simulate`] with any options (a largest step, say).
pub fn simulate_with(
    spec: model::ModelSpec,
    options: SimulationOptions,
    stop: f64,
    interval: f64,
) -> Trajectory {
    let mut simulation = Simulation::new(spec, options).expect("the simulation starts");
    let names: Vec<String> = simulation
        .variables
        .outputs()
        .map(|(_, v)| v.name.clone())
        .collect();
    let mut columns = vec![Vec::new(); names.len()];
    let mut time = Vec::new();
    let start = simulation.time();
    let count = ((stop - start) / interval).round() as usize;
    for k in 0..=count {
        let t = start + k as f64 * interval;
        simulation
            .advance_to(t)
            .expect("the integrator reaches the time");
        time.push(t);
        for (column, value) in columns.iter_mut().zip(simulation.output_values()) {
            column.push(value);
        }
    }
    Trajectory {
        time,
        names,
        columns,
        simulation,
    }
}

/// Checks that a simulation's stick states travel with its snapshots: from a snapshot taken at
/// `at`, the outputs over `count` points `step` apart are the same to the last bit after a
/// restore, and differ when the snapshot is restored with every pair slipping instead.
pub fn assert_stick_states_are_saved(spec: model::ModelSpec, at: f64, count: u32, step: f64) {
    let mut simulation = Simulation::new(spec, SimulationOptions::default()).expect("starts");
    simulation.advance_to(at).expect("runs");
    let saved = simulation.snapshot().expect("snapshot");
    let follow = |simulation: &mut Simulation| -> Vec<f64> {
        let mut values = Vec::new();
        for k in 1..=count {
            simulation
                .advance_to(at + step * f64::from(k))
                .expect("runs");
            values.extend(simulation.output_values());
        }
        values
    };
    let first = follow(&mut simulation);
    simulation.restore(&saved).expect("restores");
    let second = follow(&mut simulation);
    assert!(
        first == second,
        "the continuation differs after the restore"
    );
    let mut slipping = saved.clone();
    slipping
        .frictions
        .iter_mut()
        .for_each(|(_, f)| *f = Default::default());
    simulation.restore(&slipping).expect("restores");
    let third = follow(&mut simulation);
    assert!(first != third, "the stick state made no difference");
}

/// Twice the leading coefficient of the least-squares parabola through `points`.
pub fn quadratic_fit_curvature(points: &[(f64, f64)]) -> f64 {
    // Normal equations of x = c0 + c1 t + c2 t², t shifted to the mean for conditioning.
    let n = points.len() as f64;
    let mean = points.iter().map(|p| p.0).sum::<f64>() / n;
    let mut m = [[0.0f64; 3]; 3];
    let mut r = [0.0f64; 3];
    for &(t, x) in points {
        let s = t - mean;
        let basis = [1.0, s, s * s];
        for i in 0..3 {
            for j in 0..3 {
                m[i][j] += basis[i] * basis[j];
            }
            r[i] += basis[i] * x;
        }
    }
    // Cramer's rule for the 3×3 system.
    let det = |a: &[[f64; 3]; 3]| {
        a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1])
            - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
            + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0])
    };
    let mut m2 = m;
    for i in 0..3 {
        m2[i][2] = r[i];
    }
    2.0 * det(&m2) / det(&m)
}

/// Times at which `signal` crosses zero upwards, by linear interpolation between samples.
pub fn upward_zero_crossings(time: &[f64], signal: &[f64]) -> Vec<f64> {
    time.windows(2)
        .zip(signal.windows(2))
        .filter(|(_, s)| s[0] < 0.0 && s[1] >= 0.0)
        .map(|(t, s)| t[0] + (t[1] - t[0]) * (-s[0]) / (s[1] - s[0]))
        .collect()
}

pub mod fmi2_host;

/// The proptest settings of the fuzz targets: `PROPTEST_CASES` cases (64 by default, a short
/// run in every `cargo test`), a failing case kept in `tests/tests/regressions/` and replayed
/// first from then on.
pub fn fuzz_config() -> proptest::test_runner::Config {
    proptest::test_runner::Config {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(64),
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::WithSource("regressions"),
        )),
        ..proptest::test_runner::Config::default()
    }
}

/// The error that refuses the model `source`, when it is loaded or its simulation starts.
pub fn refusal(source: &str) -> String {
    match model::load_str_with(source, "m.m3d", &[]) {
        Ok(spec) => match Simulation::new(spec, SimulationOptions::default()) {
            Ok(_) => panic!("the model should be refused"),
            Err(e) => e.to_string(),
        },
        Err(e) => e.to_string(),
    }
}

/// x(t), ẋ(t) of ẍ = `acceleration(x, ẋ)` from (x0, v0) by the classical fourth-order
/// Runge–Kutta method with step `dt`: an integration of a test's own equation of motion,
/// independent of the engine's.
pub fn runge_kutta(
    acceleration: impl Fn(f64, f64) -> f64,
    (x0, v0): (f64, f64),
    until: f64,
    dt: f64,
) -> (f64, f64) {
    let (mut x, mut v) = (x0, v0);
    for _ in 0..(until / dt).round() as usize {
        let (k1x, k1v) = (v, acceleration(x, v));
        let (x2, v2) = (x + 0.5 * dt * k1x, v + 0.5 * dt * k1v);
        let (k2x, k2v) = (v2, acceleration(x2, v2));
        let (x3, v3) = (x + 0.5 * dt * k2x, v + 0.5 * dt * k2v);
        let (k3x, k3v) = (v3, acceleration(x3, v3));
        let (x4, v4) = (x + dt * k3x, v + dt * k3v);
        let (k4x, k4v) = (v4, acceleration(x4, v4));
        x += dt / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x);
        v += dt / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v);
    }
    (x, v)
}
