//! Odd input never panics: non-object schemas, deep nesting, huge content,
//! unknown shapes.

use serde_json::json;

use super::*;
use crate::convert::Dialect;
use crate::convert::gemini_schema::gemini_schema;
use crate::convert::openai_strict::strict_schema;

/// Levels of nested objects: each is two JSON nesting levels, so 100 is past
/// the 128 levels serde_json parses from text (no real schema is deeper), and
/// past every converter's own walk limit.
const DEEP: usize = 100;

fn deep_schema(levels: usize) -> Value {
    let mut schema = json!({"type": "string"});
    for _ in 0..levels {
        schema = json!({"type": "object", "properties": {"n": schema}});
    }
    schema
}

#[test]
fn every_dialect_survives_odd_schemas() {
    let odd = [
        json!({"type": "object", "properties": 5}),
        json!({"type": "object", "properties": {"a": 1, "b": null, "c": [], "d": "x"}}),
        json!({"type": "object", "required": "nope", "properties": {"a": {"type": 7}}}),
        json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}},
               "$defs": {"a": {"$ref": "#/$defs/a"}}}),
        json!({"type": "object", "properties": {"a": {"$ref": "#"}, "b": {"$ref": "#/x/~1/9"}}}),
        json!({"type": "object", "properties": {"a": {"anyOf": "x", "items": [1]}}}),
        deep_schema(DEEP),
    ];
    for schema in odd {
        let t = tool(json!({"name": "odd", "inputSchema": schema}));
        for &dialect in Dialect::ALL {
            let _ = dialect.declare(std::slice::from_ref(&t));
        }
        let _ = crate::convert::openai_chat::strict_tools(std::slice::from_ref(&t));
    }
}

#[test]
fn deep_schemas_are_cut_not_overflowed() {
    let (reduced, notes) = gemini_schema("deep", &deep_schema(DEEP));
    assert!(reduced.is_object());
    assert!(notes.iter().any(|n| n.detail.contains("nested too deeply")));
    assert!(
        strict_schema("deep", &object(deep_schema(DEEP)))
            .schema
            .is_none()
    );
}

#[test]
fn non_object_root_schemas_reduce_to_empty() {
    let (reduced, notes) = gemini_schema("t", &json!("string"));
    check(&reduced, json!({}));
    assert_eq!(notes.len(), 1);
}

#[test]
fn huge_content_passes_through_whole() {
    let big = "x".repeat(4 << 20);
    let result = CallToolResult::success(vec![ContentBlock::text(big.clone())]);
    let c = read_call();
    for &dialect in Dialect::ALL {
        let messages = dialect.result_messages(&[(&c, &result)]);
        let text = serde_json::to_string(&messages).unwrap();
        assert!(text.len() >= big.len(), "{dialect} lost content");
    }
}

#[test]
fn unknown_image_types_and_bad_base64_become_placeholders() {
    let result = CallToolResult::success(vec![
        ContentBlock::image("not base64 at all!", "image/x-weird"),
        ContentBlock::image("", ""),
    ]);
    let c = read_call();
    for &dialect in Dialect::ALL {
        let _ = dialect.result_messages(&[(&c, &result)]);
    }
    check(
        &crate::convert::openai_chat::tool_message(&c, &result),
        json!({"role": "tool", "tool_call_id": "call_1",
               "content": "[image image/x-weird, 13 bytes]\n[image , 0 bytes]"}),
    );
}

/// Found by the property test: a kept keyword whose value has the wrong type
/// (here `nullable` holding an object) was copied into the Gemini schema.
#[test]
fn gemini_drops_kept_keywords_with_wrong_value_types() {
    let schema = json!({"type": "object", "nullable": {"oneOf": null}, "description": 5,
                        "properties": {"a": {"type": "string", "minLength": -1}}});
    let (reduced, notes) = gemini_schema("t", &schema);
    check(
        &reduced,
        json!({"type": "OBJECT", "properties": {"a": {"type": "STRING"}}}),
    );
    assert_eq!(notes.len(), 3);
}
