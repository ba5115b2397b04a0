//! A consistent start.
//!
//! **Derivatives** by construction: the residual is linear in ẏ, with the identity in front of q̇
//! and the mass matrix in front of v̇, so ẏ follows from n_v + 1 evaluations and one linear
//! solve. With kinematic loops the unknowns are v̇ and λ̇_int, and the equations are f2 = 0 and
//! the constraints on acceleration level, g̈ = 0 (μ̇_int = 0 and q̇ = v on the constraint
//! manifold). Done once at the start and after every event, never inside a step.
//!
//! **Positions and velocities of loops** ([`assemble`]): the start values the user fixed stay;
//! the others are only guesses. Newton's method with a least-squares step of minimum norm
//! (singular value decomposition; singular values below [`SINGULAR_TOLERANCE`] times the largest
//! are treated as zero) moves the free coordinates until g(q) = 0; then the free speeds get the
//! smallest change that makes G v + g⁽¹⁾ = 0. At the assembled position the rows of G are
//! ranked by a Gram–Schmidt orthogonalisation with pivoting (column-pivoted QR of Gᵀ); a row
//! whose part independent of the rows kept before it is below [`RANK_TOLERANCE`] times its own
//! norm is dependent and left out of the DAE (the rows along the axis of a planar loop).

use super::jacobian::Branches;
use super::loops::{ConstraintRow, RowValue};
use super::mechanism::Mechanism;
use super::residual::{residual, FlangeInputs, Workspace};
use crate::assembly::{JointStart, TreeJointKind};
use crate::linalg::BlockMatrix;
use crate::model::Location;
use nalgebra::{DMatrix, DVector};

/// Relative size below which a constraint row counts as dependent on the rows kept.
pub const RANK_TOLERANCE: f64 = 1e-8;
/// Relative size below which a singular value of G counts as zero in a least-squares step.
pub const SINGULAR_TOLERANCE: f64 = 1e-10;
/// Largest closure residual (m for positions, sine of an angle for orientations) accepted at
/// the start.
pub const ASSEMBLY_TOLERANCE: f64 = 1e-10;
const NEWTON_ITERATIONS: usize = 50;

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

/// Why the loops of a mechanism could not be closed at the start.
#[derive(Debug, Clone, PartialEq)]
pub struct AssemblyError {
    /// The cut-joint whose closure equations are violated most, and where it is declared.
    pub joint: String,
    pub location: Location,
    /// The largest remaining closure residual.
    pub residual: f64,
    pub message: String,
}

impl std::fmt::Display for AssemblyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: error: {}", self.location, self.message)
    }
}

impl std::error::Error for AssemblyError {}

/// ẏ such that f(t, y, ẏ) = 0 (and, with loops, g̈ = 0).
pub fn consistent_derivatives(
    mechanism: &Mechanism,
    inputs: &FlangeInputs,
    ws: &mut Workspace,
    y: &[f64],
) -> Result<Vec<f64>, SingularMassMatrix> {
    stabilised_derivatives(mechanism, inputs, ws, y, 0.0)
}

/// The residual at v̇ = 0 (`base`: f2's constant part c in the speed rows) and ẏ with q̇ from
/// it (f1 has the identity in front of q̇) and zeros elsewhere.
fn at_rest(
    mechanism: &Mechanism,
    inputs: &FlangeInputs,
    ws: &mut Workspace,
    y: &[f64],
) -> (Vec<f64>, Vec<f64>) {
    let n = mechanism.len();
    let mut yp = vec![0.0; n];
    let mut base = vec![0.0; n];
    residual(mechanism, inputs, ws, y, &yp, &mut base);
    for i in 0..mechanism.layout.n_q {
        yp[i] = -base[i];
    }
    (yp, base)
}

/// The explicit form's ẏ for Model Exchange: [`stabilised_derivatives`], computed for a tree of
/// rigid bodies in O(n) by the articulated-body algorithm ([`super::articulated`]): one
/// evaluation at v̇ = 0 gives f2's constant part c, the algorithm M⁻¹·(−c), a last evaluation
/// fills the workspace for that ẏ.
pub fn explicit_derivatives(
    mechanism: &Mechanism,
    inputs: &FlangeInputs,
    ws: &mut Workspace,
    y: &[f64],
    rate: f64,
) -> Result<Vec<f64>, SingularMassMatrix> {
    if !super::articulated::applies(mechanism) {
        return stabilised_derivatives(mechanism, inputs, ws, y, rate);
    }
    let (n_q, n_v) = (mechanism.layout.n_q, mechanism.layout.n_v);
    let (mut yp, mut base) = at_rest(mechanism, inputs, ws, y);
    let forces: Vec<f64> = base[n_q..n_q + n_v].iter().map(|c| -c).collect();
    let accelerations =
        super::articulated::solve(mechanism, ws, &forces).ok_or(SingularMassMatrix)?;
    yp[n_q..n_q + n_v].copy_from_slice(&accelerations);
    residual(mechanism, inputs, ws, y, &yp, &mut base);
    Ok(yp)
}

