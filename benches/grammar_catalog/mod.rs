//! The tool catalogs of `benches/grammar.rs`: `n` tools whose input schemas
//! carry typed properties with descriptions, enums, bounds, arrays, a nested
//! object and sometimes a `$defs` entry. A plain module (only `serde_json`),
//! included by `benches/grammar.rs` and, with a `#[path]`, by
//! `examples/bench_instructions.rs`. It lives in a directory so that cargo
//! does not take it for a bench target of its own.

use serde_json::{Value, json};
use toolrouter::JsonObject;

/// A description of about `words` words (schemas carry prose).
pub(crate) fn prose(seed: usize, words: usize) -> String {
    const WORDS: &[&str] = &[
        "the",
        "file",
        "path",
        "relative",
        "to",
        "workspace",
        "root",
        "returns",
        "lines",
        "matching",
        "query",
        "optional",
        "defaults",
        "when",
        "absent",
        "number",
        "of",
        "results",
        "search",
        "case",
    ];
    (0..words)
        .map(|i| WORDS[(seed * 7 + i * 13) % WORDS.len()])
        .collect::<Vec<_>>()
        .join(" ")
}

/// A realistic input schema: typed properties with descriptions, enums,
/// bounds, arrays, a nested object, sometimes a `$defs` entry.
pub(crate) fn schema(i: usize, props: usize, desc_words: usize) -> JsonObject {
    let mut properties = serde_json::Map::new();
    let mut required = Vec::new();
    for p in 0..props {
        let name = format!("param_{p}");
        let description = prose(i + p, desc_words);
        let prop = match (i + p) % 7 {
            0 => json!({"type": "string", "description": description}),
            1 => {
                json!({"type": "integer", "minimum": 0, "maximum": 10_000, "description": description})
            }
            2 => {
                json!({"type": "string", "enum": ["fast", "thorough", "balanced", "off"], "description": description})
            }
            3 => {
                json!({"type": "array", "items": {"type": "string", "maxLength": 64}, "maxItems": 8, "description": description})
            }
            4 => json!({"type": "boolean", "description": description}),
            5 => json!({"type": "object", "description": description, "properties": {
                "start": {"type": "integer", "minimum": 1},
                "end": {"type": "integer", "minimum": 1},
                "label": {"type": ["string", "null"]}
            }, "required": ["start"], "additionalProperties": false}),
            _ => json!({"type": "number", "minimum": -1, "maximum": 1, "description": description}),
        };
        if p.is_multiple_of(3) {
            required.push(Value::String(name.clone()));
        }
        properties.insert(name, prop);
    }
    let mut schema = json!({
        "type": "object",
        "description": prose(i, desc_words * 2),
        "properties": properties,
        "required": required,
    });
    if i.is_multiple_of(4) {
        schema["$defs"] = json!({"range": {"type": "object", "properties": {
            "from": {"type": "string", "format": "date"}, "to": {"type": "string", "format": "date"}},
            "required": ["from"]}});
        schema["properties"]["period"] = json!({"type": "object", "$ref": "#/$defs/range"});
    }
    schema.as_object().cloned().unwrap_or_default()
}

/// `n` tools of `props` properties each, descriptions of about `desc_words`
/// words; and the bytes of their schemas as JSON.
pub(crate) fn catalog(
    n: usize,
    props: usize,
    desc_words: usize,
) -> (Vec<(String, JsonObject)>, usize) {
    let tools: Vec<(String, JsonObject)> = (0..n)
        .map(|i| (format!("tool_{i}"), schema(i, props, desc_words)))
        .collect();
    let bytes = tools
        .iter()
        .map(|(_, s)| Value::Object(s.clone()).to_string().len())
        .sum();
    (tools, bytes)
}
