//! The writers' output for small cases, the bounds the converter enforces
//! (checked against a naive matcher over the grammar's representation), the
//! budget, the errors and the cache.

use serde_json::{Value, json};

use super::super::ir::{Grammar, Node};
use super::super::schema::{Converter, Syntax};
use super::super::text::text_without;
use super::derive::Deriver;
use crate::core::{JsonObject, WireFormat};
use crate::grammar::{
    GrammarCache, GrammarError, GrammarLimits, GrammarOptions, GrammarTool, ToolChoice,
    build_grammar,
};

/// The end positions `node` can reach from `at` in `s` (a naive matcher,
/// the oracle of the converter's rules).
fn ends(g: &Grammar, node: &Node, s: &str, at: usize) -> Vec<usize> {
    let mut out = match node {
        Node::Empty => vec![at],
        Node::Lit(l) => {
            if s[at..].starts_with(l.as_str()) {
                vec![at + l.len()]
            } else {
                vec![]
            }
        }
        Node::Class(c) => match s[at..].chars().next() {
            Some(ch) if c.contains(ch) => vec![at + ch.len_utf8()],
            _ => vec![],
        },
        Node::Seq(parts) => {
            let mut here = vec![at];
            for part in parts {
                let mut next: Vec<usize> = here.iter().flat_map(|&p| ends(g, part, s, p)).collect();
                next.sort_unstable();
                next.dedup();
                here = next;
            }
            here
        }
        Node::Alt(options) => options.iter().flat_map(|o| ends(g, o, s, at)).collect(),
        Node::Repeat { node, min, max } => {
            let mut out = Vec::new();
            let mut here = vec![at];
            let mut n = 0;
            loop {
                if n >= *min {
                    out.extend(&here);
                }
                if max.is_some_and(|m| n >= m) || here.is_empty() || n > s.len() as u32 + 1 {
                    break;
                }
                let mut next: Vec<usize> = here.iter().flat_map(|&p| ends(g, node, s, p)).collect();
                next.sort_unstable();
                next.dedup();
                next.retain(|&p| !here.contains(&p) || p > at);
                here = next;
                n += 1;
            }
            out
        }
        Node::Rule(id) => ends(g, &g.get(*id).body, s, at),
        Node::Text { lowered, .. } => ends(g, &g.get(*lowered).body, s, at),
        Node::Mark(_, inner) => ends(g, inner, s, at),
    };
    out.sort_unstable();
    out.dedup();
    out
}

fn matches(g: &Grammar, node: &Node, s: &str) -> bool {
    ends(g, node, s, 0).contains(&s.len())
}

/// The value grammar of `schema` in `syntax`.
fn value(schema: Value, syntax: Syntax) -> (Grammar, Node) {
    let mut g = Grammar::with_budget(1_000_000);
    let root = schema.as_object().cloned().unwrap_or_default();
    let node = Converter::new(
        &mut g,
        WireFormat::Hermes,
        "t",
        &root,
        GrammarLimits::default(),
    )
    .value(&schema, syntax)
    .expect("converts");
    (g, node)
}