/// ẏ such that f(t, y, ẏ) = 0 and, with loops, g̈ + 2a·ġ + a²·g = 0 (Baumgarte's
/// stabilisation with the critically damped rate `a` [1/s]: a drift of the closure, which no
/// integrator of the explicit form avoids, decays like e^(−a·t) instead of growing). `a = 0`
/// is [`consistent_derivatives`].
pub fn stabilised_derivatives(
    mechanism: &Mechanism,
    inputs: &FlangeInputs,
    ws: &mut Workspace,
    y: &[f64],
    rate: f64,
) -> Result<Vec<f64>, SingularMassMatrix> {
    let n = mechanism.len();
    let (n_q, n_v) = (mechanism.layout.n_q, mechanism.layout.n_v);
    let m = mechanism.rows.len();
    let (mut yp, base) = at_rest(mechanism, inputs, ws, y);
    let base_gdd: Vec<f64> = ws.rows.iter().map(|r| r.gdd).collect();
    let feedback: Vec<f64> = ws
        .rows
        .iter()
        .map(|r| 2.0 * rate * r.gd + rate * rate * r.g)
        .collect();
    // Unknowns z = [v̇; λ̇_int]; equations [f2; g̈], both linear in z.
    let size = n_v + m;
    if let Some(groups) = velocity_groups(mechanism) {
        let solved = block_diagonal_accelerations(mechanism, inputs, ws, y, &mut yp, &base, groups);
        ws.contact_loads_frozen = false;
        solved?;
        let mut scratch = vec![0.0; n];
        residual(mechanism, inputs, ws, y, &yp, &mut scratch);
        return Ok(yp);
    }
    // v̇ and λ̇_int are adjacent in ẏ.
    let unknown = |j: usize| n_q + j;
    let mut matrix = DMatrix::zeros(size, size);
    let mut column = vec![0.0; n];
    // The columns differ from the base in ẏ only: the contact loads of the base evaluation
    // stay (evaluating every pair per column made the start quadratic in the bodies).
    ws.contact_loads_frozen = true;
    for j in 0..size {
        yp[unknown(j)] = 1.0;
        residual(mechanism, inputs, ws, y, &yp, &mut column);
        yp[unknown(j)] = 0.0;
        for i in 0..n_v {
            matrix[(i, j)] = column[n_q + i] - base[n_q + i];
        }
        for i in 0..m {
            matrix[(n_v + i, j)] = ws.rows[i].gdd - base_gdd[i];
        }
    }
    ws.contact_loads_frozen = false;
    let rhs = DVector::from_iterator(
        size,
        base[n_q..n_q + n_v]
            .iter()
            .copied()
            .chain(
                base_gdd
                    .iter()
                    .zip(&feedback)
                    .map(|(b, f)| if rate == 0.0 { *b } else { b + f }),
            )
            .map(|b| -b),
    );
    // Without unknowns (every joint prescribed) there is nothing to solve.
    let solution = if size == 0 {
        DVector::zeros(0)
    } else {
        matrix.lu().solve(&rhs).ok_or(SingularMassMatrix)?
    };
    if solution.iter().any(|x| !x.is_finite()) {
        return Err(SingularMassMatrix);
    }
    yp[n_q..n_q + size].copy_from_slice(solution.as_slice());
    // Evaluate once more so that the workspace holds this instant.
    residual(mechanism, inputs, ws, y, &yp, &mut column);
    Ok(yp)
}

