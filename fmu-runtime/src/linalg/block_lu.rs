//! A square matrix of dense blocks on a sparse pattern, and its LU factorization by block
//! Gaussian elimination in minimum-degree order.
//!
//! The iteration matrix of a scene of many bodies is such a matrix: the unknowns fall into
//! *groups* (a body hanging from the world with everything below it), a group's equations
//! depend on its own unknowns and on those of the groups it touches or is tied to, and no
//! others. A dense LU costs O(n³) and n² memory for n unknowns; eliminating group by group,
//! a group with the fewest coupled groups first, costs O(n·b²) for groups of size b with few
//! neighbours, and memory in proportion to the blocks.
//!
//! Pivoting is partial within each diagonal block (nalgebra's LU) and none across blocks. The
//! iteration matrix J = ∂F/∂y + c_j·∂F/∂ẏ of an implicit integrator is dominated by its
//! diagonal blocks (c_j times each group's mass matrix and identity), which is what block
//! elimination without cross-block pivoting needs; a diagonal block that is singular all the
//! same is reported ([`Singular`]) and the integrator retries with a smaller step.

use nalgebra::{DMatrix, DVector, DVectorView, DVectorViewMut, Dyn, LU};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap};

/// A diagonal block that could not be inverted during the elimination.
#[derive(Debug, Clone, PartialEq)]
pub struct Singular {
    /// The group whose block is singular (index into the matrix's groups).
    pub group: usize,
}

impl std::fmt::Display for Singular {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the block of unknowns group {} of the iteration matrix is singular",
            self.group
        )
    }
}

/// A square matrix whose unknowns are partitioned into groups, stored as dense blocks
/// (row group, column group) on a symmetric pattern.
#[derive(Debug, Clone, Default)]
pub struct BlockMatrix {
    /// The global indices of each group's unknowns (rows and columns alike).
    groups: Vec<Vec<usize>>,
    /// Per global index: its group and its place in the group.
    place: Vec<(usize, usize)>,
    /// Per column group: the blocks of that column, by row group (the diagonal one included).
    columns: Vec<BTreeMap<usize, DMatrix<f64>>>,
}

impl BlockMatrix {
    /// An all-zero matrix over `groups` (the unknowns of each group; together every index
    /// 0..n exactly once) with the diagonal blocks and one block each way between the groups
    /// of every pair in `links`. `None` when the groups are not a partition of 0..n.
    pub fn new(groups: Vec<Vec<usize>>, links: &[(usize, usize)]) -> Option<BlockMatrix> {
        let n: usize = groups.iter().map(Vec::len).sum();
        let mut place = vec![(usize::MAX, 0); n];
        for (g, members) in groups.iter().enumerate() {
            for (local, &i) in members.iter().enumerate() {
                let slot = place.get_mut(i)?;
                if slot.0 != usize::MAX {
                    return None;
                }
                *slot = (g, local);
            }
        }
        let size = |g: usize| groups[g].len();
        let mut columns: Vec<BTreeMap<usize, DMatrix<f64>>> = (0..groups.len())
            .map(|g| BTreeMap::from([(g, DMatrix::zeros(size(g), size(g)))]))
            .collect();
        for &(a, b) in links {
            if a >= groups.len() || b >= groups.len() {
                return None;
            }
            if a != b {
                columns[b].insert(a, DMatrix::zeros(size(a), size(b)));
                columns[a].insert(b, DMatrix::zeros(size(b), size(a)));
            }
        }
        Some(BlockMatrix {
            groups,
            place,
            columns,
        })
    }

    /// Whether [`BlockMatrix::new`] with these arguments would give this matrix's pattern: the
    /// same groups, the diagonal blocks and one block each way for every pair in `links`, and
    /// no other. A matrix formed again on the same pattern (the same pairs in contact) then
    /// needs no new blocks.
    pub fn has_pattern(&self, groups: &[Vec<usize>], links: &[(usize, usize)]) -> bool {
        if self.groups != groups {
            return false;
        }
        let coupled: BTreeSet<(usize, usize)> = links
            .iter()
            .filter(|(a, b)| a != b)
            .map(|&(a, b)| (a.min(b), a.max(b)))
            .collect();
        let stored: usize = self.columns.iter().map(BTreeMap::len).sum();
        stored == groups.len() + 2 * coupled.len()
            && coupled.iter().all(|&(a, b)| {
                self.columns.get(b).is_some_and(|c| c.contains_key(&a))
                    && self.columns.get(a).is_some_and(|c| c.contains_key(&b))
            })
    }

