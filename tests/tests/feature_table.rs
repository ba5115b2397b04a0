//! The feature table of `docs/testing.md` against what it lists: every element and field that the
//! field tables of `docs/model-format.md` document has a row, every test a row names exists in the
//! file it names, and the summary line counts the rows' statuses. The matching rules are the
//! section's preamble; this file implements them and nothing else.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The element a `Field` table documents, by the heading it stands under.
const ELEMENT_OF_HEADING: &[(&str, &str)] = &[
    ("Shapes", "mesh"),
    ("Mass", "mass"),
    ("Visual", "visual"),
    ("Contact", "contact"),
    ("Contact-pair materials", "contact_pair"),
    ("Gravity and experiment", "experiment"),
];

const STATUSES: [&str; 3] = ["pinned", "weak", "none"];

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests package lies in the repository")
        .to_path_buf()
}

fn read(relative: &str) -> String {
    let path = repository().join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A Markdown table: the heading it stands under, its header cells and its body rows.
#[derive(Debug)]
struct Table {
    heading: String,
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

/// The cells of a table line, split at every `|` that is not escaped as `\|`.
fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|');
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    let mut cells = vec![String::new()];
    let mut escaped = false;
    for c in inner.chars() {
        if c == '|' && !escaped {
            cells.push(String::new());
        } else {
            cells.last_mut().expect("one cell at least").push(c);
        }
        escaped = c == '\\';
    }
    cells.iter().map(|c| c.trim().to_string()).collect()
}

/// The tables of a Markdown text outside fenced code blocks.
fn tables(markdown: &str) -> Vec<Table> {
    let mut found = Vec::new();
    let (mut heading, mut fenced) = (String::new(), false);
    let mut current: Option<Table> = None;
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            fenced = !fenced;
        }
        let is_row = !fenced && trimmed.starts_with('|');
        if !is_row {
            found.extend(current.take());
            if !fenced && trimmed.starts_with('#') {
                heading = trimmed.trim_start_matches('#').trim().to_string();
            }
            continue;
        }
        let row = cells(line);
        match current.as_mut() {
            None => {
                current = Some(Table {
                    heading: heading.clone(),
                    header: row,
                    rows: Vec::new(),
                })
            }
            Some(table) => {
                let separator = row
                    .iter()
                    .all(|c| !c.is_empty() && c.chars().all(|c| matches!(c, '-' | ':')));
                if !separator {
                    table.rows.push(row);
                }
            }
        }
    }
    found.extend(current);
    found
}

/// The backticked spans of a cell.
fn spans(cell: &str) -> Vec<&str> {
    cell.split('`').skip(1).step_by(2).collect()
}

/// The identifier a span starts with.
fn leading_identifier(span: &str) -> Option<&str> {
    let end = span
        .char_indices()
        .find(|&(i, c)| !(c == '_' || c.is_ascii_alphabetic() || (i > 0 && c.is_ascii_digit())))
        .map_or(span.len(), |(i, _)| i);
    (end > 0).then(|| &span[..end])
}

/// A field name written in a span: the span is the name alone, or the name followed by ` =`
/// (`lengths = [lx, ly, lz]`) or ` {` (`speed_control { }`).
fn field_name(span: &str) -> Option<&str> {
    let name = leading_identifier(span)?;
    let rest = &span[name.len()..];
    (rest.is_empty() || rest.starts_with(" =") || rest.starts_with(" {")).then_some(name)
}

