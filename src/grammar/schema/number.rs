//! Integers and numbers, bounds enforced as digit rules: a range `[lo, hi]`
//! becomes alternatives over decimal digit strings (the construction
//! llguidance and XGrammar use), so `minimum`/`maximum` hold without
//! enumerating values. Exponents are written only for unbounded numbers.

use super::super::ir::{CharClass, Node};

/// The most digits of an integer part (and of a fraction): 15 digits fit an
/// `f64` and an `i64` exactly.
pub(crate) const MAX_DIGITS: u32 = 15;

fn digit() -> Node {
    Node::Class(CharClass::of(&[('0', '9')]))
}

fn digits(n: u32) -> Node {
    Node::repeat(digit(), n, Some(n))
}

/// One digit from `a` to `b` (`a <= b`).
fn digit_range(a: u8, b: u8) -> Node {
    if a == b {
        return Node::char((b'0' + a) as char);
    }
    Node::Class(CharClass::of(&[((b'0' + a) as char, (b'0' + b) as char)]))
}

/// Digit strings of `s.len()` digits, numerically at least `s` (leading
/// zeros allowed: this is a suffix).
fn at_least(s: &[u8]) -> Node {
    let Some((&first, rest)) = s.split_first() else {
        return Node::Empty;
    };
    if s.iter().all(|&d| d == 0) {
        return digits(s.len() as u32);
    }
    let mut options = vec![Node::seq([
        Node::char((b'0' + first) as char),
        at_least(rest),
    ])];
    if first < 9 {
        options.push(Node::seq([
            digit_range(first + 1, 9),
            digits(rest.len() as u32),
        ]));
    }
    Node::alt(options)
}

/// Digit strings of `s.len()` digits, numerically at most `s`.
fn at_most(s: &[u8]) -> Node {
    let Some((&first, rest)) = s.split_first() else {
        return Node::Empty;
    };
    if s.iter().all(|&d| d == 9) {
        return digits(s.len() as u32);
    }
    let mut options = vec![Node::seq([
        Node::char((b'0' + first) as char),
        at_most(rest),
    ])];
    if first > 0 {
        options.push(Node::seq([
            digit_range(0, first - 1),
            digits(rest.len() as u32),
        ]));
    }
    Node::alt(options)
}

/// Digit strings of the same length as `a` and `b`, from `a` to `b`.
fn between(a: &[u8], b: &[u8]) -> Node {
    let common = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    if common == a.len() {
        return Node::lit(text(a));
    }
    let (x, y) = (a[common], b[common]);
    let rest = (a.len() - common - 1) as u32;
    let mut options = vec![Node::seq([
        Node::char((b'0' + x) as char),
        at_least(&a[common + 1..]),
    ])];
    if x + 1 < y {
        options.push(Node::seq([digit_range(x + 1, y - 1), digits(rest)]));
    }
    options.push(Node::seq([
        Node::char((b'0' + y) as char),
        at_most(&b[common + 1..]),
    ]));
    Node::seq([Node::lit(text(&a[..common])), Node::alt(options)])
}

fn text(d: &[u8]) -> String {
    d.iter().map(|&x| (b'0' + x) as char).collect()
}

fn decimal(n: u128) -> Vec<u8> {
    n.to_string().bytes().map(|b| b - b'0').collect()
}

/// Decimal naturals from `lo` to `hi` (unbounded above when `None`, then
/// at most [`MAX_DIGITS`] digits), without leading zeros; `None` when the
/// range is empty.
pub(crate) fn natural_range(lo: u128, hi: Option<u128>) -> Option<Node> {
    let cap = 10u128.pow(MAX_DIGITS) - 1;
    let hi = hi.map_or(cap, |h| h.min(cap.max(lo)));
    if hi < lo {
        return None;
    }
    if lo == 0 {
        let rest = natural_range(1, Some(hi));
        return Some(match rest {
            Some(rest) => Node::alt(vec![Node::lit("0"), rest]),
            None => Node::lit("0"),
        });
    }
    let (a, b) = (decimal(lo), decimal(hi));
    if a.len() == b.len() {
        return Some(between(&a, &b));
    }
    let mut options = vec![between(&a, &vec![9; a.len()])];
    let (m, n) = (a.len() as u32, b.len() as u32);
    if n > m + 1 {
        options.push(Node::seq([
            digit_range(1, 9),
            Node::repeat(digit(), m, Some(n - 2)),
        ]));
    }
    let mut first = vec![0; b.len()];
    first[0] = 1;
    options.push(between(&first, &b));
    Some(Node::alt(options))
}