    /// The number of rows (= columns).
    pub fn size(&self) -> usize {
        self.place.len()
    }

    /// The number of stored entries (every entry of every block).
    pub fn stored_entries(&self) -> usize {
        self.columns
            .iter()
            .flat_map(|column| column.values())
            .map(|block| block.len())
            .sum()
    }

    /// Sets every stored entry to zero: each block's storage as one slice (IDA zeroes the
    /// matrix before every Jacobian; nalgebra's entry-by-entry `fill` took 13 instructions per
    /// entry, 3 % of a thousand poured balls' run).
    pub fn fill_zero(&mut self) {
        for block in self.columns.iter_mut().flat_map(|c| c.values_mut()) {
            block.as_mut_slice().fill(0.0);
        }
    }

    /// Entry `(row, col)`: 0 outside the pattern, `None` out of range.
    pub fn get(&self, row: usize, col: usize) -> Option<f64> {
        let (&(rg, rl), &(cg, cl)) = (self.place.get(row)?, self.place.get(col)?);
        Some(
            self.columns[cg]
                .get(&rg)
                .map_or(0.0, |block| block[(rl, cl)]),
        )
    }

    /// Writes column `col` on its pattern: the entry of each stored row `r` becomes
    /// `value(r)`. Returns `false` (and does nothing) when `col` is out of range.
    pub fn set_column(&mut self, col: usize, mut value: impl FnMut(usize) -> f64) -> bool {
        let Some(&(cg, cl)) = self.place.get(col) else {
            return false;
        };
        for (&rg, block) in &mut self.columns[cg] {
            for (rl, &r) in self.groups[rg].iter().enumerate() {
                block[(rl, cl)] = value(r);
            }
        }
        true
    }

    /// Sets entry `(row, col)`; `false` (and nothing set) when it is out of range or outside
    /// the pattern.
    pub fn set(&mut self, row: usize, col: usize, value: f64) -> bool {
        let (Some(&(rg, rl)), Some(&(cg, cl))) = (self.place.get(row), self.place.get(col)) else {
            return false;
        };
        match self.columns[cg].get_mut(&rg) {
            Some(block) => {
                block[(rl, cl)] = value;
                true
            }
            None => false,
        }
    }

    /// The stored block of row group `row` and column group `column` (its rows and columns
    /// in the order of the groups' unknowns); `None` outside the pattern.
    pub fn block_mut(&mut self, row: usize, column: usize) -> Option<&mut DMatrix<f64>> {
        self.columns.get_mut(column)?.get_mut(&row)
    }

    /// `y = A·x` (for checks).
    pub fn multiply(&self, x: &[f64]) -> Vec<f64> {
        let mut y = vec![0.0; self.size()];
        for (cg, column) in self.columns.iter().enumerate() {
            let xc = self.gather(cg, x);
            for (&rg, block) in column {
                let part = block * &xc;
                for (rl, &r) in self.groups[rg].iter().enumerate() {
                    y[r] += part[rl];
                }
            }
        }
        y
    }

    fn gather(&self, group: usize, x: &[f64]) -> DVector<f64> {
        DVector::from_iterator(
            self.groups[group].len(),
            self.groups[group].iter().map(|&i| x[i]),
        )
    }

    /// The LU factorization, groups eliminated in minimum-degree order.
    pub fn factor(&self) -> Result<BlockLu, Singular> {
        BlockLu::new(self)
    }
}

/// The factors of a [`BlockMatrix`]: for each group k in elimination order, the LU of its
/// diagonal block D_k (after the updates of the groups eliminated before it), the blocks A_ik
/// of the groups i eliminated after it, and X_kj = D_k⁻¹·A_kj.
#[derive(Debug, Clone)]
pub struct BlockLu {
    groups: Vec<Vec<usize>>,
    /// Where each group's unknowns start in the solve's work vector (groups one after another),
    /// and last the number of unknowns: group g's are `starts[g]..starts[g + 1]`.
    starts: Vec<usize>,
    order: Vec<usize>,
    diagonal: Vec<Option<LU<f64, Dyn, Dyn>>>,
    lower: Vec<Vec<(usize, DMatrix<f64>)>>,
    upper: Vec<Vec<(usize, DMatrix<f64>)>>,
}

