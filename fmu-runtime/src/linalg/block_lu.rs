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
use std::sync::atomic::{AtomicU64, Ordering};

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
    /// Names the pattern: a matrix made by [`BlockMatrix::new`] gets a new one, a clone keeps
    /// it (its blocks cannot change). [`BlockLu::refactor`] reuses its symbolic part by it.
    pattern: PatternId,
}

/// A number drawn once per pattern made.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PatternId(u64);

impl Default for PatternId {
    fn default() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        PatternId(NEXT.fetch_add(1, Ordering::Relaxed))
    }
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
            pattern: PatternId::default(),
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

    /// Every stored block, column group by column group, each column's by row group.
    fn blocks(&self) -> impl Iterator<Item = &DMatrix<f64>> {
        self.columns.iter().flat_map(BTreeMap::values)
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

    /// The LU factorization, groups eliminated in minimum-degree order ([`BlockLu::refactor`]
    /// to factor again in the same storage).
    pub fn factor(&self) -> Result<BlockLu, Singular> {
        BlockLu::new(self)
    }
}

/// The factors of a [`BlockMatrix`]: for each group k in elimination order, the LU of its
/// diagonal block D_k (after the updates of the groups eliminated before it), the blocks A_ik
/// of the groups i eliminated after it, and X_kj = D_k⁻¹·A_kj.
///
/// Factoring has two parts. The *symbolic* one follows the matrix's pattern alone: the order
/// of elimination, where fill-in appears, and one stored block (a *slot*) for every block of
/// the filled pattern. The *numeric* one copies the matrix's entries into the slots and
/// eliminates. [`BlockLu::refactor`] repeats only the numeric part while the matrix keeps its
/// pattern (an integrator forms its iteration matrix again and again with the same bodies in
/// contact): no allocation but the diagonal blocks' LUs, the same operations in the same order.
#[derive(Debug, Clone, Default)]
pub struct BlockLu {
    /// The pattern the symbolic part was made for (`None`: none yet).
    pattern: Option<PatternId>,
    /// Whether the numeric part holds the factors of the matrix last given.
    factored: bool,
    groups: Vec<Vec<usize>>,
    /// Where each group's unknowns start in the solve's work vector (groups one after another),
    /// and last the number of unknowns: group g's are `starts[g]..starts[g + 1]`.
    starts: Vec<usize>,
    /// The elimination, one step per group in order.
    steps: Vec<Elimination>,
    /// The blocks of the filled pattern.
    slots: Vec<DMatrix<f64>>,
    /// The slot of each stored block of the matrix, in the order of [`BlockMatrix::blocks`].
    sources: Vec<usize>,
    /// The LU of each group's diagonal block (by group), as the last numeric part left it.
    diagonal: Vec<Option<LU<f64, Dyn, Dyn>>>,
}

/// One group's elimination: its diagonal block's slot, the blocks A_ik (row group i, slot)
/// below it, the blocks X_kj (column group j, slot) beside it, and the Schur updates it makes.
#[derive(Debug, Clone)]
struct Elimination {
    group: usize,
    diagonal: usize,
    lower: Vec<(usize, usize)>,
    upper: Vec<(usize, usize)>,
    updates: Vec<SchurUpdate>,
}

/// A_ij −= A_ik·X_kj: the slots of A_ij, A_ik and X_kj. `first` where A_ij is fill-in that
/// this update creates (it is written, not updated).
#[derive(Debug, Clone, Copy)]
struct SchurUpdate {
    target: usize,
    lower: usize,
    upper: usize,
    first: bool,
}

impl BlockLu {
    fn new(matrix: &BlockMatrix) -> Result<BlockLu, Singular> {
        let mut lu = BlockLu::default();
        lu.refactor(matrix)?;
        Ok(lu)
    }

    /// Factors `matrix` in this storage: the numeric part alone when `matrix` has the pattern
    /// these factors were made for, the symbolic part first when not. After an error the
    /// factors solve nothing until a factorization succeeds.
    pub fn refactor(&mut self, matrix: &BlockMatrix) -> Result<(), Singular> {
        self.factored = false;
        if self.pattern.as_ref() != Some(&matrix.pattern) {
            *self = BlockLu::symbolic(matrix)?;
        }
        self.numeric(matrix)
    }