/// What model-format.md documents: (heading, element, field) for each field, (heading,
/// element, None) for each element.
fn documented(markdown: &str) -> Result<Vec<(String, String, Option<String>)>, String> {
    let mut items = Vec::new();
    for table in tables(markdown) {
        let first = table.header.first().map(String::as_str).unwrap_or("");
        match first {
            "Statement" | "Name" | "Kind" | "Shape" | "Element" => {
                let with_fields = !matches!(first, "Statement" | "Name");
                let mut elements: Vec<String> = Vec::new();
                for row in &table.rows {
                    let named: Vec<String> = spans(&row[0])
                        .into_iter()
                        .filter_map(leading_identifier)
                        .map(String::from)
                        .collect();
                    if !named.is_empty() {
                        elements = named;
                        for element in &elements {
                            items.push((table.heading.clone(), element.clone(), None));
                        }
                    }
                    if elements.is_empty() {
                        return Err(format!(
                            "a row of the table under `{}` names no element: {row:?}",
                            table.heading
                        ));
                    }
                    if with_fields {
                        let cell = row.get(1).map(String::as_str).unwrap_or("");
                        for field in spans(cell).into_iter().filter_map(field_name) {
                            for element in &elements {
                                items.push((
                                    table.heading.clone(),
                                    element.clone(),
                                    Some(field.to_string()),
                                ));
                            }
                        }
                    }
                }
            }
            "Field" => {
                let element = ELEMENT_OF_HEADING
                    .iter()
                    .find(|(heading, _)| *heading == table.heading)
                    .map(|(_, element)| element.to_string())
                    .ok_or_else(|| {
                        format!(
                            "a field table under `{}`: add the heading and its element to \
                             ELEMENT_OF_HEADING in tests/tests/feature_table.rs",
                            table.heading
                        )
                    })?;
                items.push((table.heading.clone(), element.clone(), None));
                for row in &table.rows {
                    for field in spans(&row[0]).into_iter().filter_map(field_name) {
                        items.push((
                            table.heading.clone(),
                            element.clone(),
                            Some(field.to_string()),
                        ));
                    }
                }
            }
            _ => {}
        }
    }
    items.dedup();
    Ok(items)
}

/// The section `## Feature table` of testing.md, up to the next section of its level.
fn feature_section(testing: &str) -> &str {
    let start = testing
        .find("\n## Feature table\n")
        .expect("docs/testing.md has a section `## Feature table`");
    let rest = &testing[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3);
    &rest[..end]
}

/// The rows of the feature table: (feature, test, status), from every table of the section
/// whose header is `feature | reference | test | status`.
fn feature_rows(section: &str) -> Vec<(String, String, String)> {
    tables(section)
        .into_iter()
        .filter(|t| t.header == ["feature", "reference", "test", "status"])
        .flat_map(|t| t.rows)
        .map(|row| {
            let cell = |k: usize| row.get(k).cloned().unwrap_or_default();
            (cell(0), cell(2), cell(3))
        })
        .collect()
}

/// The identifiers of a feature cell: the leading identifier of each backticked span.
fn feature_words(feature: &str) -> BTreeSet<&str> {
    spans(feature)
        .into_iter()
        .filter_map(leading_identifier)
        .collect()
}

/// Every documented element and field that no row's feature cell names.
fn uncovered(
    items: &[(String, String, Option<String>)],
    rows: &[(String, String, String)],
) -> Vec<String> {
    let words: Vec<BTreeSet<&str>> = rows.iter().map(|(f, _, _)| feature_words(f)).collect();
    items
        .iter()
        .filter(|(_, element, field)| {
            !words.iter().any(|w| {
                w.contains(element.as_str())
                    && field.as_ref().is_none_or(|f| w.contains(f.as_str()))
            })
        })
        .map(|(heading, element, field)| match field {
            Some(field) => format!("`{element}` `{field}` (under `{heading}`)"),
            None => format!("`{element}` (under `{heading}`)"),
        })
        .collect()
}

/// The tests a test cell names, as (file, function).
fn named_tests(cell: &str) -> Result<Vec<(String, String)>, String> {
    spans(cell)
        .into_iter()
        .map(|span| {
            let (file, function) = span
                .split_once("::")
                .ok_or_else(|| format!("`{span}` is not `file::function`"))?;
            let function = function.split('[').next().unwrap_or(function);
            Ok((file.to_string(), function.to_string()))
        })
        .collect()
}

/// Every problem with the tests the rows name and with their statuses.
fn test_problems(rows: &[(String, String, String)]) -> Vec<String> {
    let mut problems = Vec::new();
    for (feature, test, status) in rows {
        if !STATUSES.contains(&status.as_str()) {
            problems.push(format!(
                "{feature}: status `{status}` is none of {STATUSES:?}"
            ));
        }
        let tests = match named_tests(test) {
            Ok(tests) => tests,
            Err(e) => {
                problems.push(format!("{feature}: {e}"));
                continue;
            }
        };
        if tests.is_empty() && status != "none" {
            problems.push(format!("{feature}: a `{status}` row names no test"));
        }
        for (file, function) in tests {
            let path = repository().join(&file);
            let Ok(source) = std::fs::read_to_string(&path) else {
                problems.push(format!("{feature}: no file `{file}`"));
                continue;
            };
            let defined = [format!("fn {function}("), format!("def {function}(")]
                .iter()
                .any(|definition| source.contains(definition.as_str()));
            if !defined {
                problems.push(format!("{feature}: `{file}` has no test `{function}`"));
            }
        }
    }
    problems
}

