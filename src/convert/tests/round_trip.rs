//! Property test: calls written into an assistant turn by the XML text writer
//! (what `--text-tools` replays upstream and teaches the model to write) read
//! back through the detector, with XML entities decoded, as exactly the same
//! calls, whatever their values hold and however the text is cut into deltas.
//! The fuzz target `text_tools_round_trip` checks the same with the fuzzer's
//! inputs.

use std::sync::Arc;

use proptest::prelude::*;
use serde_json::Map;

use super::*;
use crate::convert::Dialect;
use crate::{DetectConfig, DetectEvent, StreamDetector, ToolCatalog};

/// The tools, each parameter with its type.
const TOOLS: &[(&str, &[(&str, &str)])] = &[
    ("write_file", &[("path", "string"), ("content", "string")]),
    (
        "search",
        &[
            ("query", "string"),
            ("limit", "integer"),
            ("ratio", "number"),
            ("exact", "boolean"),
            ("tags", "array"),
            ("opts", "object"),
        ],
    ),
    ("ls", &[]),
];

/// Argument names no schema declares: read back as strings.
const UNDECLARED: &[&str] = &["note", "x-y.z:w", "search", "tool_result"];

/// Text that tries to end a value, open a call or fake an entity.
const PIECES: &[&str] = &[
    "</path>",
    "</content>\n</write_file>",
    "<ls>\n</ls>",
    "<write_file>\n<path>x</path>\n</write_file>",
    "</search><search><query>",
    "&",
    "&amp;",
    "&lt;",
    "&gt;",
    "&quot;&apos;",
    "&am",
    "&#60;",
    "<",
    ">",
    "\n",
    "\n\n",
    " ",
    "null",
    "]]>",
    "<![CDATA[",
    "é😀",
];

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        proptest::collection::vec(proptest::sample::select(PIECES), 0..8)
            .prop_map(|pieces| pieces.concat()),
        "[<>&;/a-z\n ]{0,24}",
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::vec((text(), inner), 0..4)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect())),
        ]
    })
}

/// A value of a parameter's type.
fn typed(ty: &'static str) -> BoxedStrategy<Value> {
    match ty {
        "integer" => any::<i64>().prop_map(Value::from).boxed(),
        "number" => any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from)
            .boxed(),
        "boolean" => any::<bool>().prop_map(Value::Bool).boxed(),
        "array" => proptest::collection::vec(json_value(), 0..4)
            .prop_map(Value::Array)
            .boxed(),
        "object" => proptest::collection::vec((text(), json_value()), 0..4)
            .prop_map(|pairs| Value::Object(pairs.into_iter().collect()))
            .boxed(),
        _ => text().prop_map(Value::String).boxed(),
    }
}

/// One call of a tool of [`TOOLS`]: some of its parameters, maybe an
/// undeclared one.
fn call() -> impl Strategy<Value = (String, JsonObject)> {
    (0..TOOLS.len()).prop_flat_map(|t| {
        let (name, params) = TOOLS[t];
        let declared: Vec<_> = params
            .iter()
            .map(|(p, ty)| proptest::option::of(typed(ty)).prop_map(move |v| (*p, v)))
            .collect();
        let undeclared = proptest::option::of((proptest::sample::select(UNDECLARED), text()));
        (declared, undeclared).prop_map(move |(declared, undeclared)| {
            let mut arguments = Map::new();
            for (p, v) in declared {
                if let Some(v) = v {
                    arguments.insert(p.to_owned(), v);
                }
            }
            if let Some((p, v)) = undeclared {
                arguments.insert(p.to_owned(), Value::String(v));
            }
            (name.to_owned(), arguments)
        })
    })
}

fn catalog() -> Arc<ToolCatalog> {
    let schemas: Vec<(&str, JsonObject)> = TOOLS
        .iter()
        .map(|(name, params)| {
            let properties: Map<String, Value> = params
                .iter()
                .map(|(p, ty)| ((*p).to_owned(), json!({ "type": ty })))
                .collect();
            (
                *name,
                object(json!({"type": "object", "properties": properties})),
            )
        })
        .collect();
    Arc::new(ToolCatalog::from_schemas(
        schemas.iter().map(|(n, s)| (*n, s)),
    ))
}

/// The calls the detector reads in `pieces`, fed one after the other; the
/// argument deltas each streamed, put together, are its arguments.
fn read_back(pieces: &[&str]) -> Vec<(String, JsonObject)> {
    let config = DetectConfig::default().with_xml_entities();
    let mut detector = StreamDetector::new(catalog(), config);
    let mut events = Vec::new();
    for piece in pieces {
        detector.feed(piece, &mut events);
    }
    detector.finish(&mut events);
    let mut streamed: Vec<(usize, String)> = Vec::new();
    let mut calls = Vec::new();
    for event in events {
        match event {
            DetectEvent::CallStart { index, .. } => streamed.push((index, String::new())),
            DetectEvent::ArgsDelta { index, fragment } => {
                if let Some((_, text)) = streamed.iter_mut().find(|(i, _)| *i == index) {
                    text.push_str(&fragment);
                }
            }
            DetectEvent::CallEnd { index, call } => {
                let text = streamed
                    .iter()
                    .find(|(i, _)| *i == index)
                    .map(|(_, text)| text.as_str())
                    .unwrap_or_default();
                let deltas: Value = serde_json::from_str(text).unwrap_or(Value::Null);
                assert_eq!(
                    deltas,
                    Value::Object(call.arguments.clone()),
                    "deltas of {pieces:?}"
                );
                calls.push((call.name.to_string(), call.arguments));
            }
            _ => {}
        }
    }
    calls
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn written_calls_read_back_as_the_same_calls(
        calls in proptest::collection::vec(call(), 1..4),
        before in proptest::sample::select(&["", "Let me check.", "a < b & c > d\n"][..]),
        cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..12),
    ) {
        let written: Vec<ToolCall> = calls
            .iter()
            .map(|(name, args)| ToolCall::new("", name.as_str(), Some(args.clone()), WireFormat::Xml))
            .collect();
        let turn = Dialect::XmlText.assistant_turn(before, &written);
        let text = turn[0]["content"].as_str().unwrap_or_default().to_owned();
        prop_assert_eq!(&read_back(&[&text]), &calls, "{}", text);
        let mut at: Vec<usize> = cuts.iter().map(|i| i.index(text.len() + 1)).collect();
        at.retain(|&c| text.is_char_boundary(c));
        at.sort_unstable();
        at.dedup();
        let mut pieces = Vec::new();
        let mut pos = 0;
        for c in at {
            pieces.push(&text[pos..c]);
            pos = c;
        }
        pieces.push(&text[pos..]);
        prop_assert_eq!(&read_back(&pieces), &calls, "{}", text);
    }
}
