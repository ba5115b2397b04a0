//! Model text → tokens, each with its 1-based line and column.

/// A 1-based line and column in the model text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pos {
    pub line: usize,
    pub column: usize,
}

/// An error before the file name is attached: where, what, and possibly a hint.
#[derive(Debug, Clone, PartialEq)]
pub struct Diag {
    pub pos: Pos,
    pub message: String,
    pub help: Option<String>,
}

impl Diag {
    pub fn new(pos: Pos, message: impl Into<String>) -> Self {
        Diag {
            pos,
            message: message.into(),
            help: None,
        }
    }

    pub fn with_help(mut self, help: Option<String>) -> Self {
        self.help = help;
        self
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Ident(String),
    Number(f64),
    Str(String),
    /// End of a statement: a line break (several in a row count as one).
    Newline,
    /// Punctuation and operators: `{ } ( ) [ ] , ; = + - * / ^ . : ? < > <= >= == != && || !`.
    Punct(&'static str),
    Eof,
}

impl Tok {
    /// How the token reads in an error message.
    pub fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Number(v) => format!("the number `{v}`"),
            Tok::Str(_) => "a string".into(),
            Tok::Newline => "the end of the line".into(),
            Tok::Punct(p) => format!("`{p}`"),
            Tok::Eof => "the end of the file".into(),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    pub tok: Tok,
    pub pos: Pos,
}

const PUNCT2: [&str; 6] = ["<=", ">=", "==", "!=", "&&", "||"];
const PUNCT1: [&str; 20] = [
    "{", "}", "(", ")", "[", "]", ",", ";", "=", "+", "-", "*", "/", "^", ".", ":", "?", "<", ">",
    "!",
];

pub fn tokenize(source: &str) -> Result<Vec<Token>, Diag> {
    let chars: Vec<char> = source.chars().collect();
    let mut tokens = Vec::new();
    let (mut i, mut line, mut col) = (0usize, 1usize, 1usize);
    let err =
        |line: usize, column: usize, message: String| Diag::new(Pos { line, column }, message);
    while i < chars.len() {
        let c = chars[i];
        let (tl, tc) = (line, col);
        if c == '\n' {
            if !matches!(
                tokens.last(),
                Some(Token {
                    tok: Tok::Newline,
                    ..
                }) | None
            ) {
                tokens.push(Token {
                    tok: Tok::Newline,
                    pos: Pos {
                        line: tl,
                        column: tc,
                    },
                });
            }
            i += 1;
            line += 1;
            col = 1;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            col += 1;
            continue;
        }
        if c == '#' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let text: String = chars[start..i].iter().collect();
            col += i - start;
            tokens.push(Token {
                tok: Tok::Ident(text),
                pos: Pos {
                    line: tl,
                    column: tc,
                },
            });
            continue;
        }
        if c.is_ascii_digit() || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let start = i;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            if i < chars.len()
                && chars[i] == '.'
                && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit())
            {
                i += 1;
                while i < chars.len() && chars[i].is_ascii_digit() {
                    i += 1;
                }
            } else if i < chars.len()
                && chars[i] == '.'
                && !chars
                    .get(i + 1)
                    .is_some_and(|d| d.is_ascii_alphabetic() || *d == '_')
            {
                // `1.` is the number 1.0; `1.e3` is not written, `N.m` after a number is a unit.
                i += 1;
            }
            if i < chars.len() && (chars[i] == 'e' || chars[i] == 'E') {
                let mut j = i + 1;
                if j < chars.len() && (chars[j] == '+' || chars[j] == '-') {
                    j += 1;
                }
                if j < chars.len() && chars[j].is_ascii_digit() {
                    while j < chars.len() && chars[j].is_ascii_digit() {
                        j += 1;
                    }
                    i = j;
                }
            }
            let text: String = chars[start..i].iter().collect();
            col += i - start;
            let value: f64 = text
                .parse()
                .map_err(|_| err(tl, tc, format!("`{text}` is not a valid number")))?;
            tokens.push(Token {
                tok: Tok::Number(value),
                pos: Pos {
                    line: tl,
                    column: tc,
                },
            });
            continue;
        }
        if c == '"' {
            let mut text = String::new();
            i += 1;
            col += 1;
            loop {
                match chars.get(i) {
                    None | Some('\n') => {
                        return Err(err(
                            tl,
                            tc,
                            "unterminated string: a string must end with `\"` on the same line"
                                .into(),
                        ))
                    }
                    Some('"') => {
                        i += 1;
                        col += 1;
                        break;
                    }
                    Some('\\') if matches!(chars.get(i + 1), Some('"') | Some('\\')) => {
                        text.push(chars[i + 1]);
                        i += 2;
                        col += 2;
                    }
                    Some(&ch) => {
                        text.push(ch);
                        i += 1;
                        col += 1;
                    }
                }
            }
            tokens.push(Token {
                tok: Tok::Str(text),
                pos: Pos {
                    line: tl,
                    column: tc,
                },
            });
            continue;
        }
        let two: String = chars[i..(i + 2).min(chars.len())].iter().collect();
        if let Some(p) = PUNCT2.iter().find(|p| **p == two) {
            tokens.push(Token {
                tok: Tok::Punct(p),
                pos: Pos {
                    line: tl,
                    column: tc,
                },
            });
            i += 2;
            col += 2;
            continue;
        }
        let one = c.to_string();
        if let Some(p) = PUNCT1.iter().find(|p| **p == one) {
            tokens.push(Token {
                tok: Tok::Punct(p),
                pos: Pos {
                    line: tl,
                    column: tc,
                },
            });
            i += 1;
            col += 1;
            continue;
        }
        return Err(err(tl, tc, format!("unexpected character `{c}`")));
    }
    tokens.push(Token {
        tok: Tok::Eof,
        pos: Pos { line, column: col },
    });
    Ok(tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_units_and_positions() {
        let t = tokenize("d = 0.1 N.m.s/rad # c\nx = 1e-6;").unwrap();
        let kinds: Vec<&Tok> = t.iter().map(|t| &t.tok).collect();
        assert_eq!(kinds[2], &Tok::Number(0.1));
        assert_eq!(kinds[3], &Tok::Ident("N".into()));
        assert_eq!(kinds[4], &Tok::Punct("."));
        assert_eq!(kinds[9], &Tok::Ident("rad".into()));
        assert_eq!(kinds[10], &Tok::Newline);
        assert_eq!(kinds[13], &Tok::Number(1e-6));
        assert_eq!((t[11].pos.line, t[11].pos.column), (2, 1));
    }
}
