//! `fmu3d simulate --input INPUTS.csv`: input signals over time in fmpy's CSV layout, a `time`
//! column and one column per input, rows in time order; a time given twice is a jump (the
//! second row holds from then on). Between rows a signal is linear; before the first row and
//! after the last it keeps the nearest row's value. The file is read by [`crate::csv_table`].

use crate::csv_table::{CsvTable, NonNumbers, Row};
use std::path::Path;

/// The signals of an input CSV.
#[derive(Debug, Clone, PartialEq)]
pub struct InputTable {
    /// The input names, in the order of the columns after `time`.
    pub names: Vec<String>,
    times: Vec<f64>,
    /// `rows[k][j]`: input `j` at `times[k]`.
    rows: Vec<Vec<f64>>,
}

impl InputTable {
    pub fn read(path: &Path) -> Result<InputTable, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        InputTable::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The table's signals: `time` first, every value a finite number, rows in time order.
    pub fn parse(text: &str) -> Result<InputTable, String> {
        let table = CsvTable::parse(text, NonNumbers::Refused)?;
        if table.names.first().map(String::as_str) != Some("time") || table.names.len() < 2 {
            return Err(format!(
                "line 1: expected a header `time,INPUT,...` (fmpy's layout), found `{}`",
                table.header
            ));
        }
        let (mut times, mut rows) = (Vec::new(), Vec::new());
        for Row { line, values } in table.rows {
            if let Some(bad) = values.iter().find(|v| !v.is_finite()) {
                return Err(format!("line {line}: {bad} is not a finite number"));
            }
            if times.last().is_some_and(|last| values[0] < *last) {
                return Err(format!(
                    "line {line}: time {} is before the previous row's: rows must be in time \
                     order",
                    values[0]
                ));
            }
            times.push(values[0]);
            rows.push(values[1..].to_vec());
        }
        let names = table.names[1..].to_vec();
        Ok(InputTable { names, times, rows })
    }

    /// Every input's value and slope at `t` (the segment that starts at or before `t`: after a
    /// jump, the new value).
    pub fn at(&self, t: f64) -> (Vec<f64>, Vec<f64>) {
        let last = self.times.len() - 1;
        let k = self.times.partition_point(|&time| time <= t);
        if k == 0 {
            return (self.rows[0].clone(), vec![0.0; self.names.len()]);
        }
        let k = k - 1;
        if k == last {
            return (self.rows[last].clone(), vec![0.0; self.names.len()]);
        }
        let span = self.times[k + 1] - self.times[k];
        let slopes: Vec<f64> = (0..self.names.len())
            .map(|j| (self.rows[k + 1][j] - self.rows[k][j]) / span)
            .collect();
        let values = (0..self.names.len())
            .map(|j| self.rows[k][j] + slopes[j] * (t - self.times[k]))
            .collect();
        (values, slopes)
    }

    /// The row times strictly between `from` and `to`, where a signal bends or jumps.
    pub fn breakpoints(&self, from: f64, to: f64) -> impl Iterator<Item = f64> + '_ {
        let mut previous = f64::NAN;
        self.times
            .iter()
            .copied()
            .filter(move |&t| t > from && t < to)
            .filter(move |&t| std::mem::replace(&mut previous, t) != t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_slopes_and_jumps() {
        let table = InputTable::parse("time,a,b\n0,0,1\n1,2,1\n1,5,1\n3,5,-1\n").unwrap();
        assert_eq!(table.names, ["a", "b"]);
        assert_eq!(table.at(-1.0), (vec![0.0, 1.0], vec![0.0, 0.0]));
        assert_eq!(table.at(0.5), (vec![1.0, 1.0], vec![2.0, 0.0]));
        // At the jump and after it: the second row of time 1.
        assert_eq!(table.at(1.0), (vec![5.0, 1.0], vec![0.0, -1.0]));
        assert_eq!(table.at(2.0), (vec![5.0, 0.0], vec![0.0, -1.0]));
        assert_eq!(table.at(7.0), (vec![5.0, -1.0], vec![0.0, 0.0]));
        let points: Vec<f64> = table.breakpoints(0.0, 3.0).collect();
        assert_eq!(points, [1.0]);
    }

    #[test]
    fn malformed_files_are_refused_with_the_line() {
        for (text, expected) in [
            ("", "empty"),
            ("t,a\n0,1\n", "expected a header"),
            ("time,a\n0,1\n1\n", "line 3: 1 values for 2 columns"),
            ("time,a\n1,1\n0,1\n", "line 3: time 0 is before"),
            ("time,a\n0,x\n", "line 2"),
            ("time,a\n0,inf\n", "not a finite number"),
            ("time,a\n", "no rows"),
        ] {
            let error = InputTable::parse(text).unwrap_err();
            assert!(error.contains(expected), "{text:?}: {error}");
        }
    }
}