impl BlockLu {
    fn new(matrix: &BlockMatrix) -> Result<BlockLu, Singular> {
        let count = matrix.groups.len();
        // The not yet eliminated part, by column group then row group.
        let mut work: Vec<BTreeMap<usize, DMatrix<f64>>> = matrix.columns.clone();
        let mut eliminated = vec![false; count];
        let degree = |column: &BTreeMap<usize, DMatrix<f64>>| column.len().saturating_sub(1);
        let mut queue: BinaryHeap<Reverse<(usize, usize)>> =
            (0..count).map(|g| Reverse((degree(&work[g]), g))).collect();
        let starts = std::iter::once(0)
            .chain(matrix.groups.iter().scan(0, |end, group| {
                *end += group.len();
                Some(*end)
            }))
            .collect();
        let mut lu = BlockLu {
            groups: matrix.groups.clone(),
            starts,
            order: Vec::with_capacity(count),
            diagonal: vec![None; count],
            lower: vec![Vec::new(); count],
            upper: vec![Vec::new(); count],
        };
        while let Some(Reverse((d, k))) = queue.pop() {
            // Entries go stale when a neighbour's elimination changes the degree.
            if eliminated[k] || d != degree(&work[k]) {
                continue;
            }
            eliminated[k] = true;
            lu.order.push(k);
            let mut column = std::mem::take(&mut work[k]);
            let diagonal = column.remove(&k).ok_or(Singular { group: k })?;
            let factors = LU::new(diagonal);
            if !factors.is_invertible() {
                return Err(Singular { group: k });
            }
            // Row k of the remaining matrix: A_kj sits in column j at row k.
            let mut upper = Vec::with_capacity(column.len());
            for &j in column.keys() {
                // X_kj overwrites A_kj, which the remaining matrix no longer holds.
                let mut x_kj = work[j].remove(&k).ok_or(Singular { group: k })?;
                if !factors.solve_mut(&mut x_kj) || x_kj.iter().any(|x| !x.is_finite()) {
                    return Err(Singular { group: k });
                }
                upper.push((j, x_kj));
            }
            // The Schur complement: A_ij −= A_ik·X_kj for the remaining neighbours i, j, in
            // place where A_ij is stored (no product allocated), a new block (fill-in) where not.
            for (&i, a_ik) in &column {
                for (j, x_kj) in &upper {
                    match work[*j].get_mut(&i) {
                        Some(block) => block.gemm(-1.0, a_ik, x_kj, 1.0),
                        None => {
                            work[*j].insert(i, -(a_ik * x_kj));
                        }
                    }
                }
            }
            for &j in column.keys() {
                queue.push(Reverse((degree(&work[j]), j)));
            }
            lu.diagonal[k] = Some(factors);
            lu.lower[k] = column.into_iter().collect();
            lu.upper[k] = upper;
        }
        Ok(lu)
    }

