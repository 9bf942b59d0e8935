//! `ToolCatalog`: the read-only view of the registered tools that parsers need.
//!
//! Parsers must know which names are tools (so `<div>` stays text) and what type
//! each parameter has (so an XML value `42` becomes a number only when the schema
//! says so). They get this snapshot instead of the registry itself.

use std::collections::HashMap;

use super::call::JsonObject;

/// The JSON type a parameter's schema declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ParamType {
    /// `"type": "string"`, or no usable type: the value stays a string.
    String,
    /// `"type": "integer"`.
    Integer,
    /// `"type": "number"`.
    Number,
    /// `"type": "boolean"`.
    Boolean,
    /// `"type": "array"`.
    Array,
    /// `"type": "object"`.
    Object,
    /// Several types allowed (`["string","null"]`, `anyOf`): parse as JSON when it
    /// parses as one of them, else keep the string.
    Any,
}

impl ParamType {
    /// Reads the declared type of one property schema.
    pub fn from_schema(schema: &serde_json::Value) -> ParamType {
        fn one(name: &str) -> Option<ParamType> {
            Some(match name {
                "string" => ParamType::String,
                "integer" => ParamType::Integer,
                "number" => ParamType::Number,
                "boolean" => ParamType::Boolean,
                "array" => ParamType::Array,
                "object" => ParamType::Object,
                _ => return None,
            })
        }
        match schema.get("type") {
            Some(serde_json::Value::String(s)) => one(s).unwrap_or(ParamType::String),
            Some(serde_json::Value::Array(types)) => {
                let named: Vec<ParamType> = types
                    .iter()
                    .filter_map(|t| t.as_str())
                    .filter(|t| *t != "null")
                    .filter_map(one)
                    .collect();
                match named.as_slice() {
                    [single] => *single,
                    [] => ParamType::String,
                    _ => ParamType::Any,
                }
            }
            _ if schema.get("anyOf").is_some() || schema.get("oneOf").is_some() => ParamType::Any,
            _ if schema.get("enum").is_some() || schema.get("const").is_some() => ParamType::Any,
            _ => ParamType::String,
        }
    }
}

/// What a parser knows about one tool: its parameters and their types.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolShape {
    params: HashMap<String, ParamType>,
}

impl ToolShape {
    /// Reads the `properties` of an input schema.
    pub fn from_input_schema(schema: &JsonObject) -> Self {
        let params = schema
            .get("properties")
            .and_then(|p| p.as_object())
            .map(|props| {
                props
                    .iter()
                    .map(|(k, v)| (k.clone(), ParamType::from_schema(v)))
                    .collect()
            })
            .unwrap_or_default();
        Self { params }
    }

    /// The declared type of a parameter; `None` when the schema does not list it.
    pub fn param(&self, name: &str) -> Option<ParamType> {
        self.params.get(name).copied()
    }

    /// Iterates over parameter names.
    pub fn param_names(&self) -> impl Iterator<Item = &str> {
        self.params.keys().map(String::as_str)
    }
}

/// An immutable snapshot of the registered tools' names and parameter types.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolCatalog {
    tools: HashMap<String, ToolShape>,
    longest_name: usize,
}

impl ToolCatalog {
    /// An empty catalog: no name opens a name-gated call.
    pub fn new() -> Self {
        Self::default()
    }

    /// Builds a catalog from `(name, inputSchema)` pairs.
    pub fn from_schemas<'a>(tools: impl IntoIterator<Item = (&'a str, &'a JsonObject)>) -> Self {
        let mut catalog = Self::new();
        for (name, schema) in tools {
            catalog.insert(name, ToolShape::from_input_schema(schema));
        }
        catalog
    }

    /// Adds or replaces one tool.
    pub fn insert(&mut self, name: &str, shape: ToolShape) {
        self.longest_name = self.longest_name.max(name.len());
        self.tools.insert(name.to_owned(), shape);
    }

    /// Whether `name` is a registered tool.
    pub fn contains(&self, name: &str) -> bool {
        self.tools.contains_key(name)
    }

    /// The shape of a tool.
    pub fn get(&self, name: &str) -> Option<&ToolShape> {
        self.tools.get(name)
    }

    /// The length in bytes of the longest tool name (bounds look-ahead).
    pub fn longest_name(&self) -> usize {
        self.longest_name
    }

    /// The number of tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether there are no tools.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Iterates over tool names (in no particular order).
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.keys().map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn param_types_follow_the_schema() {
        let schema = json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "line": {"type": "integer"},
                "ratio": {"type": "number"},
                "force": {"type": "boolean"},
                "items": {"type": "array"},
                "opts": {"type": "object"},
                "maybe": {"type": ["integer", "null"]},
                "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                "untyped": {}
            }
        });
        let shape = ToolShape::from_input_schema(schema.as_object().expect("object"));
        assert_eq!(shape.param("path"), Some(ParamType::String));
        assert_eq!(shape.param("line"), Some(ParamType::Integer));
        assert_eq!(shape.param("ratio"), Some(ParamType::Number));
        assert_eq!(shape.param("force"), Some(ParamType::Boolean));
        assert_eq!(shape.param("items"), Some(ParamType::Array));
        assert_eq!(shape.param("opts"), Some(ParamType::Object));
        assert_eq!(shape.param("maybe"), Some(ParamType::Integer));
        assert_eq!(shape.param("either"), Some(ParamType::Any));
        assert_eq!(shape.param("untyped"), Some(ParamType::String));
        assert_eq!(shape.param("absent"), None);
    }

    #[test]
    fn catalog_tracks_names_and_longest() {
        let empty = JsonObject::new();
        let catalog = ToolCatalog::from_schemas([("read_file", &empty), ("ls", &empty)]);
        assert!(catalog.contains("read_file"));
        assert!(!catalog.contains("div"));
        assert_eq!(catalog.longest_name(), 9);
        assert_eq!(catalog.len(), 2);
    }
}
