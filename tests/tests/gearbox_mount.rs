//! The gearbox mount (`models/gearbox_mount.m3d`): a motor and a pulley placed only by mate
//! connectors. The housing must stand on the plate and the pulley's balance mark must run on the
//! circle that the connector frames give, worked out by hand; with the motor's axis vertical and
//! no torque, the rotor keeps its start speed. Changing a parameter that sizes a part moves the
//! parts that SNAP placed on it.

use fmu3d_tests::{load, simulate};

/// World positions of the housing and of the balance mark at the rotor angle `phi`.
///
/// The plate's holes (main axis up) are t/2 above its origin at height 0.5 m, the motor's
/// holes L/2 below the housing's origin along the housing's axis: the housing stands at
/// 0.5 + t/2 + L/2. The shaft end is Ls above the bearing at the housing's top; the pulley's
/// bore is width/2 below the pulley's center. The bore's normal (the pulley's y) lies on the
/// shaft's x, the plate's x turned by `yaw` about the vertical, so the mark at the pulley's +x
/// rim lies on the motor's -y, which the bolts turn to the plate's +z: at angle yaw + phi about
/// the vertical from the world's z.
fn expected(run: &fmu3d_tests::Trajectory, phi: f64) -> ([f64; 3], [f64; 3]) {
    let p = |name| run.parameter(name);
    let housing = [0.0, 0.5 + p("t") / 2.0 + p("motor.L") / 2.0, 0.0];
    let center = 0.5 + p("t") / 2.0 + p("motor.L") + p("motor.Ls") + p("pulley.width") / 2.0;
    let (r, angle) = (p("pulley.d") / 2.0, p("yaw") + phi);
    (housing, [r * angle.sin(), center, r * angle.cos()])
}

fn assert_on_the_hand_computed_path(run: &fmu3d_tests::Trajectory) -> f64 {
    let w0 = run.parameter("w0");
    let mut error = 0.0f64;
    for k in 0..run.time.len() {
        let phi = w0 * run.time[k];
        let (housing, mark) = expected(run, phi);
        let housing_now: [f64; 3] = run.vector("motor.housing.r", k);
        let mark_now: [f64; 3] = run.vector("pulley.balance_mark.r", k);
        for i in 0..3 {
            error = error
                .max((housing_now[i] - housing[i]).abs())
                .max((mark_now[i] - mark[i]).abs());
        }
        error = error.max((run.column("motor.spin.phi")[k] - phi).abs());
    }
    error
}

#[test]
fn parts_sit_where_their_connectors_put_them() {
    let run = simulate(load("gearbox_mount", &[]), 1e-8, 1.0, 0.05);
    let error = assert_on_the_hand_computed_path(&run);
    eprintln!("gearbox_mount: largest deviation from the hand-computed placement {error:.1e}");
    // Placement by closed forms: round-off (7.1e-15 measured).
    assert!(error < 1e-12, "deviation {error}");
    // At the start the placement is exact (no integration yet).
    let (housing, mark) = expected(&run, 0.0);
    let housing_now: [f64; 3] = run.vector("motor.housing.r", 0);
    let mark_now: [f64; 3] = run.vector("pulley.balance_mark.r", 0);
    for i in 0..3 {
        assert!((housing_now[i] - housing[i]).abs() < 1e-14);
        assert!((mark_now[i] - mark[i]).abs() < 1e-14);
    }
}

#[test]
fn a_longer_motor_and_another_turn_of_the_plate_move_the_mated_parts() {
    let run = simulate(
        load(
            "gearbox_mount",
            &[("motor.L", 0.2), ("yaw", -1.0), ("pulley.d", 0.1)],
        ),
        1e-8,
        0.5,
        0.05,
    );
    assert_eq!(run.parameter("motor.L"), 0.2);
    let error = assert_on_the_hand_computed_path(&run);
    // Placement by closed forms: round-off (7.1e-15 measured).
    assert!(error < 1e-12, "deviation {error}");
}