    /// Solves A·x = b in place (`b` becomes x). Returns `false` (b unspecified) when `b` has
    /// the wrong length or a diagonal solve fails. Two allocations per solve (the work vector,
    /// the groups one after another, and one block's product), none per block: IDA solves once
    /// per Newton iteration.
    pub fn solve_in_place(&self, b: &mut [f64]) -> bool {
        let n = self.starts.last().copied().unwrap_or(0);
        if b.len() != n {
            return false;
        }
        let range = |g: usize| self.starts[g]..self.starts[g + 1];
        let mut z = vec![0.0; n];
        for (g, members) in self.groups.iter().enumerate() {
            for (slot, &i) in z[range(g)].iter_mut().zip(members) {
                *slot = b[i];
            }
        }
        let widest = self.groups.iter().map(Vec::len).max().unwrap_or(0);
        let mut product = DVector::zeros(widest);
        // z_into −= block · z_from, for two different groups.
        let mut subtract = |z: &mut [f64], into: usize, block: &DMatrix<f64>, from: usize| {
            let mut update = product.rows_mut(0, block.nrows());
            update.gemv(
                1.0,
                block,
                &DVectorView::from_slice(&z[range(from)], block.ncols()),
                0.0,
            );
            for (value, change) in z[range(into)].iter_mut().zip(update.iter()) {
                *value -= change;
            }
        };
        for &k in &self.order {
            let Some(factors) = &self.diagonal[k] else {
                return false;
            };
            let width = self.groups[k].len();
            if !factors.solve_mut(&mut DVectorViewMut::from_slice(&mut z[range(k)], width)) {
                return false;
            }
            for (i, a_ik) in &self.lower[k] {
                subtract(&mut z, *i, a_ik, k);
            }
        }
        for &k in self.order.iter().rev() {
            for (j, x_kj) in &self.upper[k] {
                subtract(&mut z, k, x_kj, *j);
            }
        }
        for (g, members) in self.groups.iter().enumerate() {
            for (&i, &x) in members.iter().zip(&z[range(g)]) {
                b[i] = x;
            }
        }
        true
    }

