//! Consistent start derivatives by construction: the residual is linear in ẏ, with the identity
//! in front of q̇ and the mass matrix in front of v̇, so ẏ follows from n_v + 1 evaluations and
//! one linear solve. Done once at the start and after every event, never inside a step.

use super::mechanism::Mechanism;
use super::residual::{residual, FlangeInputs, Workspace};
use nalgebra::{DMatrix, DVector};

/// Why start derivatives could not be found.
#[derive(Debug, Clone, PartialEq)]
pub struct SingularMassMatrix;

impl std::fmt::Display for SingularMassMatrix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the mass matrix is singular at the start: some joint moves a body without mass or \
             inertia about its axis"
        )
    }
}

/// ẏ such that f(t, y, ẏ) = 0.
pub fn consistent_derivatives(
    mechanism: &Mechanism,
    inputs: &FlangeInputs,
    ws: &mut Workspace,
    y: &[f64],
) -> Result<Vec<f64>, SingularMassMatrix> {
    let n = mechanism.len();
    let (n_q, n_v) = (mechanism.layout.n_q, mechanism.layout.n_v);
    let mut yp = vec![0.0; n];
    let mut base = vec![0.0; n];
    residual(mechanism, inputs, ws, y, &yp, &mut base);
    for i in 0..n_q {
        yp[i] = -base[i];
    }
    let mut mass_matrix = DMatrix::zeros(n_v, n_v);
    let mut column = vec![0.0; n];
    for j in 0..n_v {
        yp[n_q + j] = 1.0;
        residual(mechanism, inputs, ws, y, &yp, &mut column);
        yp[n_q + j] = 0.0;
        for i in 0..n_v {
            mass_matrix[(i, j)] = column[n_q + i] - base[n_q + i];
        }
    }
    let rhs = DVector::from_iterator(n_v, base[n_q..].iter().map(|b| -b));
    let solution = mass_matrix.lu().solve(&rhs).ok_or(SingularMassMatrix)?;
    if solution.iter().any(|x| !x.is_finite()) {
        return Err(SingularMassMatrix);
    }
    yp[n_q..].copy_from_slice(solution.as_slice());
    Ok(yp)
}
