//! Arithmetic for the `calculate` tool: a `nom` recursive-descent parser that
//! evaluates as it parses, every failure located by character position.
//!
//! Grammar, loosest binding first (`^` and `**` are the same operator):
//!
//! ```text
//! sum     = product (("+" | "-") product)*
//! product = unary (("*" | "/" | "%") unary)*
//! unary   = ("+" | "-") unary | power
//! power   = primary (("^" | "**") unary)?      right-associative: 2^3^2 = 2^9
//! primary = number | "(" sum ")" | name | name "(" sum ("," sum)* ")"
//! ```
//!
//! So `-2^2` is `-(2^2)` and `2^-1` is `0.5`, as in mathematics and Python.
//! Values are `f64`; `/` is true division and `%` the remainder with the sign of
//! the dividend. Nesting is bounded, so no input can exhaust the stack; and since
//! the parser folds values as it goes, a long chain like `1+1+…` builds no tree.

use nom::branch::alt;
use nom::bytes::complete::{tag, take_while};
use nom::character::complete::{char, digit0, digit1, multispace0, one_of, satisfy};
use nom::combinator::{not, opt, value};
use nom::error::{ErrorKind, ParseError};
use nom::sequence::terminated;
use nom::{IResult, Parser};

/// The longest expression accepted, in characters.
pub(crate) const MAX_EXPRESSION_CHARS: usize = 4096;
/// How deeply parentheses, signs, powers and function calls may nest.
const MAX_DEPTH: usize = 64;

/// Why an expression has no value. Positions count characters from 1.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum CalcError {
    /// Something other than what the grammar allows here.
    #[error("syntax error at position {position}: expected {expected}, found {found}")]
    Expected {
        /// Where.
        position: usize,
        /// What the grammar wanted.
        expected: &'static str,
        /// What was there, quoted, or "the end of the expression".
        found: String,
    },
    /// Input left over after a complete expression.
    #[error("syntax error at position {position}: unexpected `{found}`")]
    Unexpected {
        /// Where.
        position: usize,
        /// The first character left over.
        found: char,
    },
    /// A name that is neither a known function nor a constant.
    #[error("unknown function or constant `{name}` at position {position}")]
    UnknownName {
        /// Where the name starts.
        position: usize,
        /// The name.
        name: String,
    },
    /// A function called with the wrong number of arguments.
    #[error("`{name}` at position {position} takes {expected}, got {got}")]
    Arity {
        /// Where the name starts.
        position: usize,
        /// The function.
        name: &'static str,
        /// "1 argument", "at least 1 argument", ...
        expected: &'static str,
        /// How many it got.
        got: usize,
    },
    /// `/`, `%` or a negative power with a zero divisor.
    #[error("division by zero at position {position}")]
    DivisionByZero {
        /// Where the operator is.
        position: usize,
    },
    /// A number or result beyond the range of a 64-bit float.
    #[error("overflow at position {position}: the value is too large")]
    Overflow {
        /// Where the literal or operator is.
        position: usize,
    },
    /// A function or power outside its domain (`sqrt(-1)`, `ln(0)`, `(-8)^(1/3)`).
    #[error("`{operation}` at position {position} has no real value for these operands")]
    NotReal {
        /// The function name or operator.
        operation: &'static str,
        /// Where it is.
        position: usize,
    },
    /// Nesting deeper than the parser allows.
    #[error("expression nests deeper than {max} levels at position {position}")]
    TooDeep {
        /// Where the limit was hit.
        position: usize,
        /// The limit.
        max: usize,
    },
    /// Longer than [`MAX_EXPRESSION_CHARS`].
    #[error("expression is {chars} characters long; the limit is {max}")]
    TooLong {
        /// Its length.
        chars: usize,
        /// The limit.
        max: usize,
    },
}

