//! Unit tests of the built-in tools' pure parts: arithmetic and file patterns.
//! Every expected value is worked out by hand.
#![allow(clippy::unwrap_used)]

use super::expr::{CalcError, evaluate, format_number};
use super::search::FilePattern;

/// Evaluates and formats, as the `calculate` tool shows the result.
fn check(expression: &str, expect: &str) {
    match evaluate(expression) {
        Ok(value) => assert_eq!(format_number(value), expect, "{expression}"),
        Err(e) => panic!("{expression}: unexpected error {e}"),
    }
}

fn check_err(expression: &str, expect: CalcError) {
    assert_eq!(evaluate(expression), Err(expect), "{expression}");
}

#[test]
fn precedence_and_associativity() {
    check("(12+5)*3", "51");
    check("7/2", "3.5");
    check("2+3*4", "14");
    check("2*3+4", "10");
    check("10-4-3", "3");
    check("3 - 2 - 1", "0");
    check("100/10/5", "2");
    check("10 / 4 * 2", "5");
    check("2^3^2", "512");
    check("2**3", "8");
    check("2 ** 3 ** 2", "512");
    check("-2^2", "-4");
    check("(-2)^2", "4");
    check("2^-1", "0.5");
    check("-(3+4)*2", "-14");
    check("2 - -3", "5");
    check("+4", "4");
    check("7 % 3", "1");
    check("-7 % 3", "-1");
    check("7.5 % 2", "1.5");
    check("  3 +\t4 ", "7");
}

#[test]
fn numbers_functions_and_constants() {
    check("0.1+0.2", "0.3");
    // A literal with a fraction at the very end (a nom 8.0.0 `recognize` pitfall).
    check("1.5+2.5", "4");
    check("2*3.25", "6.5");
    check("22", "22");
    check_err(
        "3 * max_val2",
        CalcError::UnknownName {
            position: 5,
            name: "max_val2".into(),
        },
    );
    check("1.5e3 + .5", "1500.5");
    check("2.5E-1 * 4", "1");
    check("sqrt(16) + abs(-3)", "7");
    check("max(1, 7, 3) - min(4, 2)", "5");
    check("min(9)", "9");
    check("pow(2, 10)", "1024");
    check("log(8, 2)", "3");
    check("floor(2.7) + ceil(2.1) + round(2.5) + trunc(-2.7)", "6");
    // 2π = 6.283185307179586…, shown with 15 significant digits.
    check("2 * pi", "6.28318530717959");
    check("ln(e)", "1");
    check("sqrt (9)", "3");
    check("1e20", "1e20");
    check("1 / 1e9", "1e-9");
    check("123456789 * 1000", "123456789000");
    check("-0", "0");
}

#[test]
fn nesting_is_bounded() {
    let ok = format!("{}1{}", "(".repeat(64), ")".repeat(64));
    check(&ok, "1");
    // The 65th `(` opens depth 65, so the parser stops at the character after it.
    let deep = format!("{}1{}", "(".repeat(70), ")".repeat(70));
    check_err(
        &deep,
        CalcError::TooDeep {
            position: 66,
            max: 64,
        },
    );
    let signs = format!("{}1", "-".repeat(200));
    assert!(matches!(evaluate(&signs), Err(CalcError::TooDeep { .. })));
    let long = "1+".repeat(3000) + "1";
    check_err(
        &long,
        CalcError::TooLong {
            chars: 6001,
            max: 4096,
        },
    );
    // A long flat chain is fine: it is folded, not nested.
    let chain = "1+".repeat(2000) + "1";
    check(&chain, "2001");
}

#[test]
fn arithmetic_errors_name_the_position() {
    check_err("1/0", CalcError::DivisionByZero { position: 2 });
    check_err("5 % (2-2)", CalcError::DivisionByZero { position: 3 });
    check_err("0^-1", CalcError::DivisionByZero { position: 2 });
    check_err("10^400", CalcError::Overflow { position: 3 });
    check_err("1e999", CalcError::Overflow { position: 1 });
    check_err("1e308 * 10", CalcError::Overflow { position: 7 });
    check_err(
        "sqrt(-1)",
        CalcError::NotReal {
            operation: "sqrt",
            position: 1,
        },
    );
    check_err(
        "(-8)^(1/3)",
        CalcError::NotReal {
            operation: "^",
            position: 5,
        },
    );
    check_err(
        "ln(0)",
        CalcError::NotReal {
            operation: "ln",
            position: 1,
        },
    );
}

#[test]
fn syntax_errors_name_the_position() {
    check_err(
        "",
        CalcError::Expected {
            position: 1,
            expected: "a number, `(` or a function name",
            found: "the end of the expression".into(),
        },
    );
    check_err(
        "2 +",
        CalcError::Expected {
            position: 4,
            expected: "a number, `(` or a function name",
            found: "the end of the expression".into(),
        },
    );
    check_err(
        "2 + * 3",
        CalcError::Expected {
            position: 5,
            expected: "a number, `(` or a function name",
            found: "`*`".into(),
        },
    );
    check_err(
        "(1+2",
        CalcError::Expected {
            position: 5,
            expected: "an operator or `)`",
            found: "the end of the expression".into(),
        },
    );
    check_err(
        "(1+2))",
        CalcError::Unexpected {
            position: 6,
            found: ')',
        },
    );
    check_err(
        "2 3",
        CalcError::Unexpected {
            position: 3,
            found: '3',
        },
    );
    check_err(
        "2 × 3",
        CalcError::Unexpected {
            position: 3,
            found: '×',
        },
    );
    check_err(
        "2e",
        CalcError::Unexpected {
            position: 2,
            found: 'e',
        },
    );
    check_err(
        "foo(2)",
        CalcError::UnknownName {
            position: 1,
            name: "foo".into(),
        },
    );
    check_err(
        "3 * x",
        CalcError::UnknownName {
            position: 5,
            name: "x".into(),
        },
    );
    check_err(
        "sqrt 4",
        CalcError::Expected {
            position: 6,
            expected: "`(` after a function name",
            found: "`4`".into(),
        },
    );
    check_err(
        "sqrt(1, 2)",
        CalcError::Arity {
            position: 1,
            name: "sqrt",
            expected: "1 argument",
            got: 2,
        },
    );
    check_err(
        "max(1 2)",
        CalcError::Expected {
            position: 7,
            expected: "`,` or `)`",
            found: "`2`".into(),
        },
    );
    check_err(
        "pi(2)",
        CalcError::Unexpected {
            position: 3,
            found: '(',
        },
    );
}

