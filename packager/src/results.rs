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
        let xml = crate::fmu_import::description_text(fmu)?;
        fmu_units(&xml).map_err(|e| format!("{}: modelDescription.xml: {e}", fmu.display()))
    } else {
        Ok(HashMap::new())
    }
}

/// The `unit` of every variable's type element in a modelDescription.xml (empty if none): read
/// here because fmi-schema, which parses the rest, keeps no unit of a variable's own.
fn fmu_units(xml: &str) -> Result<HashMap<String, String>, String> {
    use quick_xml::events::{BytesStart, Event};
    use quick_xml::{Reader, XmlVersion};
    let attribute = |element: &BytesStart, name: &str| -> Result<Option<String>, String> {
        for a in element.attributes() {
            let a = a.map_err(|e| e.to_string())?;
            if a.key.as_ref() == name {
                let value = a
                    .normalized_value(XmlVersion::Implicit1_0)
                    .map_err(|e| e.to_string())?;
                return Ok(Some(value.into_owned()));
            }
        }
        Ok(None)
    };
    let mut reader = Reader::from_str(xml);
    let mut units = HashMap::new();
    // The variable whose element is open: its type element follows.
    let mut variable: Option<String> = None;
    loop {
        let (element, opens) = match reader.read_event().map_err(|e| e.to_string())? {
            Event::Eof => break,
            Event::End(e) if e.name().as_ref() == "ScalarVariable" => {
                variable = None;
                continue;
            }
            Event::Start(e) => (e, true),
            Event::Empty(e) => (e, false),
            _ => continue,
        };
        match element.name().as_ref() {
            "ScalarVariable" => {
                let name = attribute(&element, "name")?.ok_or("a ScalarVariable has no name")?;
                units.insert(name.clone(), String::new());
                variable = opens.then_some(name);
            }
            "Real" | "Integer" | "Boolean" | "String" | "Enumeration" => {
                if let Some(name) = &variable {
                    units.insert(
                        name.clone(),
                        attribute(&element, "unit")?.unwrap_or_default(),
                    );
                }
            }
            _ => {}
        }
    }
    Ok(units)
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
    fn an_fmus_units_are_those_of_its_variables_type_elements() {
        let xml = r#"<fmiModelDescription><ModelVariables>
            <ScalarVariable name="rev.phi" valueReference="3"><Real unit="rad"/></ScalarVariable>
            <ScalarVariable name="count" valueReference="4"><Integer/></ScalarVariable>
            <ScalarVariable name="gap" valueReference="5"/>
            </ModelVariables></fmiModelDescription>"#;
        let units = fmu_units(xml).unwrap();
        assert_eq!(units.len(), 3);
        assert_eq!(units["rev.phi"], "rad");
        assert_eq!(units["count"], "");
        assert_eq!(units["gap"], "");
        assert!(fmu_units("<ScalarVariable valueReference=\"1\"/>").is_err());
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
