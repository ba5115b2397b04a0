//! The four-cylinder engine (`models/engine.m3d`): four coupled planar loops on one crankshaft,
//! no user setting. The crank motion is the same whichever cylinder is listed first (the
//! cut-joints and the state order change with the listing), and every piston follows the
//! closed-form slider-crank kinematics of its crank pin.

use fmu3d_tests::{model_path, simulate, Trajectory};
use fmu_runtime::model;

fn run(source: &str) -> Trajectory {
    let spec = model::load_str_with(source, "engine.m3d", &[]).expect("the engine loads");
    simulate(spec, 1e-10, 0.5, 1e-3)
}

#[test]
fn crank_motion_does_not_depend_on_the_cylinder_order() {
    let source = std::fs::read_to_string(model_path("engine")).expect("readable");
    let (instances, others): (Vec<&str>, Vec<&str>) = source
        .lines()
        .partition(|line| line.starts_with("instance cyl"));
    assert_eq!(instances.len(), 4);
    // Listed as cyl2, cyl3, cyl4, cyl1: another cylinder first, and the phases in another order.
    let reordered: String = others
        .iter()
        .chain(instances[1..].iter())
        .chain(instances[..1].iter())
        .map(|line| format!("{line}\n"))
        .collect();
    let (a, b) = (run(&source), run(&reordered));
    let (phi_a, phi_b) = (a.column("crank.phi"), b.column("crank.phi"));
    let difference = phi_a
        .iter()
        .zip(phi_b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max);
    let turned = phi_a.last().unwrap() - phi_a[0];
    eprintln!(
        "engine: crank turned {turned:.1} rad; largest difference between the two listings \
         {difference:.2e} rad"
    );
    assert!(turned > 6.3, "the crank turns fully: {turned} rad");
    assert!(
        difference < 1e-6,
        "crank angle difference {difference:e} rad"
    );

    // Each piston follows its pin: x = r cos(θ + δ) + √(l² − r² sin²(θ + δ)).
    let (r, l) = (a.parameter("r"), a.parameter("l"));
    let mut error = 0.0f64;
    let pi = std::f64::consts::PI;
    for (k, phi) in phi_a.iter().enumerate() {
        for (cylinder, delta) in [(1, 0.0), (2, pi), (3, pi), (4, 0.0)] {
            let theta = phi + delta;
            let x = r * theta.cos() + (l * l - (r * theta.sin()).powi(2)).sqrt();
            let piston: [f64; 3] = a.vector(&format!("cyl{cylinder}.piston.r"), k);
            error = error.max((piston[0] - x).abs());
        }
    }
    eprintln!("engine: piston position error {error:.2e} m");
    // Kinematics solved to the loop closure's tolerance: 7.3e-13 m measured.
    assert!(error < 1e-11, "piston position error {error:e} m");
}
