//! A numeric CSV table: a header line of column names, quoted as RFC 4180 says
//! (`"time","ball[1,2].r[1]"`, as fmpy and `fmu3d simulate` write them) or not, then one line
//! of numbers per row; blank lines are skipped. An unquoted header splits at the commas outside
//! brackets, so that the array names of files written before the names were quoted
//! (`ball[1,2].r[1]`) stay one column each. Every CSV
//! that `fmu3d` reads goes through this one reader, so a result plots, views and animates
//! alike, and an input table is read by the same rules: [`crate::results`] (`fmu3d plot`,
//! `fmu3d view --csv`), [`crate::input_table`] (`fmu3d simulate --input`) and
//! [`crate::animation::animate`] (`fmu3d animate`) keep only what is their own.

/// What a field that is not a number becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NonNumbers {
    /// An error that names the line and the column.
    Refused,
    /// NaN (a plot breaks its line there).
    Nan,
}

/// One row of numbers and the line of the file it was on.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// 1-based, blank lines counted.
    pub line: usize,
    /// One value per column of the header.
    pub values: Vec<f64>,
}

/// The names and rows of a CSV.
#[derive(Debug, Clone, PartialEq)]
pub struct CsvTable {
    /// The header line as written, for messages.
    pub header: String,
    /// The column names, without quotes and blanks.
    pub names: Vec<String>,
    /// At least one row, each with as many values as there are names.
    pub rows: Vec<Row>,
}

impl CsvTable {
    pub fn parse(text: &str, non_numbers: NonNumbers) -> Result<CsvTable, String> {
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(index, line)| (index + 1, line))
            .filter(|(_, line)| !line.trim().is_empty());
        let (_, header) = lines
            .next()
            .ok_or("the file is empty: expected a header line")?;
        let names = header_names(header)?;
        let mut rows = Vec::new();
        for (line, text) in lines {
            let fields: Vec<&str> = text.split(',').map(field).collect();
            if fields.len() != names.len() {
                return Err(format!(
                    "line {line}: {} values for {} columns",
                    fields.len(),
                    names.len()
                ));
            }
            let values = fields
                .iter()
                .zip(&names)
                .enumerate()
                .map(|(column, (value, name))| match value.parse::<f64>() {
                    Ok(number) => Ok(number),
                    Err(_) if non_numbers == NonNumbers::Nan => Ok(f64::NAN),
                    Err(_) => Err(format!(
                        "line {line}, column {} (`{name}`): `{value}` is not a number",
                        column + 1
                    )),
                })
                .collect::<Result<Vec<f64>, String>>()?;
            rows.push(Row { line, values });
        }
        if rows.is_empty() {
            return Err("no rows after the header".into());
        }
        Ok(CsvTable {
            header: header.to_string(),
            names,
            rows,
        })
    }

    /// The values of column `j`, row by row.
    pub fn column(&self, j: usize) -> Vec<f64> {
        self.rows.iter().map(|row| row.values[j]).collect()
    }
}

/// The header's column names: RFC 4180 fields (a quoted field may hold commas, and `""` for a
/// quote), split at commas outside quotes and outside brackets; blanks around a field dropped.
fn header_names(header: &str) -> Result<Vec<String>, String> {
    let mut names = Vec::new();
    let mut name = String::new();
    let (mut quoted, mut depth) = (false, 0usize);
    let mut chars = header.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                name.push('"');
            }
            '"' if quoted => quoted = false,
            '"' if name.trim().is_empty() => {
                name.clear();
                quoted = true;
            }
            ',' if !quoted && depth == 0 => names.push(std::mem::take(&mut name)),
            _ => {
                match c {
                    '[' if !quoted => depth += 1,
                    ']' if !quoted => depth = depth.saturating_sub(1),
                    _ => {}
                }
                name.push(c);
            }
        }
    }
    if quoted {
        return Err(format!(
            "the header line `{header}` ends inside a quoted name: close it with `\"`"
        ));
    }
    names.push(name);
    Ok(names.iter().map(|n| n.trim().to_string()).collect())
}

/// The header line of a CSV with these column names, each quoted as RFC 4180 says (a quote
/// doubled), so that names with commas (`ball[1,2].r[1]`) stay one column in every reader.
pub fn header_line<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let quoted: Vec<String> = names
        .into_iter()
        .map(|name| format!("\"{}\"", name.replace('"', "\"\"")))
        .collect();
    quoted.join(",")
}

/// One field of a line, without surrounding blanks and quotes.
fn field(text: &str) -> &str {
    let text = text.trim();
    text.strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_and_unquoted_headers_and_blank_lines() {
        let quoted = "\n\"time\", \"a.r[1]\"\n\n0,1.5\n  \n0.5,\"-2\"\n";
        let plain = "time,a.r[1]\n0,1.5\n0.5,-2\n";
        let a = CsvTable::parse(quoted, NonNumbers::Refused).unwrap();
        let b = CsvTable::parse(plain, NonNumbers::Refused).unwrap();
        assert_eq!(a.names, ["time", "a.r[1]"]);
        assert_eq!(a.names, b.names);
        assert_eq!(a.column(0), [0.0, 0.5]);
        assert_eq!(a.column(1), b.column(1));
        assert_eq!(a.rows[1].line, 6, "blank lines count in the line numbers");
    }

    #[test]
    fn names_with_commas_stay_one_column_quoted_or_not() {
        let names = ["time", "ball[1,2].r[1]", "say \"hi\", then", "b.v"];
        let header = header_line(names);
        assert_eq!(
            header,
            r#""time","ball[1,2].r[1]","say ""hi"", then","b.v""#
        );
        let written = CsvTable::parse(&format!("{header}\n0,1,2,3\n"), NonNumbers::Refused);
        assert_eq!(written.unwrap().names, names);
        // Written before the names were quoted: the array index's comma is no separator.
        let old = CsvTable::parse("time,ball[1,2].r[1],b.v\n0,1,3\n", NonNumbers::Refused);
        assert_eq!(old.unwrap().names, ["time", "ball[1,2].r[1]", "b.v"]);
        let open = CsvTable::parse("\"time,a\n0,1\n", NonNumbers::Refused).unwrap_err();
        assert!(open.contains("ends inside a quoted name"), "{open}");
    }

    #[test]
    fn a_bad_number_is_named_by_line_and_column() {
        let text = "time,a,b\n0,1,2\n\n1,x,3\n";
        let error = CsvTable::parse(text, NonNumbers::Refused).unwrap_err();
        assert_eq!(error, "line 4, column 2 (`a`): `x` is not a number");
        let lenient = CsvTable::parse(text, NonNumbers::Nan).unwrap();
        assert!(lenient.rows[1].values[1].is_nan());
        assert_eq!(lenient.rows[1].values[2], 3.0);
    }

    #[test]
    fn malformed_tables_are_refused() {
        for (text, expected) in [
            ("", "the file is empty"),
            (" \n\n", "the file is empty"),
            ("time,a\n", "no rows after the header"),
            ("time,a\n0,1\n1\n", "line 3: 1 values for 2 columns"),
        ] {
            let error = CsvTable::parse(text, NonNumbers::Nan).unwrap_err();
            assert!(error.contains(expected), "{text:?}: {error}");
        }
    }
}