    /// The elimination order (a group with the fewest coupled groups first) and the slots of
    /// the filled pattern.
    fn symbolic(matrix: &BlockMatrix) -> Result<BlockLu, Singular> {
        let count = matrix.groups.len();
        let size = |g: usize| matrix.groups[g].len();
        let mut slots = Vec::new();
        let mut sources = Vec::new();
        // The not yet eliminated part's slots, by column group then row group.
        let mut work: Vec<BTreeMap<usize, usize>> = vec![BTreeMap::new(); count];
        for (cg, column) in matrix.columns.iter().enumerate() {
            for &rg in column.keys() {
                work[cg].insert(rg, slots.len());
                sources.push(slots.len());
                slots.push(DMatrix::zeros(size(rg), size(cg)));
            }
        }
        let mut eliminated = vec![false; count];
        let degree = |column: &BTreeMap<usize, usize>| column.len().saturating_sub(1);
        let mut queue: BinaryHeap<Reverse<(usize, usize)>> =
            (0..count).map(|g| Reverse((degree(&work[g]), g))).collect();
        let mut steps = Vec::with_capacity(count);
        while let Some(Reverse((d, k))) = queue.pop() {
            // Entries go stale when a neighbour's elimination changes the degree.
            if eliminated[k] || d != degree(&work[k]) {
                continue;
            }
            eliminated[k] = true;
            let mut column = std::mem::take(&mut work[k]);
            let diagonal = column.remove(&k).ok_or(Singular { group: k })?;
            // Row k of the remaining matrix: A_kj sits in column j at row k; X_kj takes its
            // slot, which the remaining matrix no longer holds.
            let mut upper = Vec::with_capacity(column.len());
            for &j in column.keys() {
                upper.push((j, work[j].remove(&k).ok_or(Singular { group: k })?));
            }
            // The Schur complement: A_ij −= A_ik·X_kj where A_ij is stored, a new slot
            // (fill-in) where not.
            let mut updates = Vec::with_capacity(column.len() * upper.len());
            for (&i, &lower) in &column {
                for &(j, upper) in &upper {
                    let (target, first) = match work[j].get(&i) {
                        Some(&slot) => (slot, false),
                        None => {
                            work[j].insert(i, slots.len());
                            slots.push(DMatrix::zeros(size(i), size(j)));
                            (slots.len() - 1, true)
                        }
                    };
                    updates.push(SchurUpdate {
                        target,
                        lower,
                        upper,
                        first,
                    });
                }
            }
            for &j in column.keys() {
                queue.push(Reverse((degree(&work[j]), j)));
            }
            steps.push(Elimination {
                group: k,
                diagonal,
                lower: column.into_iter().collect(),
                upper,
                updates,
            });
        }
        let starts = std::iter::once(0)
            .chain(matrix.groups.iter().scan(0, |end, group| {
                *end += group.len();
                Some(*end)
            }))
            .collect();
        Ok(BlockLu {
            pattern: Some(matrix.pattern.clone()),
            factored: false,
            groups: matrix.groups.clone(),
            starts,
            steps,
            slots,
            sources,
            diagonal: vec![None; count],
        })
    }

    /// Whether the factors are those of the matrix last given (the last factorization
    /// succeeded).
    pub fn is_factored(&self) -> bool {
        self.factored
    }

    /// The block elimination on the symbolic part's slots (`factored` is false until it
    /// succeeds: [`BlockLu::refactor`] clears it).
    fn numeric(&mut self, matrix: &BlockMatrix) -> Result<(), Singular> {
        for (block, &slot) in matrix.blocks().zip(&self.sources) {
            self.slots[slot].copy_from(block);
        }
        for step in &self.steps {
            let k = step.group;
            let factors = LU::new(self.slots[step.diagonal].clone());
            if !factors.is_invertible() {
                return Err(Singular { group: k });
            }
            for &(_, slot) in &step.upper {
                let x_kj = &mut self.slots[slot];
                if !factors.solve_mut(x_kj) || x_kj.iter().any(|x| !x.is_finite()) {
                    return Err(Singular { group: k });
                }
            }
            for update in &step.updates {
                // The target is neither of the other two slots (it is in another row and
                // column group than group k): taken out for the product, then put back.
                let mut target =
                    std::mem::replace(&mut self.slots[update.target], DMatrix::zeros(0, 0));
                let beta = if update.first { 0.0 } else { 1.0 };
                target.gemm(
                    -1.0,
                    &self.slots[update.lower],
                    &self.slots[update.upper],
                    beta,
                );
                self.slots[update.target] = target;
            }
            self.diagonal[k] = Some(factors);
        }
        self.factored = true;
        Ok(())
    }

