//! A result CSV as `fmu3d simulate` writes it (a header of names, `time` first, then one row of
//! numbers per output instant), its columns by name, and their units from the model file or the
//! FMU that made it: what `fmu3d plot` and `fmu3d view --plot` show. The file is read by
//! [`crate::csv_table`]; this module adds the column lookup by name.

use crate::cli::UnitsArgs;
use crate::csv_table::{CsvTable, NonNumbers};
use fmu_runtime::model::suggest::did_you_mean;
use fmu_runtime::model::units;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The columns of a result CSV.
#[derive(Debug, Clone, PartialEq)]
pub struct Results {
    pub path: PathBuf,
    /// The header's names; the first is the time.
    pub names: Vec<String>,
    /// `columns[j][k]`: column `j` in row `k` (a field that is not a number is NaN).
    pub columns: Vec<Vec<f64>>,
}

impl Results {
    pub fn read(path: &Path) -> Result<Results, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
        Results::parse(path, &text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The result's table, a field that is not a number read as NaN (the plot breaks there).
    pub fn parse(path: &Path, text: &str) -> Result<Results, String> {
        let table = CsvTable::parse(text, NonNumbers::Nan)?;
        if table.names.len() < 2 {
            return Err(format!(
                "line 1: expected a header `time,VARIABLE,…`, found `{}`",
                table.header
            ));
        }
        let columns: Vec<Vec<f64>> = (0..table.names.len()).map(|j| table.column(j)).collect();
        if columns[0].iter().any(|t| !t.is_finite()) {
            return Err(format!(
                "the first column `{}` must be numbers",
                table.names[0]
            ));
        }
        Ok(Results {
            path: path.to_path_buf(),
            names: table.names,
            columns,
        })
    }

    pub fn time(&self) -> &[f64] {
        &self.columns[0]
    }

    /// The column of `name`, or an error that names the file and suggests a column.
    pub fn column(&self, name: &str) -> Result<&[f64], String> {
        match self.names.iter().skip(1).position(|n| n == name) {
            Some(j) => Ok(&self.columns[j + 1]),
            None => {
                let help = did_you_mean(name, self.names.iter().skip(1).map(String::as_str))
                    .unwrap_or_else(|| format!("its columns are: {}", self.names[1..].join(", ")));
                Err(format!(
                    "{}: there is no column `{name}`: {help}",
                    self.path.display()
                ))
            }
        }
    }
}

/// The unit of every variable of the model file or FMU that `args` names (empty when it names
/// none; a dimensionless variable has the unit `1` or none).
pub fn units(args: &UnitsArgs) -> Result<HashMap<String, String>, String> {
    if let Some(model) = &args.model {
        let sim = crate::build::start_simulation(model, true)?;
        Ok(sim
            .variables
            .variables
            .iter()
            .map(|v| (v.name.clone(), units::name(v.unit).to_string()))
            .collect())
    } else if let Some(fmu) = &args.fmu {
        let description = crate::fmu_host::description::read_from_fmu(fmu)?;
        Ok(description
            .variables
            .into_iter()
            .map(|v| (v.name, v.unit))
            .collect())
    } else {
        Ok(HashMap::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Results, String> {
        Results::parse(Path::new("r.csv"), text)
    }

    #[test]
    fn columns_by_name() {
        let r = parse("time,rev.phi,rev.w\n0,1,2\n0.5,3,4\n").unwrap();
        assert_eq!(r.time(), [0.0, 0.5]);
        assert_eq!(r.column("rev.w").unwrap(), [2.0, 4.0]);
        assert_eq!(r.column("rev.phi").unwrap(), [1.0, 3.0]);
    }

    #[test]
    fn an_unknown_column_is_named_with_a_suggestion() {
        let r = parse("time,rev.phi,rev.w\n0,1,2\n").unwrap();
        let message = r.column("rev.ph").unwrap_err();
        assert!(
            message.starts_with("r.csv: there is no column `rev.ph`"),
            "{message}"
        );
        assert!(message.contains("`rev.phi`"), "{message}");
        assert!(
            r.column("time").is_err(),
            "time is the abscissa, not a column to plot"
        );
    }

    #[test]
    fn malformed_files_are_refused() {
        assert!(parse("").is_err());
        assert!(parse("time\n0\n").is_err());
        assert!(parse("time,a\n").is_err());
        assert!(parse("time,a\n0,1,2\n").unwrap_err().contains("line 2"));
        assert!(parse("time,a\nx,1\n").is_err());
    }
}