/// Decimal integers from `lo` to `hi` (each unbounded when `None`); `None`
/// when the range is empty.
pub(crate) fn integer_range(lo: Option<i128>, hi: Option<i128>) -> Option<Node> {
    let mut options = Vec::new();
    // Negative: magnitudes from max(1, -hi) to -lo.
    if lo.is_none_or(|l| l < 0) {
        let from = match hi {
            Some(h) if h < 0 => h.unsigned_abs(),
            _ => 1,
        };
        let to = lo.map(i128::unsigned_abs);
        if let Some(mag) = natural_range(from, to) {
            options.push(Node::seq([Node::lit("-"), mag]));
        }
    }
    if hi.is_none_or(|h| h >= 0) {
        let from = lo.map_or(0, |l| l.max(0).unsigned_abs());
        let to = hi.map(i128::unsigned_abs);
        if let Some(n) = natural_range(from, to) {
            options.push(n);
        }
    }
    (!options.is_empty()).then(|| Node::alt(options))
}

/// A fraction whose last digit is not zero: `n.f` lies strictly between
/// `n` and `n + 1`.
fn strict_fraction() -> Node {
    Node::seq([
        Node::lit("."),
        Node::repeat(digit(), 0, Some(MAX_DIGITS - 1)),
        digit_range(1, 9),
    ])
}

/// A numeric bound of a schema.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Bound {
    pub(crate) value: f64,
    pub(crate) exclusive: bool,
}

/// The integer nearest inside a lower bound.
pub(crate) fn int_lower(b: Bound) -> Option<i128> {
    let v = if b.exclusive && b.value.fract() == 0.0 {
        b.value + 1.0
    } else {
        b.value.ceil()
    };
    to_i128(v)
}

/// The integer nearest inside an upper bound.
pub(crate) fn int_upper(b: Bound) -> Option<i128> {
    let v = if b.exclusive && b.value.fract() == 0.0 {
        b.value - 1.0
    } else {
        b.value.floor()
    };
    to_i128(v)
}

fn to_i128(v: f64) -> Option<i128> {
    (v.is_finite() && v.abs() < 1e30).then_some(v as i128)
}

/// Numbers within the bounds: integers of the range, and `n.f` (or
/// `-n.f`) where the whole open interval around it is inside. Values with a
/// fraction next to a non-integer bound are left out (narrowed, never
/// outside the bounds); `None` when nothing is left.
pub(crate) fn number_range(lo: Option<Bound>, hi: Option<Bound>) -> Option<Node> {
    let ilo = lo.and_then(int_lower);
    let ihi = hi.and_then(int_upper);
    if lo.is_some() && ilo.is_none() || hi.is_some() && ihi.is_none() {
        return None;
    }
    let mut options = Vec::new();
    if let Some(ints) = integer_range(ilo, ihi) {
        options.push(ints);
    }
    // n.f with n >= 0: needs n >= lo and n + 1 <= hi.
    let pos_lo = lo.map_or(0, |b| (b.value.ceil() as i128).max(0));
    let pos_hi = hi.map(|b| b.value.floor() as i128 - 1);
    if pos_hi.is_none_or(|h| h >= pos_lo)
        && let Some(n) = natural_range(pos_lo.unsigned_abs(), pos_hi.map(i128::unsigned_abs))
    {
        options.push(Node::seq([n, strict_fraction()]));
    }
    // -n.f: needs -(n + 1) >= lo and -n <= hi.
    let neg_lo = hi.map_or(0, |b| ((-b.value).ceil() as i128).max(0));
    let neg_hi = lo.map(|b| (-b.value).floor() as i128 - 1);
    if neg_hi.is_none_or(|h| h >= neg_lo)
        && let Some(n) = natural_range(neg_lo.unsigned_abs(), neg_hi.map(i128::unsigned_abs))
    {
        options.push(Node::seq([Node::lit("-"), n, strict_fraction()]));
    }
    (!options.is_empty()).then(|| Node::alt(options))
}

/// Any integer: `-?(0|[1-9][0-9]{0,14})`.
pub(crate) fn any_integer() -> Node {
    integer_range(None, None).unwrap_or(Node::lit("0"))
}

/// Any number: an integer part, an optional fraction and exponent.
pub(crate) fn any_number() -> Node {
    Node::seq([
        Node::opt(Node::lit("-")),
        natural_range(0, None).unwrap_or(Node::lit("0")),
        Node::opt(Node::seq([
            Node::lit("."),
            Node::repeat(digit(), 1, Some(MAX_DIGITS)),
        ])),
        Node::opt(Node::seq([
            Node::Class(CharClass::of(&[('e', 'e'), ('E', 'E')])),
            Node::opt(Node::Class(CharClass::of(&[('-', '-'), ('+', '+')]))),
            Node::repeat(digit(), 1, Some(2)),
        ])),
    ])
}
