//! Property test: no converter panics on any schema built from JSON Schema
//! keywords, and strict/Gemini outputs keep their structural promises.

use proptest::prelude::*;
use serde_json::{Map, json};

use super::*;
use crate::convert::gemini_schema::gemini_schema;
use crate::convert::openai_strict::strict_schema;
use crate::convert::{Dialect, restore_optional_nulls};

const KEYS: &[&str] = &[
    "type",
    "properties",
    "items",
    "anyOf",
    "oneOf",
    "allOf",
    "$ref",
    "$defs",
    "enum",
    "const",
    "required",
    "additionalProperties",
    "format",
    "nullable",
    "description",
    "examples",
    "minLength",
    "x",
];

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::from),
        proptest::sample::select(vec![
            "string",
            "object",
            "array",
            "null",
            "integer",
            "number",
            "boolean",
            "#/$defs/a",
            "#",
            "#/properties/a",
            "a",
            "date",
            "int32",
        ])
        .prop_map(|s| Value::String(s.to_owned())),
    ]
}

fn schema_like() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(6, 64, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::vec((proptest::sample::select(KEYS), inner.clone()), 0..6)
                .prop_map(|pairs| {
                    Value::Object(
                        pairs
                            .into_iter()
                            .map(|(k, v)| (k.to_owned(), v))
                            .collect::<Map<_, _>>(),
                    )
                }),
            proptest::collection::vec(("[a-c]", inner), 0..4).prop_map(|props| {
                json!({"type": "object", "properties": props.into_iter().collect::<Map<_, _>>(),
                       "required": ["a"]})
            }),
        ]
    })
}

proptest! {
    #[test]
    fn converters_never_panic(schema in schema_like(), args in schema_like()) {
        let mut root = match schema {
            Value::Object(map) => map,
            other => object(json!({"type": "object", "properties": {"a": other}})),
        };
        root.insert("type".to_owned(), json!("object"));
        let t = tool(json!({"name": "t", "inputSchema": root.clone()}));
        for &dialect in Dialect::ALL {
            let _ = dialect.declare(std::slice::from_ref(&t));
        }
        let strict = strict_schema("t", &root);
        if let Some(out) = &strict.schema {
            check_strict_objects(&Value::Object(out.clone()))?;
        }
        let (reduced, _) = gemini_schema("t", &Value::Object(root.clone()));
        check_gemini_keys(&reduced)?;
        if let Value::Object(mut arguments) = args {
            restore_optional_nulls(&root, &mut arguments);
        }
    }
}

/// Walks the schema positions of a reduced schema (not `default`/`example`
/// values) and fails on any keyword outside Gemini's subset.
fn check_gemini_keys(schema: &Value) -> Result<(), TestCaseError> {
    const ALLOWED: &[&str] = &[
        "type",
        "format",
        "title",
        "description",
        "nullable",
        "enum",
        "properties",
        "required",
        "items",
        "anyOf",
        "minItems",
        "maxItems",
        "minLength",
        "maxLength",
        "pattern",
        "minProperties",
        "maxProperties",
        "minimum",
        "maximum",
        "default",
        "example",
    ];
    let Value::Object(map) = schema else {
        return Err(TestCaseError::fail(format!("not an object: {schema}")));
    };
    for (key, value) in map {
        prop_assert!(
            ALLOWED.contains(&key.as_str()),
            "`{}` left in {}",
            key,
            schema
        );
        match key.as_str() {
            "properties" => {
                for prop in value.as_object().into_iter().flat_map(|p| p.values()) {
                    check_gemini_keys(prop)?;
                }
            }
            "items" => check_gemini_keys(value)?,
            "anyOf" => {
                for branch in value.as_array().into_iter().flatten() {
                    check_gemini_keys(branch)?;
                }
            }
            "enum" => prop_assert!(
                value
                    .as_array()
                    .is_some_and(|v| v.iter().all(Value::is_string)),
                "non-string enum in {}",
                schema
            ),
            "nullable" => prop_assert!(value.is_boolean()),
            "type" => prop_assert!(
                ["STRING", "INTEGER", "NUMBER", "BOOLEAN", "ARRAY", "OBJECT"]
                    .contains(&value.as_str().unwrap_or("")),
                "bad type in {}",
                schema
            ),
            _ => {}
        }
    }
    Ok(())
}

/// Every object schema in a strict output is closed and requires all its properties.
fn check_strict_objects(schema: &Value) -> Result<(), TestCaseError> {
    let Value::Object(map) = schema else {
        return Ok(());
    };
    if let Some(Value::Object(props)) = map.get("properties") {
        prop_assert_eq!(map.get("additionalProperties"), Some(&Value::Bool(false)));
        let keys: Vec<Value> = props.keys().map(|k| Value::String(k.clone())).collect();
        prop_assert_eq!(map.get("required"), Some(&Value::Array(keys)));
        for prop in props.values() {
            check_strict_objects(prop)?;
        }
    }
    if let Some(items) = map.get("items") {
        check_strict_objects(items)?;
    }
    for branch in map
        .get("anyOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        check_strict_objects(branch)?;
    }
    for defs in ["$defs", "definitions"] {
        for def in map
            .get(defs)
            .and_then(Value::as_object)
            .into_iter()
            .flat_map(|d| d.values())
        {
            check_strict_objects(def)?;
        }
    }
    Ok(())
}
