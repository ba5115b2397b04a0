//! Sums whose result does not depend on the order of their terms.
//!
//! A body touched by several contacts gets their forces in the order of the collision pairs,
//! and that order is not the same for a body and its mirror image in a mirror-symmetric scene
//! (the pairs are numbered by collider). Floating-point addition is not associative, so a plain
//! running sum would differ in the last bits between the two, and a chaotic motion (a billiard
//! break) amplifies that into a visible asymmetry. [`ExactSum`] keeps the sum exactly, as
//! non-overlapping partials (Shewchuk 1997, the algorithm of Python's `math.fsum`), and rounds
//! once at the end: the result is the exact sum correctly rounded, the same in any order, and
//! negating every term negates it.

/// An exact running sum of `f64` terms (finite terms, no overflow of the partials).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ExactSum {
    /// Non-overlapping partial sums, increasing in magnitude; their exact sum is the sum of the
    /// terms added so far.
    partials: Vec<f64>,
}

impl ExactSum {
    /// Forgets every term, keeping the storage.
    pub fn clear(&mut self) {
        self.partials.clear();
    }

    /// Adds a term exactly.
    pub fn add(&mut self, term: f64) {
        let mut x = term;
        let mut kept = 0;
        for j in 0..self.partials.len() {
            let mut y = self.partials[j];
            if x.abs() < y.abs() {
                std::mem::swap(&mut x, &mut y);
            }
            // hi + lo = x + y exactly (|x| ≥ |y|).
            let hi = x + y;
            let lo = y - (hi - x);
            if lo != 0.0 {
                self.partials[kept] = lo;
                kept += 1;
            }
            x = hi;
        }
        self.partials.truncate(kept);
        self.partials.push(x);
    }

    /// The exact sum of the terms, rounded to the nearest `f64` (ties to even).
    pub fn value(&self) -> f64 {
        let Some((&top, rest)) = self.partials.split_last() else {
            return 0.0;
        };
        let mut hi = top;
        let mut lo = 0.0;
        let mut n = rest.len();
        // Add the partials from the largest down until the sum stops being exact.
        while n > 0 {
            let x = hi;
            let y = rest[n - 1];
            n -= 1;
            hi = x + y;
            lo = y - (hi - x);
            if lo != 0.0 {
                break;
            }
        }
        // Round half-way cases correctly: if the rounding error `lo` and the next partial have
        // the same sign, the exact sum lies beyond the half-way point that `hi` rounded from.
        if n > 0 && ((lo < 0.0 && rest[n - 1] < 0.0) || (lo > 0.0 && rest[n - 1] > 0.0)) {
            let y = lo * 2.0;
            let x = hi + y;
            if y == x - hi {
                hi = x;
            }
        }
        hi
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exact(terms: &[f64]) -> f64 {
        let mut sum = ExactSum::default();
        terms.iter().for_each(|t| sum.add(*t));
        sum.value()
    }

    #[test]
    fn sums_exactly_where_a_running_sum_loses_digits() {
        assert_eq!(exact(&[1e100, 1.0, -1e100]), 1.0);
        assert_eq!(exact(&[0.1; 10]), 1.0);
        assert_eq!(exact(&[]), 0.0);
        // The half-way case: 1 + 2^-53 + 2^-106 rounds up, 1 + 2^-53 alone to even (1).
        let half = 2f64.powi(-53);
        assert_eq!(exact(&[1.0, half]), 1.0);
        assert_eq!(exact(&[1.0, half, half * half]), 1.0 + 2.0 * half);
    }

    #[test]
    fn order_and_sign_do_not_matter() {
        // Terms of mixed magnitudes and signs, as contact forces on one body are.
        let terms = [
            3.7e2,
            -1.234_567_890_123e-3,
            9.87e-9,
            -3.7e2 + 1e-10,
            0.333_333_333_333_3,
            -7.0e-17,
            1.5e4,
        ];
        let reference = exact(&terms);
        let mut permutation = terms;
        let mut differs = false;
        // Every rotation and its reverse: a running sum changes in the last bits, the exact
        // sum does not.
        for shift in 0..terms.len() {
            permutation.rotate_left(1);
            let running: f64 = permutation.iter().sum();
            differs |= running != terms.iter().sum::<f64>();
            assert_eq!(exact(&permutation), reference, "rotation {shift}");
            let mut reversed = permutation;
            reversed.reverse();
            assert_eq!(exact(&reversed), reference);
            let negated: Vec<f64> = reversed.iter().map(|t| -t).collect();
            assert_eq!(exact(&negated), -reference);
        }
        assert!(
            differs,
            "the terms are chosen so that the running sum depends on the order"
        );
    }
}