/// The velocity unknowns (0..n_v) of each branch ([`Branches`]) when the mechanism has no
/// loops: then the mass matrix is block-diagonal, one block per branch (a branch's equations
/// depend on its own accelerations only; contact and force-element loads on positions and
/// velocities). `None` for loops, or when the branches do not cover every velocity.
fn velocity_groups(mechanism: &Mechanism) -> Option<Vec<Vec<usize>>> {
    if !mechanism.rows.is_empty() {
        return None;
    }
    let branches = Branches::new(mechanism)?;
    let (n_q, n_v) = (mechanism.layout.n_q, mechanism.layout.n_v);
    let groups: Vec<Vec<usize>> = branches
        .states()
        .iter()
        .map(|states| {
            states
                .iter()
                .filter(|&&s| (n_q..n_q + n_v).contains(&s))
                .map(|&s| s - n_q)
                .collect::<Vec<usize>>()
        })
        .filter(|group| !group.is_empty())
        .collect();
    let covered: usize = groups.iter().map(Vec::len).sum();
    (covered == n_v).then_some(groups)
}

/// v̇ from M·v̇ = −f2(v̇ = 0) with a block-diagonal M: the k-th unknown of every branch is
/// perturbed in one evaluation (the branches do not share equations), and each block is
/// solved alone, so the start costs O(bodies) instead of O(bodies³). Leaves the contact loads
/// frozen.
fn block_diagonal_accelerations(
    mechanism: &Mechanism,
    inputs: &FlangeInputs,
    ws: &mut Workspace,
    y: &[f64],
    yp: &mut [f64],
    base: &[f64],
    groups: Vec<Vec<usize>>,
) -> Result<(), SingularMassMatrix> {
    let (n_q, n_v) = (mechanism.layout.n_q, mechanism.layout.n_v);
    let mut matrix = BlockMatrix::new(groups.clone(), &[]).ok_or(SingularMassMatrix)?;
    let width = groups.iter().map(Vec::len).max().unwrap_or(0);
    let mut column = vec![0.0; y.len()];
    ws.contact_loads_frozen = true;
    for local in 0..width {
        let perturbed: Vec<usize> = groups
            .iter()
            .filter_map(|g| g.get(local).copied())
            .collect();
        for &j in &perturbed {
            yp[n_q + j] = 1.0;
        }
        residual(mechanism, inputs, ws, y, yp, &mut column);
        for &j in &perturbed {
            yp[n_q + j] = 0.0;
            matrix.set_column(j, |i| column[n_q + i] - base[n_q + i]);
        }
    }
    let factors = matrix.factor().map_err(|_| SingularMassMatrix)?;
    let mut solution: Vec<f64> = base[n_q..n_q + n_v].iter().map(|b| -b).collect();
    if !factors.solve_in_place(&mut solution) || solution.iter().any(|x| !x.is_finite()) {
        return Err(SingularMassMatrix);
    }
    yp[n_q..n_q + n_v].copy_from_slice(&solution);
    Ok(())
}

/// The constraint rows at (y, ẏ = 0) with the inputs given.
fn rows_at(
    mechanism: &Mechanism,
    inputs: &FlangeInputs,
    ws: &mut Workspace,
    y: &[f64],
    scratch: &mut [f64],
) -> Vec<RowValue> {
    let yp = vec![0.0; y.len()];
    residual(mechanism, inputs, ws, y, &yp, scratch);
    ws.rows.clone()
}

/// G = ∂ġ/∂v (all candidate rows × n_v) at the positions in `y`.
fn velocity_jacobian(
    mechanism: &Mechanism,
    inputs: &FlangeInputs,
    ws: &mut Workspace,
    y: &[f64],
    scratch: &mut [f64],
) -> DMatrix<f64> {
    let (n_q, n_v) = (mechanism.layout.n_q, mechanism.layout.n_v);
    let mut still = inputs.clone();
    for motion in &mut still.motion {
        motion.qd = 0.0;
        motion.qdd = 0.0;
    }
    let mut unit = y.to_vec();
    unit[n_q..n_q + n_v].fill(0.0);
    let mut g = DMatrix::zeros(mechanism.rows.len(), n_v);
    for j in 0..n_v {
        unit[n_q + j] = 1.0;
        for (i, row) in rows_at(mechanism, &still, ws, &unit, scratch)
            .iter()
            .enumerate()
        {
            g[(i, j)] = row.gd;
        }
        unit[n_q + j] = 0.0;
    }
    g
}

/// Minimum-norm least-squares solution of `a x = b`.
fn least_squares(a: &DMatrix<f64>, b: &DVector<f64>) -> DVector<f64> {
    if a.ncols() == 0 || a.nrows() == 0 {
        return DVector::zeros(a.ncols());
    }
    let svd = a.clone().svd(true, true);
    let largest = svd.singular_values.max();
    let eps = (SINGULAR_TOLERANCE * largest).max(f64::MIN_POSITIVE);
    svd.solve(b, eps)
        .map(|m| m.column(0).into_owned())
        .unwrap_or_else(|_| DVector::zeros(a.ncols()))
}

