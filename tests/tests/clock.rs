//! The clock (`models/clock.m3d`): the hand is placed by the mate between its pivot connector and
//! the face's center connector. After assembly the hand's pivot sits on the face's center and
//! the hand turns in the dial's plane about the face's center axis.

use fmu3d_tests::{load, simulate};

#[test]
fn hand_turns_about_the_face_center_axis() {
    let run = simulate(load("clock", &[]), 1e-8, 10.0, 0.1);
    // The face's center connector: 5 mm in front of the face's origin [0, 1, 0], main axis +z.
    let center = [0.0, 1.0, 0.005];
    let (mut position_error, mut axis_error) = (0.0f64, 0.0f64);
    for k in 0..run.time.len() {
        let pivot: [f64; 3] = run.vector("hand.r", k);
        let tip: [f64; 3] = run.vector("hand_tip.r", k);
        let w: [f64; 3] = run.vector("hand.w", k);
        for i in 0..3 {
            position_error = position_error.max((pivot[i] - center[i]).abs());
        }
        // The hand stays in the dial's plane, its angular velocity along the center axis.
        axis_error = axis_error
            .max((tip[2] - center[2]).abs())
            .max(w[0].abs())
            .max(w[1].abs());
    }
    let tip: [f64; 3] = run.vector("hand_tip.r", run.time.len() - 1);
    eprintln!(
        "clock: pivot error {position_error:.1e} m, axis error {axis_error:.1e}, tip {tip:?}"
    );
    assert!(position_error < 1e-12 && axis_error < 1e-12);
    // The connectors' normals put the hand at 12 o'clock (the face's y) at zero angle; -6 deg/s
    // about the face's +z for 10 s turn it 60 degrees clockwise, to 30 degrees above +x.
    let angle = (tip[1] - center[1]).atan2(tip[0] - center[0]);
    assert!(
        (angle - 30f64.to_radians()).abs() < 1e-6,
        "hand angle {angle}"
    );
}
