//! Tokens → syntax tree: statements, blocks of fields and sub-blocks, expressions with units.
//! Every node keeps the line and column of the token that starts it.

use super::expr::{Expr, ExprKind, NamePart, NamePath, UnitRef};
use super::lexer::{Diag, Pos, Tok, Token};
use super::suggest::did_you_mean;

#[derive(Debug, Clone, PartialEq)]
pub struct Ident {
    pub name: String,
    pub pos: Pos,
}

/// A declared name, possibly indexed: `link[i]`.
#[derive(Debug, Clone, PartialEq)]
pub struct DeclName {
    pub base: Ident,
    pub index: Vec<Expr>,
}

/// `NAME = value ["description"]`; in an assembly head the value may be missing.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamDecl {
    pub name: Ident,
    pub value: Option<Expr>,
    pub description: Option<String>,
}

/// `{ field = value; sub KIND { ... } }`
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub entries: Vec<Entry>,
    pub pos: Pos,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    Field {
        name: Ident,
        value: Expr,
    },
    Sub {
        keyword: Ident,
        kind: Option<Ident>,
        body: Block,
    },
}

impl Entry {
    pub fn name(&self) -> &Ident {
        match self {
            Entry::Field { name, .. } => name,
            Entry::Sub { keyword, .. } => keyword,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Stmt {
    Model {
        name: Ident,
        description: Option<String>,
        pos: Pos,
    },
    Parameters {
        entries: Vec<ParamDecl>,
        pos: Pos,
    },
    Gravity {
        kind: Ident,
        body: Option<Block>,
        pos: Pos,
    },
    Experiment {
        body: Block,
        pos: Pos,
    },
    Object {
        name: DeclName,
        body: Block,
        pos: Pos,
    },
    Joint {
        name: DeclName,
        kind: Ident,
        body: Block,
        pos: Pos,
    },
    Force {
        name: DeclName,
        kind: Ident,
        body: Block,
        pos: Pos,
    },
    ContactPair {
        materials: [Ident; 2],
        body: Block,
        pos: Pos,
    },
    ContactOutput {
        name: DeclName,
        body: Block,
        pos: Pos,
    },
    /// `drive NAME { joint = J; source and elements in series }`
    Drive {
        name: DeclName,
        body: Block,
        pos: Pos,
    },
    Assembly {
        name: Ident,
        params: Vec<ParamDecl>,
        body: Vec<Stmt>,
        pos: Pos,
    },
    Instance {
        name: DeclName,
        assembly: Ident,
        args: Vec<(Ident, Expr)>,
        body: Option<Block>,
        pos: Pos,
    },
    For {
        var: Ident,
        start: Expr,
        end: Expr,
        body: Vec<Stmt>,
        pos: Pos,
    },
}

pub const STATEMENTS: &[&str] = &[
    "model",
    "parameters",
    "gravity",
    "experiment",
    "object",
    "joint",
    "force",
    "contact_pair",
    "contact_output",
    "drive",
    "assembly",
    "instance",
    "for",
];

struct Parser {
    tokens: Vec<Token>,
    at: usize,
    /// Inside `( )` or `[ ]` line breaks do not end anything.
    nesting: usize,
    /// How deeply blocks and expressions are nested, to refuse absurd inputs before the stack
    /// runs out.
    depth: usize,
    /// Binary operators in the value being read (the tree they build is evaluated recursively).
    operators: usize,
    /// Values being read, counting nested ones: 0 between values.
    values: usize,
}

const MAX_DEPTH: usize = 64;
const MAX_OPERATORS: usize = 200;

pub fn parse(tokens: Vec<Token>) -> Result<Vec<Stmt>, Diag> {
    let mut p = Parser {
        tokens,
        at: 0,
        nesting: 0,
        depth: 0,
        operators: 0,
        values: 0,
    };
    let stmts = p.statements(None)?;
    Ok(stmts)
}

impl Parser {
    fn enter(&mut self) -> Result<(), Diag> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            let pos = self.peek().pos;
            return Err(Diag::new(
                pos,
                format!("too deeply nested (more than {MAX_DEPTH} levels)"),
            ));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    fn skip_nested_newlines(&mut self) {
        if self.nesting > 0 {
            while self.at + 1 < self.tokens.len() && self.tokens[self.at].tok == Tok::Newline {
                self.at += 1;
            }
        }
    }

    fn peek(&mut self) -> &Token {
        self.skip_nested_newlines();
        &self.tokens[self.at.min(self.tokens.len() - 1)]
    }

    fn next(&mut self) -> Token {
        self.skip_nested_newlines();
        let t = self.tokens[self.at.min(self.tokens.len() - 1)].clone();
        if self.at + 1 < self.tokens.len() {
            self.at += 1;
        }
        t
    }

    fn is_punct(&mut self, p: &str) -> bool {
        matches!(&self.peek().tok, Tok::Punct(q) if *q == p)
    }

    fn eat_punct(&mut self, p: &str) -> bool {
        if self.is_punct(p) {
            self.next();
            true
        } else {
            false
        }
    }

    fn expect_punct(&mut self, p: &str, context: &str) -> Result<Pos, Diag> {
        let t = self.next();
        match &t.tok {
            Tok::Punct(q) if *q == p => Ok(t.pos),
            other => Err(Diag::new(
                t.pos,
                format!("expected `{p}` {context}, found {}", other.describe()),
            )),
        }
    }

    fn ident(&mut self, what: &str) -> Result<Ident, Diag> {
        let t = self.next();
        match t.tok {
            Tok::Ident(name) => Ok(Ident { name, pos: t.pos }),
            other => Err(Diag::new(
                t.pos,
                format!("expected {what}, found {}", other.describe()),
            )),
        }
    }

    fn skip_separators(&mut self) {
        while matches!(self.peek().tok, Tok::Newline | Tok::Punct(";")) {
            self.next();
        }
    }

    /// After a statement or field: a line break, `;`, `}` or the end of the file.
    fn end_of_statement(&mut self) -> Result<(), Diag> {
        let t = self.peek().clone();
        match t.tok {
            Tok::Newline | Tok::Punct(";") | Tok::Punct("}") | Tok::Eof => Ok(()),
            other => Err(Diag::new(
                t.pos,
                format!(
                    "expected the end of the statement (a new line or `;`), found {}",
                    other.describe()
                ),
            )),
        }
    }

    /// Statements until `}` (when `open` is the position of the `{`) or the end of the file.
    fn statements(&mut self, open: Option<Pos>) -> Result<Vec<Stmt>, Diag> {
        self.enter()?;
        let result = self.statements_inner(open);
        self.leave();
        result
    }

    fn statements_inner(&mut self, open: Option<Pos>) -> Result<Vec<Stmt>, Diag> {
        let mut out = Vec::new();
        loop {
            self.skip_separators();
            let t = self.peek().clone();
            match (&t.tok, open) {
                (Tok::Eof, None) => return Ok(out),
                (Tok::Eof, Some(open)) => return Err(unterminated(open)),
                (Tok::Punct("}"), Some(_)) => {
                    self.next();
                    return Ok(out);
                }
                (Tok::Punct("}"), None) => {
                    return Err(Diag::new(t.pos, "`}` without a matching `{`"));
                }
                _ => {}
            }
            out.push(self.statement()?);
            self.end_of_statement()?;
        }
    }

    fn statement(&mut self) -> Result<Stmt, Diag> {
        let kw = self.ident("a statement such as `object` or `joint`")?;
        let pos = kw.pos;
        match kw.name.as_str() {
            "model" => {
                let name = self.ident("the model's name")?;
                let description = self.optional_string();
                Ok(Stmt::Model {
                    name,
                    description,
                    pos,
                })
            }
            "parameters" => {
                let open = self.expect_punct("{", "after `parameters`")?;
                let mut entries = Vec::new();
                loop {
                    self.skip_separators();
                    match self.peek().tok {
                        Tok::Punct("}") => {
                            self.next();
                            break;
                        }
                        Tok::Eof => return Err(unterminated(open)),
                        _ => {}
                    }
                    let name = self.ident("a parameter name")?;
                    self.expect_punct("=", &format!("after the parameter name `{}`", name.name))?;
                    let value = self.value()?;
                    let description = self.optional_string();
                    self.end_of_statement()?;
                    entries.push(ParamDecl {
                        name,
                        value: Some(value),
                        description,
                    });
                }
                Ok(Stmt::Parameters { entries, pos })
            }
            "gravity" => {
                let kind = self.ident("the kind of gravity (`none`, `uniform` or `point`)")?;
                let body = if self.is_punct("{") {
                    Some(self.block()?)
                } else {
                    None
                };
                Ok(Stmt::Gravity { kind, body, pos })
            }
            "experiment" => Ok(Stmt::Experiment {
                body: self.block()?,
                pos,
            }),
            "object" => {
                let name = self.decl_name("the object's name")?;
                Ok(Stmt::Object {
                    name,
                    body: self.block()?,
                    pos,
                })
            }
            "joint" => {
                let name = self.decl_name("the joint's name")?;
                let kind =
                    self.ident("the kind of joint (`revolute`, `prismatic`, `free` or `fixed`)")?;
                Ok(Stmt::Joint {
                    name,
                    kind,
                    body: self.block()?,
                    pos,
                })
            }
            "force" => {
                let name = self.decl_name("the force element's name")?;
                let kind = self
                    .ident("the kind of force element (`spring`, `damper` or `spring_damper`)")?;
                Ok(Stmt::Force {
                    name,
                    kind,
                    body: self.block()?,
                    pos,
                })
            }
            "contact_output" => {
                let name = self.decl_name("the contact output's name")?;
                Ok(Stmt::ContactOutput {
                    name,
                    body: self.block()?,
                    pos,
                })
            }
            "drive" => {
                let name = self.decl_name("the drive's name")?;
                Ok(Stmt::Drive {
                    name,
                    body: self.block()?,
                    pos,
                })
            }
            "contact_pair" => {
                let a = self.ident("the first solid material of the pair")?;
                let b = self.ident("the second solid material of the pair")?;
                Ok(Stmt::ContactPair {
                    materials: [a, b],
                    body: self.block()?,
                    pos,
                })
            }
            "assembly" => {
                let name = self.ident("the assembly's name")?;
                let mut params = Vec::new();
                if self.eat_punct("(") {
                    self.nesting += 1;
                    if !self.is_punct(")") {
                        loop {
                            let pname = self.ident("a parameter name")?;
                            let value = if self.eat_punct("=") {
                                Some(self.value()?)
                            } else {
                                None
                            };
                            let description = self.optional_string();
                            params.push(ParamDecl {
                                name: pname,
                                value,
                                description,
                            });
                            if !self.eat_punct(",") {
                                break;
                            }
                        }
                    }
                    self.nesting -= 1;
                    self.expect_punct(")", "after the assembly's parameters")?;
                }
                let open = self.expect_punct(
                    "{",
                    &format!("to open the body of assembly `{}`", name.name),
                )?;
                let body = self.statements(Some(open))?;
                Ok(Stmt::Assembly {
                    name,
                    params,
                    body,
                    pos,
                })
            }
            "instance" => {
                let name = self.decl_name("the instance's name")?;
                self.expect_punct("=", "after the instance's name")?;
                let assembly = self.ident("the name of an assembly")?;
                let mut args = Vec::new();
                if self.eat_punct("(") {
                    self.nesting += 1;
                    if !self.is_punct(")") {
                        loop {
                            let pname = self.ident("a parameter name")?;
                            self.expect_punct("=", &format!("after `{}`", pname.name))?;
                            args.push((pname, self.value()?));
                            if !self.eat_punct(",") {
                                break;
                            }
                        }
                    }
                    self.nesting -= 1;
                    self.expect_punct(")", "after the instance's arguments")?;
                }
                let body = if self.is_punct("{") {
                    Some(self.block()?)
                } else {
                    None
                };
                Ok(Stmt::Instance {
                    name,
                    assembly,
                    args,
                    body,
                    pos,
                })
            }
            "for" => {
                let var = self.ident("the loop variable")?;
                let t = self.next();
                if t.tok != Tok::Ident("in".into()) {
                    return Err(Diag::new(
                        t.pos,
                        format!(
                            "expected `in` after the loop variable, found {}",
                            t.tok.describe()
                        ),
                    ));
                }
                let start = self.or_expr()?;
                self.expect_punct(":", "between the first and last value of the loop (`1:N`)")?;
                let end = self.or_expr()?;
                let open = self.expect_punct("{", "to open the loop's body")?;
                let body = self.statements(Some(open))?;
                Ok(Stmt::For {
                    var,
                    start,
                    end,
                    body,
                    pos,
                })
            }
            other => Err(Diag::new(pos, format!("unknown statement `{other}`"))
                .with_help(did_you_mean(other, STATEMENTS.iter().copied()))),
        }
    }

    fn optional_string(&mut self) -> Option<String> {
        if let Tok::Str(s) = &self.peek().tok {
            let s = s.clone();
            self.next();
            Some(s)
        } else {
            None
        }
    }

    fn decl_name(&mut self, what: &str) -> Result<DeclName, Diag> {
        let base = self.ident(what)?;
        let mut index = Vec::new();
        if self.is_punct("[") {
            index = self.index_list()?;
        }
        if self.is_punct(".") {
            let pos = self.peek().pos;
            return Err(Diag::new(
                pos,
                "a declared name cannot contain `.`; dotted names come from instances",
            ));
        }
        Ok(DeclName { base, index })
    }

    fn index_list(&mut self) -> Result<Vec<Expr>, Diag> {
        self.expect_punct("[", "")?;
        self.nesting += 1;
        let mut out = vec![self.value()?];
        while self.eat_punct(",") {
            out.push(self.value()?);
        }
        self.nesting -= 1;
        self.expect_punct("]", "after the index")?;
        Ok(out)
    }

    fn block(&mut self) -> Result<Block, Diag> {
        self.enter()?;
        let result = self.block_inner();
        self.leave();
        result
    }

    fn block_inner(&mut self) -> Result<Block, Diag> {
        let open = self.expect_punct("{", "to open a block")?;
        let mut entries = Vec::new();
        loop {
            self.skip_separators();
            match self.peek().tok {
                Tok::Punct("}") => {
                    self.next();
                    return Ok(Block { entries, pos: open });
                }
                Tok::Eof => return Err(unterminated(open)),
                _ => {}
            }
            let name = self.ident("a field name")?;
            if self.eat_punct("=") {
                let value = self.value()?;
                entries.push(Entry::Field { name, value });
            } else {
                let kind = if let Tok::Ident(_) = self.peek().tok {
                    Some(self.ident("")?)
                } else {
                    None
                };
                if !self.is_punct("{") {
                    let t = self.peek().clone();
                    return Err(Diag::new(
                        t.pos,
                        format!(
                            "expected `=` after the field name `{}`, found {}",
                            name.name,
                            t.tok.describe()
                        ),
                    ));
                }
                let body = self.block()?;
                entries.push(Entry::Sub {
                    keyword: name,
                    kind,
                    body,
                });
            }
            self.end_of_statement()?;
        }
    }

    /// An expression with an optional unit after it.
    fn value(&mut self) -> Result<Expr, Diag> {
        if self.values == 0 {
            self.operators = 0;
        }
        self.values += 1;
        let result = self.enter().and_then(|()| self.value_inner());
        self.leave();
        self.values -= 1;
        result
    }

    fn value_inner(&mut self) -> Result<Expr, Diag> {
        let e = self.ternary()?;
        let t = self.peek().clone();
        let unit = match &t.tok {
            Tok::Ident(_) => Some(self.unit()?),
            Tok::Number(v) if *v == 1.0 => {
                self.next();
                Some(UnitRef {
                    text: "1".into(),
                    pos: t.pos,
                })
            }
            _ => None,
        };
        if unit.is_some() {
            let t = self.peek().clone();
            if let Tok::Punct(op @ ("+" | "-" | "*" | "/" | "^")) = t.tok {
                let before = match &e.kind {
                    ExprKind::Num(v) => format!("{v}"),
                    _ => "...".into(),
                };
                let text = unit.as_ref().map(|u| u.text.clone()).unwrap_or_default();
                return Err(Diag::new(
                    t.pos,
                    format!("a unit ends the value: `{op}` cannot follow the unit `{text}`"),
                )
                .with_help(Some(format!(
                    "to compute with values in units, put each in parentheses: `({before} {text}) {op} ...`"
                ))));
            }
        }
        Ok(match unit {
            Some(u) => Expr {
                pos: e.pos,
                kind: ExprKind::WithUnit(Box::new(e), u),
            },
            None => e,
        })
    }

    fn unit(&mut self) -> Result<UnitRef, Diag> {
        let first = self.ident("a unit")?;
        let mut text = first.name;
        while let Tok::Punct(p @ ("." | "/")) = self.peek().tok {
            let next = self.tokens.get(self.at + 1).map(|t| &t.tok);
            if !matches!(next, Some(Tok::Ident(_))) {
                break;
            }
            self.next();
            let part = self.ident("a unit")?;
            text.push_str(p);
            text.push_str(&part.name);
        }
        Ok(UnitRef {
            text,
            pos: first.pos,
        })
    }

    fn ternary(&mut self) -> Result<Expr, Diag> {
        let c = self.or_expr()?;
        if self.eat_punct("?") {
            let a = self.value()?;
            self.expect_punct(":", "between the two choices of `?`")?;
            let b = self.value()?;
            return Ok(Expr {
                pos: c.pos,
                kind: ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b)),
            });
        }
        Ok(c)
    }

    fn binary_level(
        &mut self,
        ops: &[&'static str],
        next: fn(&mut Self) -> Result<Expr, Diag>,
    ) -> Result<Expr, Diag> {
        let mut a = next(self)?;
        loop {
            let op = match &self.peek().tok {
                Tok::Punct(p) => ops.iter().find(|o| *o == p).copied(),
                _ => None,
            };
            let Some(op) = op else { return Ok(a) };
            let pos = self.next().pos;
            self.operators += 1;
            if self.operators > MAX_OPERATORS {
                return Err(Diag::new(
                    pos,
                    format!("this value has more than {MAX_OPERATORS} operators; split it with parameters"),
                ));
            }
            let b = next(self)?;
            a = Expr {
                pos,
                kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
            };
        }
    }

    fn or_expr(&mut self) -> Result<Expr, Diag> {
        self.binary_level(&["||"], Self::and_expr)
    }

    fn and_expr(&mut self) -> Result<Expr, Diag> {
        self.binary_level(&["&&"], Self::cmp_expr)
    }

    fn cmp_expr(&mut self) -> Result<Expr, Diag> {
        self.binary_level(&["<", "<=", ">", ">=", "==", "!="], Self::add_expr)
    }

    fn add_expr(&mut self) -> Result<Expr, Diag> {
        self.binary_level(&["+", "-"], Self::mul_expr)
    }

    fn mul_expr(&mut self) -> Result<Expr, Diag> {
        self.binary_level(&["*", "/"], Self::unary)
    }

    fn unary(&mut self) -> Result<Expr, Diag> {
        self.enter()?;
        let result = self.unary_inner();
        self.leave();
        result
    }

    fn unary_inner(&mut self) -> Result<Expr, Diag> {
        let t = self.peek().clone();
        match t.tok {
            Tok::Punct(op @ ("-" | "!")) => {
                self.next();
                let e = self.unary()?;
                Ok(Expr {
                    pos: t.pos,
                    kind: ExprKind::Unary(op, Box::new(e)),
                })
            }
            Tok::Punct("+") => {
                self.next();
                self.unary()
            }
            _ => self.power(),
        }
    }

    fn power(&mut self) -> Result<Expr, Diag> {
        let base = self.primary()?;
        if self.is_punct("^") {
            let pos = self.next().pos;
            let exp = self.unary()?;
            return Ok(Expr {
                pos,
                kind: ExprKind::Binary("^", Box::new(base), Box::new(exp)),
            });
        }
        Ok(base)
    }

    fn primary(&mut self) -> Result<Expr, Diag> {
        let t = self.next();
        let pos = t.pos;
        match t.tok {
            Tok::Number(v) => Ok(Expr {
                pos,
                kind: ExprKind::Num(v),
            }),
            Tok::Str(s) => Ok(Expr {
                pos,
                kind: ExprKind::Str(s),
            }),
            Tok::Punct("(") => {
                self.nesting += 1;
                let e = self.value()?;
                self.nesting -= 1;
                self.expect_punct(")", "to close `(`")?;
                Ok(e)
            }
            Tok::Punct("[") => {
                self.nesting += 1;
                let mut items = vec![self.value()?];
                while self.eat_punct(",") {
                    items.push(self.value()?);
                }
                self.nesting -= 1;
                self.expect_punct("]", "to close the vector")?;
                Ok(Expr {
                    pos,
                    kind: ExprKind::Vector(items),
                })
            }
            Tok::Ident(name) => {
                if self.is_punct("(") {
                    self.next();
                    self.nesting += 1;
                    let mut args = Vec::new();
                    if !self.is_punct(")") {
                        args.push(self.value()?);
                        while self.eat_punct(",") {
                            args.push(self.value()?);
                        }
                    }
                    self.nesting -= 1;
                    self.expect_punct(")", &format!("to close the arguments of `{name}`"))?;
                    return Ok(Expr {
                        pos,
                        kind: ExprKind::Call(name, args),
                    });
                }
                let mut parts = vec![NamePart {
                    name,
                    index: Vec::new(),
                    pos,
                }];
                loop {
                    if self.is_punct("[") {
                        let index = self.index_list()?;
                        if let Some(last) = parts.last_mut() {
                            last.index = index;
                        }
                    } else if self.is_punct(".")
                        && matches!(
                            self.tokens.get(self.at + 1).map(|t| &t.tok),
                            Some(Tok::Ident(_))
                        )
                    {
                        self.next();
                        let part = self.ident("a name after `.`")?;
                        parts.push(NamePart {
                            name: part.name,
                            index: Vec::new(),
                            pos: part.pos,
                        });
                    } else {
                        break;
                    }
                }
                Ok(Expr {
                    pos,
                    kind: ExprKind::Name(NamePath { parts }),
                })
            }
            other => Err(Diag::new(
                pos,
                format!("expected a value, found {}", other.describe()),
            )),
        }
    }
}

fn unterminated(open: Pos) -> Diag {
    Diag::new(
        open,
        format!(
            "unterminated block: the `{{` at line {} has no matching `}}`",
            open.line
        ),
    )
}