    /// Solves A·x = b in place (`b` becomes x). Returns `false` (b unspecified) when `b` has
    /// the wrong length or a diagonal solve fails. Two allocations per solve (the work vector,
    /// the groups one after another, and one block's product), none per block: IDA solves once
    /// per Newton iteration.
    pub fn solve_in_place(&self, b: &mut [f64]) -> bool {
        let n = self.starts.last().copied().unwrap_or(0);
        if b.len() != n || !self.factored {
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
        for step in &self.steps {
            let k = step.group;
            let Some(factors) = &self.diagonal[k] else {
                return false;
            };
            let width = self.groups[k].len();
            if !factors.solve_mut(&mut DVectorViewMut::from_slice(&mut z[range(k)], width)) {
                return false;
            }
            for &(i, slot) in &step.lower {
                subtract(&mut z, i, &self.slots[slot], k);
            }
        }
        for step in self.steps.iter().rev() {
            for &(j, slot) in &step.upper {
                subtract(&mut z, step.group, &self.slots[slot], j);
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
        self.slots.iter().map(DMatrix::len).sum()
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

    /// Factoring again in the same storage, with the pattern kept, gives what factoring anew
    /// gives, to the bit; with another pattern it starts over; after a singular block it
    /// solves nothing until a factorization succeeds.
    #[test]
    fn factoring_again_in_place_gives_a_fresh_factorizations_bits() {
        let groups = vec![vec![0, 3], vec![1], vec![2, 4], vec![5, 6]];
        // A ring 0–1–2–3–0: eliminating any group couples its two neighbours (fill-in).
        let links = [(0, 1), (1, 2), (2, 3), (3, 0)];
        let mut matrix = BlockMatrix::new(groups.clone(), &links).unwrap();
        let fill = |matrix: &mut BlockMatrix, scale: f64| {
            for col in 0..7 {
                matrix.set_column(col, |row| {
                    let off = ((row * 7 + col) as f64 * scale).sin();
                    if row == col {
                        off + 9.0
                    } else {
                        off
                    }
                });
            }
        };
        let b: Vec<f64> = (0..7).map(|i| 1.0 + i as f64).collect();
        let solve = |lu: &BlockLu| {
            let mut x = b.clone();
            assert!(lu.solve_in_place(&mut x));
            x
        };
        fill(&mut matrix, 0.3);
        let mut kept = matrix.factor().unwrap();
        assert!(
            kept.stored_entries() > matrix.stored_entries(),
            "no fill-in to reuse"
        );
        for scale in [0.7, 1.9, 0.3] {
            fill(&mut matrix, scale);
            kept.refactor(&matrix).unwrap();
            assert_eq!(
                solve(&kept),
                solve(&matrix.factor().unwrap()),
                "scale {scale}"
            );
        }
        // Another pattern (the ring open between 1 and 2).
        let mut other = BlockMatrix::new(groups.clone(), &[links[0], links[2], links[3]]).unwrap();
        fill(&mut other, 1.1);
        kept.refactor(&other).unwrap();
        assert_eq!(
            kept.stored_entries(),
            other.factor().unwrap().stored_entries()
        );
        assert_eq!(solve(&kept), solve(&other.factor().unwrap()));
        // A singular block, then a regular matrix again.
        for col in 0..7 {
            other.set_column(col, |row| if groups[1].contains(&row) { 0.0 } else { 1.0 });
        }
        assert!(kept.refactor(&other).is_err());
        assert!(!kept.is_factored());
        assert!(!kept.solve_in_place(&mut b.clone()));
        fill(&mut other, 1.1);
        kept.refactor(&other).unwrap();
        assert_eq!(solve(&kept), solve(&other.factor().unwrap()));
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