#[test]
fn integer_bounds_are_exact() {
    for (lo, hi) in [
        (-5, 1000),
        (0, 9),
        (7, 7),
        (-120, -3),
        (95, 10_050),
        (1, 14),
    ] {
        let (g, node) = value(
            json!({"type": "integer", "minimum": lo, "maximum": hi}),
            Syntax::Json,
        );
        for n in (lo - 200)..=(hi + 200) {
            assert_eq!(
                matches(&g, &node, &n.to_string()),
                (lo..=hi).contains(&n),
                "{n} in [{lo}, {hi}]"
            );
        }
        assert!(!matches(&g, &node, "007"), "no leading zeros");
    }
    let (g, node) = value(
        json!({"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 10}),
        Syntax::Json,
    );
    let inside: Vec<i64> = (-20..30)
        .filter(|n| matches(&g, &node, &n.to_string()))
        .collect();
    assert_eq!(inside, (1..10).collect::<Vec<_>>());
}

#[test]
fn number_bounds_never_admit_a_value_outside() {
    let cases = [(0.0, 1.0), (-2.5, 3.0), (-1.0, -0.25), (10.0, 12.0)];
    let texts = [
        "0", "1", "1.0", "1.5", "0.5", "0.05", "-0.5", "-1", "-1.5", "-2", "-2.5", "-2.6", "3",
        "3.5", "2.99", "-0.25", "-0.3", "-0.2", "10", "11.75", "12", "12.01", "9.99",
    ];
    for (lo, hi) in cases {
        let (g, node) = value(
            json!({"type": "number", "minimum": lo, "maximum": hi}),
            Syntax::Json,
        );
        for t in texts {
            let v: f64 = t.parse().expect("number");
            if matches(&g, &node, t) {
                assert!(v >= lo && v <= hi, "{t} admitted in [{lo}, {hi}]");
            }
        }
        // The integers inside and a value with a fraction are admitted.
        assert!(matches(&g, &node, &format!("{}", hi.floor() as i64)));
    }
    let (g, node) = value(
        json!({"type": "number", "minimum": 0, "maximum": 1}),
        Syntax::Json,
    );
    for t in ["0", "0.5", "0.999", "1"] {
        assert!(matches(&g, &node, t), "{t}");
    }
    for t in ["1.5", "-0.1", "2", "1e0"] {
        assert!(!matches(&g, &node, t), "{t}");
    }
}

#[test]
fn strings_escape_and_bound() {
    let (g, node) = value(
        json!({"type": "string", "minLength": 2, "maxLength": 3}),
        Syntax::Json,
    );
    for (s, ok) in [
        (r#""ab""#, true),
        (r#""a\nb""#, true),
        (r#""a""#, false),
        (r#""abcd""#, false),
        (r#""a\u00e9""#, true),
        (r#""a\ud800""#, false),
        ("\"a\u{1}\"", false),
    ] {
        assert_eq!(matches(&g, &node, s), ok, "{s}");
    }
    let (g, node) = value(json!({"type": "string"}), Syntax::JsonInXml);
    assert!(matches(&g, &node, r#""a\u003cb""#));
    assert!(!matches(&g, &node, r#""a<b""#));
    let (g, node) = value(json!({"type": "string"}), Syntax::Python);
    assert!(
        !matches(&g, &node, r#""a\/b""#),
        "Python reads \\/ as two chars"
    );
    let (g, node) = value(json!({"type": "string", "format": "date"}), Syntax::Json);
    assert!(matches(&g, &node, r#""2024-02-29""#));
    assert!(!matches(&g, &node, r#""2024-13-01""#));
}

#[test]
fn objects_keep_declared_order_and_required_members() {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "boolean"}, "c": {"const": "x"}},
        "required": ["b"]
    });
    let (g, node) = value(schema, Syntax::Json);
    for (s, ok) in [
        (r#"{"b": true}"#, true),
        (r#"{"a": 1, "b": false, "c": "x"}"#, true),
        (r#"{"a": 1,"b": false}"#, true),
        (r#"{"b": true, "c": "x"}"#, true),
        (r#"{"b": true, "a": 1}"#, false),
        (r#"{"a": 1}"#, false),
        (r#"{"b": true, "d": 1}"#, false),
        (r#"{"a": 1, "b": true, "c": "y"}"#, false),
    ] {
        assert_eq!(matches(&g, &node, s), ok, "{s}");
    }
    // Without declared properties any object; with `additionalProperties`
    // a schema, other keys than the declared ones.
    let (g, node) = value(json!({"type": "object"}), Syntax::Json);
    assert!(matches(&g, &node, r#"{"z": [1, {"q": null}]}"#));
    let schema = json!({"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": {"type": "boolean"}});
    let (g, node) = value(schema, Syntax::Json);
    assert!(matches(&g, &node, r#"{"a": 1, "ab": true}"#));
    assert!(!matches(&g, &node, r#"{"a": 1, "a": true}"#));
    assert!(!matches(&g, &node, r#"{"ab": 1}"#));
}

#[test]
fn arrays_enforce_small_counts_and_loosen_large_ones() {
    let (g, node) = value(
        json!({"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 2}),
        Syntax::Json,
    );
    assert!(!matches(&g, &node, "[]"));
    assert!(matches(&g, &node, "[1]"));
    assert!(matches(&g, &node, "[1, 2]"));
    assert!(!matches(&g, &node, "[1, 2, 3]"));
    let (g, node) = value(
        json!({"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "items": false}),
        Syntax::Python,
    );
    assert!(matches(&g, &node, r#"[1, "a"]"#));
    assert!(!matches(&g, &node, "[1]"));
    // A bound past the limit is not expanded: the grammar stays small.
    let (g, _) = value(
        json!({"type": "array", "items": {"type": "integer"}, "maxItems": 100_000}),
        Syntax::Json,
    );
    assert!(g.rules.len() < 20, "{} rules", g.rules.len());
}

#[test]
fn recursive_refs_are_one_rule_each() {
    let schema = json!({
        "$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}, "v": {"type": "integer"}}}},
        "$ref": "#/$defs/n"
    });
    let (g, node) = value(schema, Syntax::Json);
    assert!(matches(
        &g,
        &node,
        r#"{"next": {"next": {"v": 3}}, "v": 1}"#
    ));
    let refs = g
        .rules
        .iter()
        .filter(|r| r.name.starts_with("json-n"))
        .count();
    assert_eq!(refs, 1);
}

/// A schema bomb: `$defs` that each reference the next one many times.
fn bomb(width: usize, depth: usize) -> JsonObject {
    let mut defs = serde_json::Map::new();
    for d in 0..depth {
        let next = if d + 1 < depth {
            json!({"$ref": format!("#/$defs/d{}", d + 1)})
        } else {
            json!({"type": "integer"})
        };
        defs.insert(format!("d{d}"), json!({"anyOf": vec![next; width]}));
    }
    json!({"type": "object", "$defs": defs, "properties": {"x": {"$ref": "#/$defs/d0"}}})
        .as_object()
        .cloned()
        .unwrap_or_default()
}

#[test]
fn schema_bombs_cost_linear_work_or_hit_the_budget() {
    let options = GrammarOptions::new(ToolChoice::Required);
    // width^depth alternatives if inlined; one rule per def here.
    let schema = bomb(8, 12);
    let grammar = build_grammar(
        &[GrammarTool::new("b", &schema)],
        WireFormat::Hermes,
        &options,
    )
    .expect("builds");
    assert!(grammar.rule_count() < 40, "{} rules", grammar.rule_count());
    // A wide one exceeds a small budget: a typed error.
    let wide = bomb(5_000, 50);
    let small = GrammarOptions {
        limits: GrammarLimits {
            budget: 20_000,
            ..GrammarLimits::default()
        },
        ..options.clone()
    };
    let err = build_grammar(&[GrammarTool::new("b", &wide)], WireFormat::Hermes, &small)
        .expect_err("over budget");
    assert!(err.is_limit(), "{err}");
    // Deep nesting: a typed error, not a stack overflow.
    let mut deep = json!({"type": "integer"});
    for _ in 0..100 {
        deep = json!({"type": "array", "items": deep});
    }
    let schema = json!({"type": "object", "properties": {"x": deep}})
        .as_object()
        .cloned()
        .unwrap_or_default();
    let err = build_grammar(
        &[GrammarTool::new("d", &schema)],
        WireFormat::Hermes,
        &options,
    )
    .expect_err("too deep");
    assert!(matches!(err, GrammarError::TooDeep { .. }), "{err}");
}

#[test]
fn text_without_words_never_holds_them() {
    let words: Vec<String> = ["<tool_call>", "<|tool▁", "aab"].map(String::from).to_vec();
    let mut g = Grammar::with_budget(100_000);
    let Node::Text { lowered, .. } = text_without(&mut g, &words).expect("builds") else {
        panic!("a text node");
    };
    let root = Node::Rule(lowered);
    for (s, ok) in [
        ("hello <tool_cal", true),
        ("x<tool_call>", false),
        ("aaab", false),
        ("aa ab <|tool", true),
        ("<<tool_call>>", false),
        ("", true),
    ] {
        assert_eq!(matches(&g, &root, s), ok, "{s}");
    }
    // Strings derived from the rules over markup-heavy chars hold no word.
    for seed in 0..200 {
        let mut d = Deriver::new(&g, seed);
        d.derive(&root);
        assert!(
            !words.iter().any(|w| d.out.contains(w.as_str())),
            "{:?}",
            d.out
        );
    }
}

fn weather() -> JsonObject {
    json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})
        .as_object()
        .cloned()
        .unwrap_or_default()
}

#[test]
fn gbnf_of_a_small_grammar() {
    let schema =
        json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]});
    let schema = schema.as_object().cloned().unwrap_or_default();
    let options = GrammarOptions {
        parallel_tool_calls: false,
        ..GrammarOptions::new(ToolChoice::Required)
    };
    let g = build_grammar(
        &[GrammarTool::new("f", &schema)],
        WireFormat::Glm47,
        &options,
    )
    .expect("builds");
    let expected = "root ::= calls\n\
        calls ::= call\n\
        call ::= \"<tool_call>f\" f-args \"</tool_call>\"\n\
        f-args ::= \"<arg_key>ok</arg_key><arg_value>\" (\"true\" | \"false\") \"</arg_value>\"\n";
    assert_eq!(g.gbnf(), expected);
}

#[test]
fn lazy_grammars_and_their_other_forms() {
    let schema = weather();
    let tools = [GrammarTool::new("get_weather", &schema)];
    let g = build_grammar(
        &tools,
        WireFormat::Hermes,
        &GrammarOptions::new(ToolChoice::Auto),
    )
    .expect("builds");
    assert!(g.is_lazy());
    assert_eq!(g.triggers(), ["<tool_call>"]);
    assert!(g.gbnf().starts_with("root ::= call "), "{}", g.gbnf());
    assert!(
        g.gbnf_whole().contains("text"),
        "the whole form starts with free text"
    );
    let lark = g.lark();
    assert!(!lark.contains("%json"), "{lark}");
    // llguidance's lexemes are greedy: no repetition inside a regex, which
    // would run on into what follows it.
    assert!(
        !lark.contains("]{") && !lark.contains("]*/") && !lark.contains("]+/"),
        "{lark}"
    );
    assert!(lark.contains("[lazy]: /(?s:.*)/ \"<tool_call>\""), "{lark}");
    let tag = g.structural_tag();
    assert_eq!(tag["type"], "structural_tag");
    assert_eq!(tag["format"]["type"], "triggered_tags");
    assert_eq!(tag["format"]["triggers"], json!(["<tool_call>"]));
    assert_eq!(tag["format"]["at_least_one"], false);
    let t = &tag["format"]["tags"][0];
    assert_eq!(
        t["begin"],
        "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": "
    );
    assert_eq!(t["content"]["type"], "json_schema");
    assert_eq!(t["end"], "}\n</tool_call>");
    // An XML dialect's content is a grammar; a named tool is required.
    let g = build_grammar(
        &tools,
        WireFormat::Qwen3Coder,
        &GrammarOptions::new(ToolChoice::Named("get_weather".into())),
    )
    .expect("builds");
    let tag = g.structural_tag();
    assert_eq!(tag["format"]["at_least_one"], true);
    assert_eq!(tag["format"]["tags"][0]["content"]["type"], "grammar");
    // `none`: free text without the trigger.
    let g = build_grammar(
        &tools,
        WireFormat::Hermes,
        &GrammarOptions::new(ToolChoice::None),
    )
    .expect("builds");
    assert!(!g.is_lazy());
    assert_eq!(
        g.structural_tag()["format"],
        json!({"type": "any_text", "excludes": ["<tool_call>"]})
    );
    // Per-tool triggers where the dialect has no marker.
    let g = build_grammar(
        &tools,
        WireFormat::Pythonic,
        &GrammarOptions::new(ToolChoice::Auto),
    )
    .expect("builds");
    assert_eq!(g.triggers(), ["[get_weather("]);
    let g = build_grammar(
        &tools,
        WireFormat::Xml,
        &GrammarOptions::new(ToolChoice::Auto),
    )
    .expect("builds");
    assert_eq!(g.triggers(), ["<get_weather>"]);
}

#[test]
fn the_structural_tag_holds_each_input_schema_as_given() {
    // Kept as text while building and read back for the tag: the same
    // numbers (to the last bit), the same key order, `type` added last.
    let schema = json!({
        "properties": {
            "z": {"type": "number", "minimum": 0.1, "maximum": 12345.678901234567},
            "a": {"type": "number", "exclusiveMinimum": 1e-7, "multipleOf": 0.3},
            "n": {"type": "integer", "maximum": 9007199254740993u64, "minimum": -42}
        },
        "required": ["z"],
        "description": "tab\t quote\" é 日本"
    });
    let schema = schema.as_object().cloned().expect("an object");
    let tools = [GrammarTool::new("measure", &schema)];
    let g = build_grammar(
        &tools,
        WireFormat::Hermes,
        &GrammarOptions::new(ToolChoice::Required),
    )
    .expect("builds");
    let tag = g.structural_tag();
    let got = &tag["format"]["tags"][0]["content"]["json_schema"];
    let mut want = schema.clone();
    want.insert("type".into(), json!("object"));
    assert_eq!(*got, Value::Object(want.clone()));
    let keys: Vec<&String> = got.as_object().expect("an object").keys().collect();
    assert_eq!(keys, want.keys().collect::<Vec<_>>());
    assert_eq!(got["properties"]["z"]["minimum"].as_f64(), Some(0.1));
    assert_eq!(
        got["properties"]["z"]["maximum"].as_f64(),
        Some(12345.678901234567)
    );
}

#[test]
fn what_cannot_be_built_is_a_typed_error() {
    let schema = weather();
    let tools = [GrammarTool::new("get_weather", &schema)];
    let required = GrammarOptions::new(ToolChoice::Required);
    for format in [
        WireFormat::OpenAiChat,
        WireFormat::Anthropic,
        WireFormat::Think,
    ] {
        assert_eq!(
            build_grammar(&tools, format, &required).expect_err("not a text dialect"),
            GrammarError::NotATextDialect(format)
        );
    }
    assert_eq!(
        build_grammar(&[], WireFormat::Hermes, &required).expect_err("no tools"),
        GrammarError::NoTools
    );
    let named = GrammarOptions::new(ToolChoice::Named("nope".into()));
    assert_eq!(
        build_grammar(&tools, WireFormat::Hermes, &named).expect_err("unknown"),
        GrammarError::UnknownTool("nope".into())
    );
    let bad = [GrammarTool::new("a b", &schema)];
    assert!(matches!(
        build_grammar(&bad, WireFormat::Hermes, &required),
        Err(GrammarError::ToolName(_))
    ));
    // A top-level `$ref` is read as text by the XML dialects' detector, but
    // its schema wants an object: no faithful grammar.
    let by_ref = json!({"type": "object", "$defs": {"p": {"type": "object"}}, "properties": {"p": {"$ref": "#/$defs/p"}}});
    let by_ref = by_ref.as_object().cloned().unwrap_or_default();
    let tools = [GrammarTool::new("f", &by_ref)];
    let err =
        build_grammar(&tools, WireFormat::Qwen3Coder, &required).expect_err("unrepresentable");
    assert!(
        matches!(
            err,
            GrammarError::Unrepresentable {
                dialect: WireFormat::Qwen3Coder,
                ..
            }
        ),
        "{err}"
    );
    // The JSON dialects carry it.
    assert!(build_grammar(&tools, WireFormat::Hermes, &required).is_ok());
}

#[test]
fn the_cache_builds_once_per_input() {
    let schema = weather();
    let other = json!({"type": "object"})
        .as_object()
        .cloned()
        .unwrap_or_default();
    let cache = GrammarCache::new(2);
    let options = GrammarOptions::new(ToolChoice::Required);
    let a = cache
        .get_or_build(
            &[GrammarTool::new("w", &schema)],
            WireFormat::Hermes,
            &options,
        )
        .expect("builds");
    let b = cache
        .get_or_build(
            &[GrammarTool::new("w", &schema)],
            WireFormat::Hermes,
            &options,
        )
        .expect("builds");
    assert!(std::sync::Arc::ptr_eq(&a, &b));
    assert_eq!(cache.len(), 1);
    let c = cache
        .get_or_build(
            &[GrammarTool::new("w", &other)],
            WireFormat::Hermes,
            &options,
        )
        .expect("builds");
    assert!(!std::sync::Arc::ptr_eq(&a, &c));
    let _ = cache
        .get_or_build(
            &[GrammarTool::new("w", &schema)],
            WireFormat::Glm47,
            &options,
        )
        .expect("builds");
    assert_eq!(cache.len(), 2, "bounded");
}

#[test]
fn an_empty_properties_keyword_declares_no_members() {
    let (g, node) = value(json!({"type": "object", "properties": {}}), Syntax::Json);
    assert!(matches(&g, &node, "{}"));
    assert!(!matches(&g, &node, r#"{"a": 1}"#));
}