/// Evaluates an arithmetic expression.
pub(crate) fn evaluate(expression: &str) -> Result<f64, CalcError> {
    let chars = expression.chars().count();
    if chars > MAX_EXPRESSION_CHARS {
        return Err(CalcError::TooLong {
            chars,
            max: MAX_EXPRESSION_CHARS,
        });
    }
    let position = |rest: &str| position_of(expression, rest);
    let outcome = sum(expression, 0).and_then(|(rest, value)| {
        let (rest, _) = multispace0(rest)?;
        Ok((rest, value))
    });
    match outcome {
        Ok(("", value)) => Ok(value),
        Ok((rest, _)) => Err(CalcError::Unexpected {
            position: position(rest),
            found: rest.chars().next().unwrap_or(' '),
        }),
        Err(nom::Err::Error(fault) | nom::Err::Failure(fault)) => {
            let at = position(fault.rest);
            Err(fault.into_error(at))
        }
        // Complete-input parsers never ask for more; say so rather than panic.
        Err(nom::Err::Incomplete(_)) => Err(CalcError::Expected {
            position: chars + 1,
            expected: "more input",
            found: "the end of the expression".into(),
        }),
    }
}

/// The 1-based character position at which `rest` starts inside `whole`.
fn position_of(whole: &str, rest: &str) -> usize {
    let consumed = whole.len().saturating_sub(rest.len());
    whole.get(..consumed).map_or(0, |s| s.chars().count()) + 1
}

/// A parse or evaluation failure, at the input where it happened.
#[derive(Debug)]
struct Fault<'a> {
    rest: &'a str,
    problem: Problem,
}

#[derive(Debug)]
enum Problem {
    Expected(&'static str),
    UnknownName(String),
    Arity {
        name: &'static str,
        expected: &'static str,
        got: usize,
    },
    DivisionByZero,
    Overflow,
    NotReal(&'static str),
    TooDeep,
}

impl Fault<'_> {
    fn into_error(self, position: usize) -> CalcError {
        match self.problem {
            Problem::Expected(expected) => CalcError::Expected {
                position,
                expected,
                found: match self.rest.chars().next() {
                    Some(c) => format!("`{c}`"),
                    None => "the end of the expression".into(),
                },
            },
            Problem::UnknownName(name) => CalcError::UnknownName { position, name },
            Problem::Arity {
                name,
                expected,
                got,
            } => CalcError::Arity {
                position,
                name,
                expected,
                got,
            },
            Problem::DivisionByZero => CalcError::DivisionByZero { position },
            Problem::Overflow => CalcError::Overflow { position },
            Problem::NotReal(operation) => CalcError::NotReal {
                operation,
                position,
            },
            Problem::TooDeep => CalcError::TooDeep {
                position,
                max: MAX_DEPTH,
            },
        }
    }
}

impl<'a> ParseError<&'a str> for Fault<'a> {
    fn from_error_kind(rest: &'a str, kind: ErrorKind) -> Self {
        let expected = match kind {
            ErrorKind::Char => "a character",
            ErrorKind::Digit => "a digit",
            _ => "something else",
        };
        Fault {
            rest,
            problem: Problem::Expected(expected),
        }
    }

    fn append(_: &'a str, _: ErrorKind, other: Self) -> Self {
        other
    }

    fn or(self, other: Self) -> Self {
        // Report the branch that got furthest.
        if other.rest.len() < self.rest.len() {
            other
        } else {
            self
        }
    }
}

type Res<'a, T> = IResult<&'a str, T, Fault<'a>>;

fn fail<T>(rest: &str, problem: Problem) -> Res<'_, T> {
    Err(nom::Err::Failure(Fault { rest, problem }))
}

/// `value` unless it left the finite range.
fn finite<'a>(
    value: f64,
    at: &'a str,
    operation: &'static str,
) -> Result<f64, nom::Err<Fault<'a>>> {
    if value.is_nan() {
        Err(nom::Err::Failure(Fault {
            rest: at,
            problem: Problem::NotReal(operation),
        }))
    } else if value.is_infinite() {
        Err(nom::Err::Failure(Fault {
            rest: at,
            problem: Problem::Overflow,
        }))
    } else {
        Ok(value)
    }
}

fn sum(input: &str, depth: usize) -> Res<'_, f64> {
    let (mut rest, mut acc) = product(input, depth)?;
    loop {
        let (at_op, _) = multispace0(rest)?;
        let Ok((after_op, op)) = one_of::<_, _, Fault>("+-")(at_op) else {
            return Ok((rest, acc));
        };
        let (next, rhs) = product(after_op, depth)?;
        acc = if op == '+' {
            finite(acc + rhs, at_op, "+")?
        } else {
            finite(acc - rhs, at_op, "-")?
        };
        rest = next;
    }
}

fn product_operator(input: &str) -> Res<'_, char> {
    alt((terminated(char('*'), not(char('*'))), char('/'), char('%'))).parse(input)
}