/// The summary line against the rows: `Summary: N rows: P pinned, W weak, X none.`
fn summary_problem(section: &str, rows: &[(String, String, String)]) -> Option<String> {
    let Some(line) = section.lines().find(|l| l.starts_with("Summary: ")) else {
        return Some("no line `Summary: N rows: P pinned, W weak, X none.`".into());
    };
    let numbers: Vec<usize> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|n| n.parse().ok())
        .collect();
    let count = |status: &str| rows.iter().filter(|(_, _, s)| s == status).count();
    let actual = vec![rows.len(), count("pinned"), count("weak"), count("none")];
    (numbers != actual).then(|| {
        format!(
            "the summary says `{line}`, the rows are: {} rows: {} pinned, {} weak, {} none.",
            actual[0], actual[1], actual[2], actual[3]
        )
    })
}

#[test]
fn every_documented_field_has_a_row_every_named_test_exists_and_the_counts_agree() {
    let items = documented(&read("docs/model-format.md")).unwrap_or_else(|e| panic!("{e}"));
    // The parser must see the tables: a handful of known items, and many in all.
    for (element, field) in [
        ("revolute", Some("spring_rest")),
        ("universal", Some("axis_b")),
        ("spring_damper", Some("length")),
        ("motor", Some("speed_control")),
        ("ellipsoid", Some("lengths")),
        ("contact_pair", Some("w_small")),
        ("experiment", Some("tolerance")),
        ("plastic", None),
        ("for", None),
    ] {
        assert!(
            items
                .iter()
                .any(|(_, e, f)| e == element && f.as_deref() == field),
            "model-format.md documents `{element}` {field:?}, the parser did not find it"
        );
    }
    assert!(items.len() > 100, "{} items documented", items.len());

    let testing = read("docs/testing.md");
    let section = feature_section(&testing);
    let rows = feature_rows(section);
    let missing = uncovered(&items, &rows);
    let mut problems: Vec<String> = missing
        .iter()
        .map(|m| format!("documented in model-format.md, no row in the feature table: {m}"))
        .collect();
    problems.extend(test_problems(&rows));
    problems.extend(summary_problem(section, &rows));
    eprintln!(
        "{} documented elements and fields, {} rows",
        items.len(),
        rows.len()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_parser_reads_escaped_bars_continued_elements_and_fields() {
    assert_eq!(cells(r"| `\|\|`, `&&` | or |"), [r"`\|\|`, `&&`", "or"]);
    let markdown = "\
## Things

```
| `inside` | a code block |
```

| Kind | Field | Quantity |
|---|---|---|
| `a`, `b` | `x` | length |
| | `y_guess`, `NAME.v` | |

### Mass

| Field | Quantity |
|---|---|
| `m` | mass |
";
    let items = documented(markdown).expect("known headings");
    let pairs: Vec<(&str, Option<&str>)> = items
        .iter()
        .map(|(_, e, f)| (e.as_str(), f.as_deref()))
        .collect();
    assert_eq!(
        pairs,
        [
            ("a", None),
            ("b", None),
            ("a", Some("x")),
            ("b", Some("x")),
            ("a", Some("y_guess")),
            ("b", Some("y_guess")),
            ("mass", None),
            ("mass", Some("m")),
        ]
    );
    let rows = vec![(
        "`a` `x`, `y_guess`".to_string(),
        String::new(),
        "none".to_string(),
    )];
    assert_eq!(
        uncovered(&items, &rows),
        [
            "`b` (under `Things`)",
            "`b` `x` (under `Things`)",
            "`b` `y_guess` (under `Things`)",
            "`mass` (under `Mass`)",
            "`mass` `m` (under `Mass`)",
        ]
    );
    assert!(documented("## Elsewhere\n\n| Field | x |\n|---|---|\n| `f` | 1 |\n").is_err());
}