fn max_abs(values: &[RowValue]) -> (f64, usize) {
    values
        .iter()
        .enumerate()
        .map(|(i, r)| (r.g.abs(), i))
        .fold((0.0, 0), |a, b| if b.0 > a.0 { b } else { a })
}

/// Independent rows of `g` by Gram–Schmidt with pivoting; returns the kept row indices in
/// ascending order.
fn independent_rows(g: &DMatrix<f64>) -> Vec<usize> {
    let rows: Vec<DVector<f64>> = (0..g.nrows()).map(|i| g.row(i).transpose()).collect();
    let norms: Vec<f64> = rows.iter().map(|r| r.norm()).collect();
    let largest = norms.iter().cloned().fold(0.0, f64::max);
    let mut remaining = rows;
    let mut kept = Vec::new();
    let mut open: Vec<usize> = (0..g.nrows())
        .filter(|&i| norms[i] > 1e-12 * largest && norms[i] > 0.0)
        .collect();
    loop {
        let best = open
            .iter()
            .map(|&i| (remaining[i].norm() / norms[i], i))
            .fold(None, |best: Option<(f64, usize)>, c| match best {
                Some(b) if b.0 >= c.0 => Some(b),
                _ => Some(c),
            });
        let Some((ratio, pivot)) = best else { break };
        if ratio <= RANK_TOLERANCE {
            break;
        }
        kept.push(pivot);
        open.retain(|&i| i != pivot);
        let direction = remaining[pivot].normalize();
        for &i in &open {
            let projection = direction.dot(&remaining[i]);
            remaining[i] -= &direction * projection;
        }
    }
    kept.sort_unstable();
    kept
}

/// Closes the kinematic loops at the start: solves the free start coordinates and speeds, keeps
/// an independent subset of the constraint rows (the others go to `mechanism.dropped`) and
/// returns the start vector y0 = [q; v; 0; 0] for the reduced rows. Without loops it returns the
/// joints' start values.
pub fn assemble(
    mechanism: &mut Mechanism,
    inputs: &FlangeInputs,
) -> Result<Vec<f64>, AssemblyError> {
    let mut y = mechanism.initial_state();
    if mechanism.rows.is_empty() {
        return Ok(y);
    }
    let (n_q, n_v) = (mechanism.layout.n_q, mechanism.layout.n_v);
    // Free coordinates: (index in q, index in v) of 1-dof joints, split by what the user fixed.
    let mut free_q = Vec::new();
    let mut free_v = Vec::new();
    for body in &mechanism.bodies {
        let Some(joint) = &body.joint else { continue };
        let (Some(s), JointStart::Scalar { fixed, .. }) = (joint.states, &joint.start) else {
            continue;
        };
        if matches!(joint.motion, TreeJointKind::Free) {
            continue;
        }
        if !fixed.position {
            free_q.push((s.q, s.v - n_q));
        }
        if !fixed.speed {
            free_v.push(s.v - n_q);
        }
    }
    let mut ws = Workspace::new(mechanism);
    let mut scratch = vec![0.0; y.len()];
    let worst = close_positions(mechanism, inputs, &mut ws, &mut y, &free_q, &mut scratch);
    if worst.0 > ASSEMBLY_TOLERANCE || !worst.0.is_finite() {
        let row = &mechanism.rows[worst.1];
        let joint = mechanism.cuts[row.cut].name.clone();
        return Err(AssemblyError {
            location: mechanism.cuts[row.cut].location.clone(),
            message: format!(
                "the kinematic loop closed by joint `{joint}` cannot be assembled: its closure \
                 equation ({}) keeps a residual of {:.3e} (m, or the sine of an angle) after \
                 Newton's method; check the lengths and axes of the loop, or the start values \
                 that are fixed (`phi = ...` fixes a start value, `phi_guess = ...` only guesses \
                 it)",
                row.description, worst.0
            ),
            joint,
            residual: worst.0,
        });
    }

    // Independent rows at the assembled position.
    let g_full = velocity_jacobian(mechanism, inputs, &mut ws, &y, &mut scratch);
    let kept = independent_rows(&g_full);
    let g_kept = DMatrix::from_fn(kept.len(), n_v, |i, j| g_full[(kept[i], j)]);

    close_speeds(
        mechanism,
        inputs,
        &mut ws,
        &mut y,
        &g_kept,
        &kept,
        &free_v,
        &mut scratch,
    );

    let all: Vec<ConstraintRow> = std::mem::take(&mut mechanism.rows);
    for (i, row) in all.into_iter().enumerate() {
        if kept.binary_search(&i).is_ok() {
            mechanism.rows.push(row);
        } else {
            mechanism.dropped.push(row);
        }
    }
    y.truncate(n_q + n_v);
    y.resize(mechanism.len(), 0.0);
    // The drives start relaxed against the assembled joints.
    mechanism.start_drives(&mut y);

    // The speeds must now satisfy the kept rows.
    let mut ws = Workspace::new(mechanism);
    let mut scratch = vec![0.0; y.len()];
    let values = rows_at(mechanism, inputs, &mut ws, &y, &mut scratch);
    let speed = y[n_q..n_q + n_v]
        .iter()
        .map(|v| v.abs())
        .fold(0.0, f64::max);
    if let Some((i, r)) = values
        .iter()
        .enumerate()
        .find(|(_, r)| r.gd.abs() > 1e-8 * (1.0 + speed))
    {
        let cut = &mechanism.cuts[mechanism.rows[i].cut];
        let joint = cut.name.clone();
        return Err(AssemblyError {
            location: cut.location.clone(),
            message: format!(
                "the start speeds of the kinematic loop closed by joint `{joint}` are \
                 inconsistent: the fixed speeds leave a closure speed of {:.3e}; fix fewer speeds \
                 (`w = ...` fixes a start speed, `w_guess = ...` only guesses it)",
                r.gd
            ),
            joint,
            residual: r.gd.abs(),
        });
    }
    Ok(y)
}