fn product(input: &str, depth: usize) -> Res<'_, f64> {
    let (mut rest, mut acc) = unary(input, depth)?;
    loop {
        let (at_op, _) = multispace0(rest)?;
        let Ok((after_op, op)) = product_operator(at_op) else {
            return Ok((rest, acc));
        };
        let (next, rhs) = unary(after_op, depth)?;
        acc = match op {
            '*' => finite(acc * rhs, at_op, "*")?,
            _ if rhs == 0.0 => return fail(at_op, Problem::DivisionByZero),
            '/' => finite(acc / rhs, at_op, "/")?,
            _ => finite(acc % rhs, at_op, "%")?,
        };
        rest = next;
    }
}

fn unary(input: &str, depth: usize) -> Res<'_, f64> {
    let (at, _) = multispace0(input)?;
    if depth > MAX_DEPTH {
        return fail(at, Problem::TooDeep);
    }
    match one_of::<_, _, Fault>("+-")(at) {
        Ok((after, sign)) => {
            let (rest, value) = unary(after, depth + 1)?;
            Ok((rest, if sign == '-' { -value } else { value }))
        }
        Err(_) => power(at, depth),
    }
}

fn power(input: &str, depth: usize) -> Res<'_, f64> {
    let (rest, base) = primary(input, depth)?;
    let (at_op, _) = multispace0(rest)?;
    let Ok((after_op, _)) = alt((tag::<_, _, Fault>("**"), tag("^"))).parse(at_op) else {
        return Ok((rest, base));
    };
    let (rest, exponent) = unary(after_op, depth + 1)?;
    if base == 0.0 && exponent < 0.0 {
        return fail(at_op, Problem::DivisionByZero);
    }
    Ok((rest, finite(base.powf(exponent), at_op, "^")?))
}

/// `12`, `3.5`, `.5`, `1e3`, `2.5E-4`.
///
/// The matched text is sliced by hand rather than with `recognize`: in nom
/// 8.0.0, `recognize` over `digit0` at the very end of the input returns a
/// short slice (`recognize(digit0)` on `"22"` gives `""`), which would turn
/// `1.5+2.5` into `1.5+2.`.
fn number_literal(input: &str) -> Res<'_, &str> {
    let exponent = || (one_of("eE"), opt(one_of("+-")), digit1);
    let (rest, ()) = alt((
        value((), (digit1, opt((char('.'), digit0)), opt(exponent()))),
        value((), (char('.'), digit1, opt(exponent()))),
    ))
    .parse(input)?;
    let consumed = input.len() - rest.len();
    Ok((rest, &input[..consumed]))
}

fn identifier(input: &str) -> Res<'_, &str> {
    let (rest, ()) = value(
        (),
        (
            satisfy(|c| c.is_ascii_alphabetic()),
            take_while(|c: char| c.is_ascii_alphanumeric() || c == '_'),
        ),
    )
    .parse(input)?;
    let consumed = input.len() - rest.len();
    Ok((rest, &input[..consumed]))
}

fn primary(input: &str, depth: usize) -> Res<'_, f64> {
    let (at, _) = multispace0(input)?;
    if let Ok((rest, literal)) = number_literal(at) {
        return match literal.parse::<f64>() {
            Ok(value) if value.is_finite() => Ok((rest, value)),
            Ok(_) => fail(at, Problem::Overflow),
            Err(_) => fail(at, Problem::Expected("a number")),
        };
    }
    if let Ok((after, _)) = char::<_, Fault>('(')(at) {
        let (rest, value) = sum(after, depth + 1)?;
        let (rest, _) = multispace0(rest)?;
        return match char::<_, Fault>(')')(rest) {
            Ok((rest, _)) => Ok((rest, value)),
            Err(_) => fail(rest, Problem::Expected("an operator or `)`")),
        };
    }
    if let Ok((rest, name)) = identifier(at) {
        if let Some(value) = constant(name) {
            return Ok((rest, value));
        }
        let (after_ws, _) = multispace0(rest)?;
        if let Ok((after_paren, _)) = char::<_, Fault>('(')(after_ws) {
            return call(at, name, after_paren, depth);
        }
        return if function(name).is_some() {
            fail(after_ws, Problem::Expected("`(` after a function name"))
        } else {
            fail(at, Problem::UnknownName(name.to_owned()))
        };
    }
    fail(at, Problem::Expected("a number, `(` or a function name"))
}

