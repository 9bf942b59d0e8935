//! Fuzz target: the `--text-tools` round trip. Calls made from the input
//! (tools and parameter names from a fixed set, values of any content) are
//! written into an assistant turn by the XML text writer
//! (`Dialect::XmlText.assistant_turn`, what the proxy replays upstream and
//! teaches the model to write), then fed to the detector with XML entities
//! decoded (`DetectConfig::xml_entities`, as the proxy configures it).
//!
//! The first byte seeds the cut positions; the rest is read as a script of
//! calls (`Script`). Checked: the text, whole and cut into pieces of 1 to 17
//! bytes, reads back as exactly the calls written, and each call's streamed
//! argument deltas put together are its arguments. The property test
//! `convert::tests::round_trip` checks the same in CI.
#![no_main]

use std::sync::Arc;

use serde_json::{Map, Value, json};
use toolrouter::{
    DetectConfig, DetectEvent, Dialect, JsonObject, StreamDetector, ToolCall, ToolCatalog,
    WireFormat,
};

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
    "</search><search><query>",
    "&",
    "&amp;",
    "&lt;",
    "&gt;",
    "&quot;&apos;",
    "&am",
    "<",
    ">",
    "\n",
    " ",
    "null",
];

/// Reads the input as choices.
struct Script<'a> {
    data: &'a [u8],
}

impl Script<'_> {
    fn byte(&mut self) -> u8 {
        let Some((&b, rest)) = self.data.split_first() else {
            return 0;
        };
        self.data = rest;
        b
    }

    fn bytes<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0; N];
        for b in &mut out {
            *b = self.byte();
        }
        out
    }

    /// A string: the next byte says how many parts (up to 7), each either a
    /// piece of [`PIECES`] or up to 15 bytes of the input, as UTF-8.
    fn text(&mut self) -> String {
        let parts = self.byte() % 8;
        let mut out = String::new();
        for _ in 0..parts {
            let b = self.byte();
            if b & 0x80 != 0 {
                out.push_str(PIECES[usize::from(b & 0x7f) % PIECES.len()]);
            } else {
                let n = usize::from(b % 16).min(self.data.len());
                let (raw, rest) = self.data.split_at(n);
                self.data = rest;
                out.push_str(&String::from_utf8_lossy(raw));
            }
        }
        out
    }

    fn number(&mut self) -> Value {
        let f = f64::from_le_bytes(self.bytes());
        if f.is_finite() { Value::from(f) } else { Value::from(0.5) }
    }

    /// Any JSON value, nested at most `depth` more levels.
    fn value(&mut self, depth: u8) -> Value {
        match self.byte() % if depth == 0 { 5 } else { 7 } {
            0 => Value::Null,
            1 => Value::Bool(self.byte() & 1 == 1),
            2 => Value::from(i64::from_le_bytes(self.bytes())),
            3 => self.number(),
            4 => Value::String(self.text()),
            5 => Value::Array((0..self.byte() % 4).map(|_| self.value(depth - 1)).collect()),
            _ => Value::Object(
                (0..self.byte() % 4)
                    .map(|_| (self.text(), self.value(depth - 1)))
                    .collect(),
            ),
        }
    }

    /// A value of a parameter's type.
    fn typed(&mut self, ty: &str) -> Value {
        match ty {
            "integer" => Value::from(i64::from_le_bytes(self.bytes())),
            "number" => self.number(),
            "boolean" => Value::Bool(self.byte() & 1 == 1),
            "array" => Value::Array((0..self.byte() % 4).map(|_| self.value(2)).collect()),
            "object" => Value::Object(
                (0..self.byte() % 4)
                    .map(|_| (self.text(), self.value(2)))
                    .collect(),
            ),
            _ => Value::String(self.text()),
        }
    }

    /// One to three calls.
    fn calls(&mut self) -> Vec<(String, JsonObject)> {
        let n = 1 + self.byte() % 3;
        (0..n)
            .map(|_| {
                let (name, params) = TOOLS[usize::from(self.byte()) % TOOLS.len()];
                let mut arguments = Map::new();
                for (param, ty) in params {
                    if self.byte() & 1 == 1 {
                        arguments.insert((*param).to_owned(), self.typed(ty));
                    }
                }
                let extra = self.byte();
                if extra & 0x80 != 0 {
                    let key = UNDECLARED[usize::from(extra & 0x7f) % UNDECLARED.len()];
                    arguments.insert(key.to_owned(), Value::String(self.text()));
                }
                (name.to_owned(), arguments)
            })
            .collect()
    }
}

fn catalog() -> Arc<ToolCatalog> {
    let schemas: Vec<(&str, JsonObject)> = TOOLS
        .iter()
        .map(|(name, params)| {
            let properties: Map<String, Value> = params
                .iter()
                .map(|(p, ty)| ((*p).to_owned(), json!({ "type": ty })))
                .collect();
            let schema = json!({"type": "object", "properties": properties});
            (*name, schema.as_object().cloned().unwrap_or_default())
        })
        .collect();
    Arc::new(ToolCatalog::from_schemas(
        schemas.iter().map(|(n, s)| (*n, s)),
    ))
}

/// The calls the detector reads in `pieces`; each call's deltas, put
/// together, must be its arguments.
fn read_back(pieces: &[&str]) -> Vec<(String, JsonObject)> {
    let mut detector = StreamDetector::new(catalog(), DetectConfig::default().with_xml_entities());
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
                let slot = streamed.iter_mut().find(|(i, _)| *i == index);
                slot.expect("delta after start").1.push_str(&fragment);
            }
            DetectEvent::CallEnd { index, call } => {
                let slot = streamed.iter().find(|(i, _)| *i == index);
                let deltas: Value =
                    serde_json::from_str(&slot.expect("end after start").1).expect("deltas are json");
                assert_eq!(deltas, Value::Object(call.arguments.clone()), "deltas == arguments");
                calls.push((call.name.to_string(), call.arguments));
            }
            _ => {}
        }
    }
    calls
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&seed, rest)) = data.split_first() else {
        return;
    };
    let calls = Script { data: rest }.calls();
    let written: Vec<ToolCall> = calls
        .iter()
        .map(|(name, args)| ToolCall::new("", name.as_str(), Some(args.clone()), WireFormat::Xml))
        .collect();
    let before = ["", "Let me check.", "a < b & c > d\n"][usize::from(seed >> 6) % 3];
    let turn = Dialect::XmlText.assistant_turn(before, &written);
    let text = turn[0]["content"].as_str().unwrap_or_default();
    assert_eq!(read_back(&[text]), calls, "whole: {text:?}");
    // Cuts every `step` bytes (moved to char boundaries), step from the seed.
    let step = usize::from(seed % 17) + 1;
    let mut pieces = Vec::new();
    let mut pos = 0;
    while pos < text.len() {
        let mut end = (pos + step).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        pieces.push(&text[pos..end]);
        pos = end;
    }
    assert_eq!(read_back(&pieces), calls, "step {step}: {text:?}");
});