/// Newton's method with minimum-norm least-squares steps and step halving on the coordinates
/// `free_q` ((index in y, index in v) pairs) until g(q) = 0; returns the largest remaining
/// |g| and its row.
fn close_positions(
    mechanism: &Mechanism,
    inputs: &FlangeInputs,
    ws: &mut Workspace,
    y: &mut Vec<f64>,
    free_q: &[(usize, usize)],
    scratch: &mut [f64],
) -> (f64, usize) {
    let mut values = rows_at(mechanism, inputs, ws, y, scratch);
    let mut worst = max_abs(&values);
    for _ in 0..NEWTON_ITERATIONS {
        if worst.0 <= 1e-3 * ASSEMBLY_TOLERANCE {
            break;
        }
        let g_full = velocity_jacobian(mechanism, inputs, ws, y, scratch);
        let g_free = DMatrix::from_fn(g_full.nrows(), free_q.len(), |i, j| {
            g_full[(i, free_q[j].1)]
        });
        let rhs = DVector::from_iterator(values.len(), values.iter().map(|r| -r.g));
        let step = least_squares(&g_free, &rhs);
        let norm = |v: &[RowValue]| v.iter().map(|r| r.g * r.g).sum::<f64>();
        let before = norm(&values);
        let mut scale = 1.0;
        let mut improved = false;
        for _ in 0..12 {
            let mut trial = y.clone();
            for (j, &(q, _)) in free_q.iter().enumerate() {
                trial[q] += scale * step[j];
            }
            let trial_values = rows_at(mechanism, inputs, ws, &trial, scratch);
            if norm(&trial_values) < before {
                *y = trial;
                values = trial_values;
                improved = true;
                break;
            }
            scale *= 0.5;
        }
        worst = max_abs(&values);
        if !improved {
            break;
        }
    }
    worst
}

/// The smallest change of the speeds `free_v` (indices in v) that makes G v + g⁽¹⁾ = 0 on the
/// rows `rows` (`g_rows`: G's rows for them).
#[allow(clippy::too_many_arguments)]
fn close_speeds(
    mechanism: &Mechanism,
    inputs: &FlangeInputs,
    ws: &mut Workspace,
    y: &mut [f64],
    g_rows: &DMatrix<f64>,
    rows: &[usize],
    free_v: &[usize],
    scratch: &mut [f64],
) {
    let n_q = mechanism.layout.n_q;
    let values = rows_at(mechanism, inputs, ws, y, scratch);
    let g_free = DMatrix::from_fn(rows.len(), free_v.len(), |i, j| g_rows[(i, free_v[j])]);
    let rhs = DVector::from_iterator(rows.len(), rows.iter().map(|&i| -values[i].gd));
    let step = least_squares(&g_free, &rhs);
    for (j, &v) in free_v.iter().enumerate() {
        y[n_q + v] += step[j];
    }
}

