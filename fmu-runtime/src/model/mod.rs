//! (1) Model file → typed [`ModelSpec`]: lexing, parsing, parameter expressions, units,
//! sub-assembly expansion and validation, with errors that point at `file:line:column`.

mod evaluate;
mod expr;
mod lexer;
pub mod mass;
pub mod materials;
pub mod motion;
mod snap;
pub mod spec;
pub mod suggest;
mod syntax;
pub use syntax::STATEMENTS;
pub mod units;

pub use evaluate::MAX_OBJECTS;
pub use motion::TimeFunction;
pub use spec::*;

use std::path::Path;

/// A problem in a model file: where it is, what is wrong and, when it can tell, how to fix it.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelError {
    pub location: Location,
    pub message: String,
    /// A suggestion such as "did you mean `revolute`?".
    pub help: Option<String>,
}

impl std::fmt::Display for ModelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: error: {}", self.location, self.message)?;
        if let Some(help) = &self.help {
            write!(f, "\n  help: {help}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ModelError {}

/// Reads and evaluates a model file.
pub fn load_file(path: &Path) -> Result<ModelSpec, ModelError> {
    let file_name = path.display().to_string();
    let source = std::fs::read_to_string(path).map_err(|e| ModelError {
        location: Location {
            file: file_name.clone(),
            line: 0,
            column: 0,
        },
        message: format!("cannot read the model file: {e}"),
        help: None,
    })?;
    load_str(&source, &file_name)
}

/// Evaluates model text; `file_name` is used in error locations.
pub fn load_str(source: &str, file_name: &str) -> Result<ModelSpec, ModelError> {
    load_str_with(source, file_name, &[])
}

/// Evaluates model text with some top-level or dotted parameters set to other values (SI units),
/// as an FMU does when its parameters are changed before initialization.
///
/// An override names a parameter by its full name (`L`, `bar1.Lx`); it replaces the parameter's
/// value before any expression that uses it is evaluated. Naming no parameter is an error.
pub fn load_str_with(
    source: &str,
    file_name: &str,
    overrides: &[(String, f64)],
) -> Result<ModelSpec, ModelError> {
    let to_error = |d: lexer::Diag| ModelError {
        location: Location {
            file: file_name.to_string(),
            line: d.pos.line,
            column: d.pos.column,
        },
        message: d.message,
        help: d.help,
    };
    let tokens = lexer::tokenize(source).map_err(to_error)?;
    let statements = syntax::parse(tokens).map_err(to_error)?;
    evaluate::evaluate(&statements, file_name, overrides).map_err(to_error)
}

#[cfg(test)]
mod snap_tests;
#[cfg(test)]
mod tests;