    /// The number of entries stored in the factors (diagonal LUs and off-diagonal blocks).
    pub fn stored_entries(&self) -> usize {
        let diagonal: usize = self.groups.iter().map(|g| g.len() * g.len()).sum();
        let off: usize = self
            .lower
            .iter()
            .chain(&self.upper)
            .flatten()
            .map(|(_, block)| block.len())
            .sum();
        diagonal + off
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Groups of random sizes up to `widest` over a shuffled 0..n, random links, random entries
    /// with a dominant diagonal (as an iteration matrix has). Widest groups of 1 to 13 unknowns
    /// (a free body has 13): nalgebra multiplies blocks wider than 5 with another kernel.
    fn arb_matrix() -> impl Strategy<Value = (BlockMatrix, DMatrix<f64>)> {
        (1usize..9, any::<u64>(), 1usize..=13).prop_map(|(count, seed, widest)| {
            let mut state = seed | 1;
            let mut next = move || {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 11) as f64 / (1u64 << 53) as f64
            };
            let sizes: Vec<usize> = (0..count)
                .map(|_| 1 + (next() * widest as f64) as usize)
                .collect();
            let n: usize = sizes.iter().sum();
            let mut indices: Vec<usize> = (0..n).collect();
            for i in (1..n).rev() {
                indices.swap(i, (next() * (i + 1) as f64) as usize % (i + 1));
            }
            let mut groups = Vec::new();
            let mut start = 0;
            for s in &sizes {
                groups.push(indices[start..start + s].to_vec());
                start += s;
            }
            let links: Vec<(usize, usize)> = (0..count)
                .flat_map(|a| (0..count).map(move |b| (a, b)))
                .filter(|(a, b)| a < b)
                .filter(|_| next() < 0.4)
                .collect();
            let mut matrix = BlockMatrix::new(groups, &links).unwrap();
            for col in 0..n {
                matrix.set_column(col, |row| {
                    let v = next() * 2.0 - 1.0;
                    if row == col {
                        v + 3.0 * n as f64
                    } else {
                        v
                    }
                });
            }
            let dense = DMatrix::from_fn(n, n, |r, c| matrix.get(r, c).unwrap());
            (matrix, dense)
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

        /// The block LU solves what a dense LU of the same matrix solves.
        #[test]
        fn block_lu_solves_like_a_dense_lu((matrix, dense) in arb_matrix()) {
            let n = matrix.size();
            let b: Vec<f64> = (0..n).map(|i| (i as f64 * 0.7).sin() + 0.1).collect();
            let mut x = b.clone();
            let lu = matrix.factor().unwrap();
            prop_assert!(lu.solve_in_place(&mut x));
            let expected = dense.clone().lu().solve(&DVector::from_column_slice(&b)).unwrap();
            let error = x.iter().zip(expected.iter()).map(|(a, e)| (a - e).abs()).fold(0.0, f64::max);
            prop_assert!(error < 1e-15, "largest difference {error:e}");
            // And A·x gives b back through the block product.
            let back = matrix.multiply(&x);
            let residual = back.iter().zip(&b).map(|(a, e)| (a - e).abs()).fold(0.0, f64::max);
            prop_assert!(residual < 1e-14, "residual {residual:e}");
        }
    }

    /// A chain of groups 0–1–2–…: eliminated from its ends inward, no fill beyond the chain,
    /// so the factors hold as many entries as the matrix.
    #[test]
    fn a_chain_is_factored_without_fill() {
        let count = 50;
        let groups: Vec<Vec<usize>> = (0..count).map(|g| vec![2 * g, 2 * g + 1]).collect();
        let links: Vec<(usize, usize)> = (1..count).map(|g| (g - 1, g)).collect();
        let mut matrix = BlockMatrix::new(groups, &links).unwrap();
        for col in 0..2 * count {
            matrix.set_column(col, |row| if row == col { 4.0 } else { -1.0 });
        }
        let lu = matrix.factor().unwrap();
        assert_eq!(lu.stored_entries(), matrix.stored_entries());
        let mut x = vec![1.0; 2 * count];
        assert!(lu.solve_in_place(&mut x));
        let back = matrix.multiply(&x);
        let residual = back.iter().map(|v| (v - 1.0).abs()).fold(0.0, f64::max);
        assert!(residual < 1e-14, "residual {residual:e}");
    }

    #[test]
    fn a_singular_diagonal_block_is_reported() {
        let mut matrix = BlockMatrix::new(vec![vec![0], vec![1, 2]], &[]).unwrap();
        matrix.set_column(0, |_| 1.0);
        matrix.set_column(1, |_| 1.0);
        matrix.set_column(2, |_| 1.0);
        assert_eq!(matrix.factor().unwrap_err(), Singular { group: 1 });
    }

    #[test]
    fn groups_must_partition_the_unknowns() {
        assert!(BlockMatrix::new(vec![vec![0, 1], vec![1]], &[]).is_none());
        assert!(BlockMatrix::new(vec![vec![0, 2]], &[]).is_none());
        assert!(BlockMatrix::new(vec![vec![0], vec![1]], &[(0, 2)]).is_none());
    }

    /// IDA's zeroing before each Jacobian clears every stored entry and keeps the pattern.
    #[test]
    fn zeroing_clears_every_block_and_keeps_the_pattern() {
        let groups = vec![vec![0, 3], vec![1], vec![2, 4]];
        let mut matrix = BlockMatrix::new(groups.clone(), &[(0, 2)]).unwrap();
        for col in 0..5 {
            matrix.set_column(col, |row| 1.0 + row as f64 + 10.0 * col as f64);
        }
        assert_eq!(matrix.get(4, 3), Some(35.0));
        matrix.fill_zero();
        for row in 0..5 {
            for col in 0..5 {
                assert_eq!(matrix.get(row, col), Some(0.0), "entry ({row}, {col})");
            }
        }
        assert_eq!(matrix.stored_entries(), 4 + 1 + 4 + 2 * 4);
        assert!(matrix.has_pattern(&groups, &[(2, 0)]));
    }

    /// The pattern check that lets the free bodies' Jacobian keep its matrix: the same links in
    /// either direction or repeated match, one link more or less, or other groups, do not.
    #[test]
    fn a_pattern_matches_the_links_it_was_made_with_and_no_others() {
        let groups = vec![vec![0, 1], vec![2], vec![3, 4], vec![5]];
        let matrix = BlockMatrix::new(groups.clone(), &[(0, 2), (3, 1)]).unwrap();
        assert!(matrix.has_pattern(&groups, &[(0, 2), (3, 1)]));
        assert!(matrix.has_pattern(&groups, &[(2, 0), (1, 3), (0, 2), (2, 2)]));
        assert!(!matrix.has_pattern(&groups, &[(0, 2)]));
        assert!(!matrix.has_pattern(&groups, &[(0, 2), (3, 1), (1, 2)]));
        assert!(!matrix.has_pattern(&groups, &[(0, 2), (3, 0)]));
        assert!(!matrix.has_pattern(&groups[..3], &[(0, 2)]));
        let unlinked = BlockMatrix::new(groups.clone(), &[]).unwrap();
        assert!(unlinked.has_pattern(&groups, &[]));
        assert!(!unlinked.has_pattern(&groups, &[(0, 1)]));
    }
}