/// The closure of the loops at `y`: the largest |g| (m, or the sine of an angle) and |ġ|
/// (m/s, rad/s) over the rows kept. Zeros without loops.
pub fn closure_drift(
    mechanism: &Mechanism,
    inputs: &FlangeInputs,
    ws: &mut Workspace,
    y: &[f64],
) -> (f64, f64) {
    if mechanism.rows.is_empty() {
        return (0.0, 0.0);
    }
    let mut scratch = vec![0.0; y.len()];
    let values = rows_at(mechanism, inputs, ws, y, &mut scratch);
    values.iter().fold((0.0, 0.0), |(g, gd), r| {
        (f64::max(g, r.g.abs()), f64::max(gd, r.gd.abs()))
    })
}

/// Moves `y` back onto the constraint manifold of the loops (coordinate projection): the
/// smallest change of every coordinate of a one-axis joint that closes g(q) = 0 (Newton, as at
/// the start), then the smallest change of their speeds that closes G v + g⁽¹⁾ = 0. The
/// coordinates of a loop are all free here (the start values the user fixed hold at the start
/// only). Returns the closure residual left.
pub fn project_onto_loops(
    mechanism: &Mechanism,
    inputs: &FlangeInputs,
    ws: &mut Workspace,
    y: &mut Vec<f64>,
) -> f64 {
    if mechanism.rows.is_empty() {
        return 0.0;
    }
    let n_q = mechanism.layout.n_q;
    let scalar: Vec<(usize, usize)> = mechanism
        .bodies
        .iter()
        .filter_map(|body| body.joint.as_ref())
        .filter(|joint| !matches!(joint.motion, TreeJointKind::Free))
        .filter_map(|joint| joint.states)
        .map(|s| (s.q, s.v - n_q))
        .collect();
    let mut scratch = vec![0.0; y.len()];
    let (worst, _) = close_positions(mechanism, inputs, ws, y, &scalar, &mut scratch);
    let g = velocity_jacobian(mechanism, inputs, ws, y, &mut scratch);
    let rows: Vec<usize> = (0..mechanism.rows.len()).collect();
    let speeds: Vec<usize> = scalar.iter().map(|&(_, v)| v).collect();
    close_speeds(mechanism, inputs, ws, y, &g, &rows, &speeds, &mut scratch);
    worst
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Independent rows: as many as the rank, spanning the same space; a zero row is never
    /// kept. Rows of (1,0,0), (0,1,0), (0,0,1), (1,1,0) and a zero row have rank 3.
    #[test]
    fn independent_rows_span_the_rank() {
        let g = DMatrix::from_row_slice(
            5,
            3,
            &[
                1.0, 0.0, 0.0, //
                0.0, 1.0, 0.0, //
                0.0, 0.0, 1.0, //
                1.0, 1.0, 0.0, //
                0.0, 0.0, 0.0,
            ],
        );
        let kept = independent_rows(&g);
        assert_eq!(kept.len(), 3, "{kept:?}");
        assert!(!kept.contains(&4), "{kept:?}");
        let sub = DMatrix::from_fn(3, 3, |i, j| g[(kept[i], j)]);
        assert!(sub.determinant().abs() > 0.5, "{kept:?}");
        assert!(kept.windows(2).all(|w| w[0] < w[1]), "ascending: {kept:?}");
    }

    /// The minimum-norm least-squares solution, by hand: x = Aᵀ(AAᵀ)⁻¹b for a full-row-rank A,
    /// and the zero vector (of A's column count) for a system without rows or columns.
    #[test]
    fn least_squares_by_hand() {
        let a = DMatrix::from_row_slice(1, 2, &[1.0, 1.0]);
        let x = least_squares(&a, &DVector::from_vec(vec![2.0]));
        assert!((x - DVector::from_vec(vec![1.0, 1.0])).norm() < 1e-14);
        let no_rows = DMatrix::<f64>::zeros(0, 3);
        assert_eq!(
            least_squares(&no_rows, &DVector::zeros(0)),
            DVector::zeros(3)
        );
        let no_columns = DMatrix::<f64>::zeros(2, 0);
        assert_eq!(
            least_squares(&no_columns, &DVector::from_vec(vec![1.0, 2.0])).len(),
            0
        );
    }
}
