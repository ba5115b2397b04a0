//! Test support: reproducible random numbers, difference quotients of the residual, the
//! shipped models.

use crate::dynamics::{residual, FlangeInputs, Mechanism, Workspace};

/// The shipped model files, sorted.
pub fn shipped_models() -> Vec<std::path::PathBuf> {
    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../models");
    let mut paths: Vec<_> = std::fs::read_dir(&folder)
        .expect("models")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "m3d"))
        .collect();
    paths.sort();
    paths
}

/// A reproducible sequence in [−1, 1).
pub fn pseudo_random(seed: &mut u64) -> f64 {
    *seed = seed
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    (*seed >> 11) as f64 / (1u64 << 52) as f64 - 1.0
}

/// Fourth-order central difference quotients of J = ∂F/∂y + c_j ∂F/∂ẏ, one column at a
/// time, with increment `h(j)`.
pub fn central_differences(
    evaluate: &mut impl FnMut(&[f64], &[f64], &mut [f64]),
    y: &[f64],
    yp: &[f64],
    cj: f64,
    h: impl Fn(usize) -> f64,
) -> Vec<f64> {
    let n = y.len();
    let mut jac = vec![0.0; n * n];
    let mut f = [vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0.0; n]];
    for j in 0..n {
        let step = h(j);
        for (k, times) in [2.0, 1.0, -1.0, -2.0].into_iter().enumerate() {
            let (mut y1, mut yp1) = (y.to_vec(), yp.to_vec());
            y1[j] = y[j] + times * step;
            yp1[j] = yp[j] + cj * times * step;
            evaluate(&y1, &yp1, &mut f[k]);
        }
        for r in 0..n {
            jac[j * n + r] = (8.0 * (f[1][r] - f[2][r]) - (f[0][r] - f[3][r])) / (12.0 * step);
        }
    }
    jac
}

/// The round-off floor of each column's quotients: 10 ε times the residual's largest entry
/// `f`, over the column's increment `h(j)` (the four evaluations' rounding, with the stencil's
/// weights, is below 2 ε |F| / h; the residual's own rounding adds a few ε |F|).
pub fn round_off_floor(f: &[f64], h: impl Fn(usize) -> f64) -> Vec<f64> {
    let largest = f.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    (0..f.len())
        .map(|j| 10.0 * f64::EPSILON * largest / h(j))
        .collect()
}

/// Asserts that the exact J (`exact`, column-major n × n) equals the quotients `fine` within
/// 1e-6 of each column's largest entry, plus twice their own error, estimated by their
/// difference from `coarse` (four times the increment: truncation at depths of nm), plus the
/// column's round-off `floor` (absolute: forces of MN make quotients of a column with small
/// entries noisy). Returns the largest error and the largest own error, relative.
pub fn compare_with_quotients(
    exact: &[f64],
    coarse: &[f64],
    fine: &[f64],
    floor: &[f64],
    label: &str,
) -> (f64, f64) {
    let n = (exact.len() as f64).sqrt() as usize;
    let (mut worst, mut worst_own) = (0.0f64, 0.0f64);
    for c in 0..n {
        let column = &fine[c * n..(c + 1) * n];
        let scale = column.iter().fold(1.0f64, |m, x| m.max(x.abs()));
        for r in 0..n {
            let e = c * n + r;
            let error = (exact[e] - fine[e]).abs() / scale;
            let own = (coarse[e] - fine[e]).abs() / scale;
            assert!(
                error < 1e-6 + 2.0 * own + floor[c] / scale,
                "{label}: entry ({r}, {c}): exact {:e}, quotients {:e} and {:e}",
                exact[e],
                fine[e],
                coarse[e]
            );
            worst = worst.max(error);
            worst_own = worst_own.max(own);
        }
    }
    (worst, worst_own)
}

/// Checks `exact` (column-major J at y, ẏ with c_j, where the residual `f` was evaluated with
/// the pairs of `ws`) against fourth-order central differences with increments `h(j)` and
/// `h(j)/4` ([`compare_with_quotients`], with [`round_off_floor`]). Returns the largest error
/// and own error, relative.
#[allow(clippy::too_many_arguments)]
pub fn check_against_quotients(
    mechanism: &Mechanism,
    inputs: &FlangeInputs,
    ws: &Workspace,
    (y, yp, f): (&[f64], &[f64], &[f64]),
    cj: f64,
    exact: &[f64],
    h: impl Fn(usize) -> f64,
    label: &str,
) -> (f64, f64) {
    let mut probe = Workspace::new(mechanism);
    probe.pairs = ws.pairs.clone();
    let mut quotients = |k: f64| {
        central_differences(
            &mut |y, yp, f| residual(mechanism, inputs, &mut probe, y, yp, f),
            y,
            yp,
            cj,
            |j| k * h(j),
        )
    };
    // Two increments: the quotients' own error (truncation at depths of nm) is estimated by
    // their difference.
    let (coarse, fine) = (quotients(1.0), quotients(0.25));
    let floor = round_off_floor(f, |j| 0.25 * h(j));
    compare_with_quotients(exact, &coarse, &fine, &floor, label)
}