#[test]
fn error_messages_read_well() {
    let msg = |e: &str| evaluate(e).map(|_| ()).unwrap_err().to_string();
    assert_eq!(msg("1/0"), "division by zero at position 2");
    assert_eq!(
        msg("2 + * 3"),
        "syntax error at position 5: expected a number, `(` or a function name, found `*`"
    );
    assert_eq!(msg("(1+2))"), "syntax error at position 6: unexpected `)`");
}

#[test]
fn file_patterns() {
    let cases: &[(&str, &str, bool)] = &[
        ("*.rs", "src/main.rs", true),
        ("*.rs", "main.rs", true),
        ("*.rs", "src/main.rst", false),
        ("*.{rs,toml}", "Cargo.toml", true),
        ("*.{rs,toml}", "src/lib.rs", true),
        ("*.{rs,toml}", "README.md", false),
        ("ma?n.rs", "src/main.rs", true),
        ("src/*.rs", "src/main.rs", true),
        ("src/*.rs", "src/bin/x.rs", false),
        ("src/**/*.rs", "src/main.rs", true),
        ("src/**/*.rs", "src/bin/x.rs", true),
        ("src/**/*.rs", "tests/x.rs", false),
        ("**/*.md", "notes/todo.md", true),
        ("**/*.md", "top.md", true),
        ("a+b.txt", "a+b.txt", true),
        ("a+b.txt", "aab.txt", false),
    ];
    for (glob, path, expect) in cases {
        let pattern = FilePattern::new(glob).unwrap();
        assert_eq!(pattern.matches(path), *expect, "{glob} vs {path}");
    }
    for bad in ["*.{rs", "{a,{b}}"] {
        let err = FilePattern::new(bad).unwrap_err();
        assert!(err.message().contains("invalid file_pattern"), "{err}");
    }
}

mod properties {
    use proptest::prelude::*;

    use super::super::expr::evaluate;

    /// A small expression tree with its exact integer value as the oracle.
    #[derive(Debug, Clone)]
    enum Tree {
        Leaf(i64),
        Op(char, Box<Tree>, Box<Tree>),
        Neg(Box<Tree>),
    }

    impl Tree {
        fn value(&self) -> i64 {
            match self {
                Tree::Leaf(n) => *n,
                Tree::Neg(t) => -t.value(),
                Tree::Op('+', a, b) => a.value() + b.value(),
                Tree::Op('-', a, b) => a.value() - b.value(),
                Tree::Op(_, a, b) => a.value() * b.value(),
            }
        }

        /// Fully parenthesised, with the given spacing.
        fn render(&self, space: &str) -> String {
            match self {
                Tree::Leaf(n) => n.to_string(),
                Tree::Neg(t) => format!("-({})", t.render(space)),
                Tree::Op(op, a, b) => {
                    format!("({}{space}{op}{space}{})", a.render(space), b.render(space))
                }
            }
        }
    }

    fn tree() -> impl Strategy<Value = Tree> {
        (0i64..10)
            .prop_map(Tree::Leaf)
            .prop_recursive(3, 16, 2, |inner| {
                prop_oneof![
                    (
                        prop::sample::select(vec!['+', '-', '*']),
                        inner.clone(),
                        inner.clone()
                    )
                        .prop_map(|(op, a, b)| Tree::Op(
                            op,
                            Box::new(a),
                            Box::new(b)
                        )),
                    inner.prop_map(|t| Tree::Neg(Box::new(t))),
                ]
            })
    }

    proptest! {
        #[test]
        fn parenthesised_integer_arithmetic_matches_the_oracle(
            t in tree(),
            space in prop::sample::select(vec!["", " ", "\t"]),
        ) {
            let text = t.render(space);
            prop_assert_eq!(evaluate(&text), Ok(t.value() as f64), "{}", text);
        }

        #[test]
        fn flat_chains_fold_left(
            first in 0i64..1000,
            rest in prop::collection::vec((prop::sample::select(vec!['+', '-']), 0i64..1000), 0..40),
        ) {
            let mut text = first.to_string();
            let mut expect = first;
            for (op, n) in &rest {
                text.push(*op);
                text.push_str(&n.to_string());
                expect = if *op == '+' { expect + n } else { expect - n };
            }
            prop_assert_eq!(evaluate(&text), Ok(expect as f64), "{}", text);
        }

        #[test]
        fn any_input_gives_a_value_or_an_error(text in "[0-9.eE+*/%^() ,a-z-]{0,300}") {
            // Whatever the input, evaluation returns; a finite value if Ok.
            if let Ok(value) = evaluate(&text) {
                prop_assert!(value.is_finite());
            }
        }
    }
}