/// Parses the arguments of `name(` and applies the function.
fn call<'a>(at_name: &'a str, name: &str, input: &'a str, depth: usize) -> Res<'a, f64> {
    let Some((canonical, function)) = function(name) else {
        return fail(at_name, Problem::UnknownName(name.to_owned()));
    };
    let mut args = Vec::new();
    let (mut rest, first) = sum(input, depth + 1)?;
    args.push(first);
    loop {
        let (at, _) = multispace0(rest)?;
        if let Ok((after, _)) = char::<_, Fault>(',')(at) {
            let (next, value) = sum(after, depth + 1)?;
            args.push(value);
            rest = next;
        } else if let Ok((after, _)) = char::<_, Fault>(')')(at) {
            rest = after;
            break;
        } else {
            return fail(at, Problem::Expected("`,` or `)`"));
        }
    }
    let value = match function {
        Function::One(f) => match args.as_slice() {
            [x] => f(*x),
            _ => {
                return fail(
                    at_name,
                    Problem::Arity {
                        name: canonical,
                        expected: "1 argument",
                        got: args.len(),
                    },
                );
            }
        },
        Function::Two(f) => match args.as_slice() {
            [x, y] => f(*x, *y),
            _ => {
                return fail(
                    at_name,
                    Problem::Arity {
                        name: canonical,
                        expected: "2 arguments",
                        got: args.len(),
                    },
                );
            }
        },
        Function::Fold(f) => args.iter().copied().reduce(f).unwrap_or(f64::NAN),
    };
    if value.is_finite() {
        Ok((rest, value))
    } else {
        fail(at_name, Problem::NotReal(canonical))
    }
}

fn constant(name: &str) -> Option<f64> {
    match name {
        "pi" => Some(std::f64::consts::PI),
        "e" => Some(std::f64::consts::E),
        _ => None,
    }
}

#[derive(Clone, Copy)]
enum Function {
    One(fn(f64) -> f64),
    Two(fn(f64, f64) -> f64),
    /// One or more arguments, folded pairwise.
    Fold(fn(f64, f64) -> f64),
}

/// The functions, by name.
const FUNCTIONS: &[(&str, Function)] = &[
    ("abs", Function::One(f64::abs)),
    ("sqrt", Function::One(f64::sqrt)),
    ("cbrt", Function::One(f64::cbrt)),
    ("floor", Function::One(f64::floor)),
    ("ceil", Function::One(f64::ceil)),
    ("round", Function::One(f64::round)),
    ("trunc", Function::One(f64::trunc)),
    ("exp", Function::One(f64::exp)),
    ("ln", Function::One(f64::ln)),
    ("log10", Function::One(f64::log10)),
    ("log2", Function::One(f64::log2)),
    ("sin", Function::One(f64::sin)),
    ("cos", Function::One(f64::cos)),
    ("tan", Function::One(f64::tan)),
    ("asin", Function::One(f64::asin)),
    ("acos", Function::One(f64::acos)),
    ("atan", Function::One(f64::atan)),
    ("pow", Function::Two(f64::powf)),
    ("log", Function::Two(|x, base| x.log(base))),
    ("min", Function::Fold(f64::min)),
    ("max", Function::Fold(f64::max)),
];

/// The names `calculate` documents.
pub(crate) fn function_names() -> impl Iterator<Item = &'static str> {
    FUNCTIONS.iter().map(|(name, _)| *name)
}

fn function(name: &str) -> Option<(&'static str, Function)> {
    FUNCTIONS
        .iter()
        .find(|(candidate, _)| *candidate == name)
        .map(|(name, f)| (*name, *f))
}

/// Formats a result plainly: integers without a fraction (`51`), others with
/// at most 15 significant digits so that `0.1+0.2` reads `0.3`, and very large
/// or very small magnitudes in exponent form (`1e300`).
pub(crate) fn format_number(value: f64) -> String {
    if value == 0.0 {
        return "0".into();
    }
    // Round to 15 significant digits: the precision f64 carries reliably.
    let rounded: f64 = format!("{value:.14e}").parse().unwrap_or(value);
    let magnitude = rounded.abs();
    if (1e-7..1e16).contains(&magnitude) {
        format!("{rounded}")
    } else {
        format!("{rounded:e}")
    }
}
