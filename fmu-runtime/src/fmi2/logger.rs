//! Messages to the host through its `fmi2CallbackLogger`, filtered by category.
//!
//! The logger is variadic; it is always called with the format `"%s"` and the message as its
//! argument, so that a `%` in a message is never read as a format. Errors and warnings are always
//! reported (every failure comes with a message); the debug categories only when the host asked
//! for them (`loggingOn` or `fmi2SetDebugLogging`).

use super::types::{Fmi2CallbackLogger, Fmi2ComponentEnvironment, Fmi2Status};
use crate::fmu::LOG_CATEGORIES;
use std::ffi::CString;

/// The categories declared in modelDescription.xml, by their index in `LOG_CATEGORIES`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Category {
    Error = 0,
    Warning = 1,
    Calls = 2,
    SolverStats = 3,
}

impl Category {
    fn name(self) -> &'static str {
        LOG_CATEGORIES[self as usize].0
    }
}

#[derive(Debug, Clone)]
pub struct Logger {
    callback: Fmi2CallbackLogger,
    environment: Fmi2ComponentEnvironment,
    instance_name: CString,
    /// Debug categories switched on, by index.
    enabled: [bool; LOG_CATEGORIES.len()],
}

impl Logger {
    pub fn new(
        callback: Fmi2CallbackLogger,
        environment: Fmi2ComponentEnvironment,
        instance_name: &str,
        logging_on: bool,
    ) -> Logger {
        Logger {
            callback,
            environment,
            instance_name: c_string(instance_name),
            enabled: [logging_on; LOG_CATEGORIES.len()],
        }
    }

    /// `fmi2SetDebugLogging`: no categories means all of them.
    pub fn set_debug_logging(&mut self, on: bool, categories: &[String]) -> Result<(), String> {
        if categories.is_empty() {
            self.enabled = [on; LOG_CATEGORIES.len()];
            return Ok(());
        }
        for name in categories {
            let index = LOG_CATEGORIES
                .iter()
                .position(|(c, _)| c == name)
                .ok_or_else(|| {
                    let known: Vec<&str> = LOG_CATEGORIES.iter().map(|c| c.0).collect();
                    format!(
                        "unknown log category `{name}`; the categories are {}",
                        known.join(", ")
                    )
                })?;
            self.enabled[index] = on;
        }
        Ok(())
    }

    pub fn is_enabled(&self, category: Category) -> bool {
        matches!(category, Category::Error | Category::Warning) || self.enabled[category as usize]
    }

    pub fn log(&self, status: Fmi2Status, category: Category, message: &str) {
        if !self.is_enabled(category) {
            return;
        }
        let category_name = c_string(category.name());
        let message = c_string(&one_line(message));
        // SAFETY: the callback was given by the host at instantiation (checked non-null) with
        // the environment it expects back; every string passed is a valid NUL-terminated
        // CString that lives across the call; the format "%s" consumes exactly the one vararg.
        unsafe {
            (self.callback)(
                self.environment,
                self.instance_name.as_ptr(),
                status,
                category_name.as_ptr(),
                c"%s".as_ptr(),
                message.as_ptr(),
            );
        }
    }

    pub fn error(&self, message: &str) {
        self.log(Fmi2Status::Error, Category::Error, message);
    }

    pub fn warning(&self, message: &str) {
        self.log(Fmi2Status::Warning, Category::Warning, message);
    }
}

/// A C string of `text` with any NUL byte replaced, so that it can always be made.
/// A message as one clean line: line breaks and runs of white space become one space, and the
/// empty fields some library messages carry (`, ,`) are dropped. Importers show each message
/// as a line of their log.
fn one_line(text: &str) -> String {
    let words = text.split_whitespace().filter(|w| *w != ",");
    let mut line = String::with_capacity(text.len());
    for word in words {
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    line.replace(" ,", ",").replace(",,", ",")
}

fn c_string(text: &str) -> CString {
    CString::new(text.replace('\0', "\u{2400}")).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fmi2::types::Fmi2String;

    /// fmi2SetDebugLogging: named categories switch on and off alone, none named means all;
    /// errors and warnings are always reported; an unknown name is refused with the list.
    #[test]
    fn categories_switch_as_set() -> Result<(), String> {
        unsafe extern "C" fn silent(
            _: Fmi2ComponentEnvironment,
            _: Fmi2String,
            _: Fmi2Status,
            _: Fmi2String,
            _: Fmi2String,
        ) {
        }
        // SAFETY: the logger is never called here (only categories are switched), so the
        // missing variadic part of the signature is never used.
        let callback: Fmi2CallbackLogger = unsafe { std::mem::transmute(silent as *const ()) };
        let mut logger = Logger::new(callback, std::ptr::null_mut(), "test", false);
        assert!(!logger.is_enabled(Category::Calls) && !logger.is_enabled(Category::SolverStats));
        assert!(logger.is_enabled(Category::Error) && logger.is_enabled(Category::Warning));
        logger.set_debug_logging(true, &["logCalls".to_string()])?;
        assert!(logger.is_enabled(Category::Calls) && !logger.is_enabled(Category::SolverStats));
        logger.set_debug_logging(true, &[])?;
        assert!(logger.is_enabled(Category::SolverStats));
        logger.set_debug_logging(false, &["logCalls".to_string()])?;
        assert!(!logger.is_enabled(Category::Calls) && logger.is_enabled(Category::SolverStats));
        let Err(error) = logger.set_debug_logging(true, &["logEverything".to_string()]) else {
            return Err("an unknown category was accepted".into());
        };
        assert!(
            error.contains("unknown log category `logEverything`") && error.contains("logCalls")
        );
        Ok(())
    }

    #[test]
    fn messages_are_one_clean_line() {
        assert_eq!(
            one_line("IDASolve: At t = 0.0483469, , mxstep steps taken\n  before   reaching tout."),
            "IDASolve: At t = 0.0483469, mxstep steps taken before reaching tout."
        );
        assert_eq!(one_line("  a\tb  "), "a b");
    }
}
