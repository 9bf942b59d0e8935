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
    /// Several types allowed (`["string","integer"]`, `anyOf` of several
    /// types, `enum`): parse as JSON when it parses, else keep the string.
    Any,
}

impl ParamType {
    /// Reads the declared type of one property schema.
    pub fn from_schema(schema: &serde_json::Value) -> ParamType {
        Self::read(schema).0
    }

    /// The declared type, and whether the schema also allows `null`
    /// (`["integer","null"]`, `{"type":"null"}`, an `anyOf` or `oneOf`
    /// branch `{"type":"null"}`). A union of plain types reads the same
    /// whether it is written as a type list or as `anyOf`/`oneOf` branches
    /// of one `type` each.
    fn read(schema: &serde_json::Value) -> (ParamType, bool) {
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
        /// The type of a union of named types (`null` excluded).
        fn union<'a>(names: impl Iterator<Item = &'a str>) -> ParamType {
            let named: Vec<ParamType> = names.filter_map(one).collect();
            match named.as_slice() {
                [single] => *single,
                [] => ParamType::String,
                _ => ParamType::Any,
            }
        }
        match schema.get("type") {
            Some(serde_json::Value::String(s)) => {
                (one(s).unwrap_or(ParamType::String), s == "null")
            }
            Some(serde_json::Value::Array(types)) => {
                let names = || types.iter().filter_map(|t| t.as_str());
                let nullable = names().any(|t| t == "null");
                (union(names().filter(|t| *t != "null")), nullable)
            }
            _ => {
                let branches = schema
                    .get("anyOf")
                    .or_else(|| schema.get("oneOf"))
                    .map(|b| b.as_array().map(Vec::as_slice).unwrap_or_default());
                if let Some(branches) = branches {
                    let names: Option<Vec<&str>> = branches
                        .iter()
                        .map(|b| b.get("type").and_then(|t| t.as_str()))
                        .collect();
                    let nullable = branches
                        .iter()
                        .any(|b| b.get("type").and_then(|t| t.as_str()) == Some("null"));
                    let ty = match names {
                        // Every branch one plain type: as the type list.
                        Some(names) if !names.is_empty() => {
                            union(names.into_iter().filter(|t| *t != "null"))
                        }
                        _ => ParamType::Any,
                    };
                    return (ty, nullable);
                }
                if schema.get("enum").is_some() || schema.get("const").is_some() {
                    (ParamType::Any, false)
                } else {
                    (ParamType::String, false)
                }
            }
        }
    }
}

/// What a parser knows about one tool: its parameters and their types.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolShape {
    /// Each parameter's type, and whether its schema allows `null` too.
    params: HashMap<String, (ParamType, bool)>,
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
                    .map(|(k, v)| (k.clone(), ParamType::read(v)))
                    .collect()
            })
            .unwrap_or_default();
        Self { params }
    }

    /// Adds one property of an input schema, read as
    /// [`from_input_schema`](Self::from_input_schema) reads each: for a
    /// reader that walks the properties one at a time instead of holding the
    /// whole schema as a tree.
    pub(crate) fn add_property(&mut self, name: String, schema: &serde_json::Value) {
        self.params.insert(name, ParamType::read(schema));
    }

    /// The declared type of a parameter; `None` when the schema does not list it.
    pub fn param(&self, name: &str) -> Option<ParamType> {
        self.params.get(name).map(|&(ty, _)| ty)
    }

    /// The declared type of a parameter and whether its schema allows `null`
    /// besides it; `None` when the schema does not list it.
    pub(crate) fn typing(&self, name: &str) -> Option<(ParamType, bool)> {
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
    fn unions_with_null_are_nullable_whether_listed_or_branched() {
        let schema = json!({
            "type": "object",
            "properties": {
                "line": {"type": ["integer", "null"]},
                "label": {"type": ["null", "string"]},
                "nothing": {"type": "null"},
                "flag": {"anyOf": [{"type": "boolean"}, {"type": "null"}]},
                "name": {"oneOf": [{"type": "string", "maxLength": 9}, {"type": "null"}]},
                "either": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
                "refd": {"anyOf": [{"$ref": "#/$defs/x"}, {"type": "null"}]},
                "plain": {"type": "integer"},
                "choice": {"enum": ["a", null]}
            }
        });
        let shape = ToolShape::from_input_schema(schema.as_object().expect("object"));
        let t = |name| shape.typing(name);
        assert_eq!(t("line"), Some((ParamType::Integer, true)));
        assert_eq!(t("label"), Some((ParamType::String, true)));
        assert_eq!(t("nothing"), Some((ParamType::String, true)));
        assert_eq!(t("flag"), Some((ParamType::Boolean, true)));
        assert_eq!(t("name"), Some((ParamType::String, true)));
        assert_eq!(t("either"), Some((ParamType::Any, true)));
        assert_eq!(t("refd"), Some((ParamType::Any, true)));
        assert_eq!(t("plain"), Some((ParamType::Integer, false)));
        assert_eq!(t("choice"), Some((ParamType::Any, false)));
        assert_eq!(shape.param("flag"), Some(ParamType::Boolean));
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
