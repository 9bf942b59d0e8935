//! Argument validation against a tool's compiled input schema.

use std::fmt::Write as _;

use serde_json::Value;

use crate::core::{JsonObject, echo_display};

/// A compiled input schema. Compiled once, at registration.
#[derive(Debug)]
pub struct ArgumentValidator {
    validator: jsonschema::Validator,
}

/// At most this many schema violations are listed in one message.
const MAX_REPORTED: usize = 8;

impl ArgumentValidator {
    /// Compiles a schema; the error says why it is not a usable JSON Schema.
    pub fn compile(schema: &JsonObject) -> Result<Self, String> {
        let value = Value::Object(schema.clone());
        jsonschema::validator_for(&value)
            .map(|validator| Self { validator })
            .map_err(|e| e.to_string())
    }

    /// Validates arguments. Takes them by value to avoid a copy and hands them
    /// back either way. The error text names each failing JSON path and rule.
    pub fn validate(&self, args: JsonObject) -> (JsonObject, Result<(), String>) {
        let value = Value::Object(args);
        let verdict = self.validate_value(&value);
        let args = match value {
            Value::Object(map) => map,
            _ => JsonObject::new(),
        };
        (args, verdict)
    }

    /// Validates any JSON value (for example a result's `structuredContent`
    /// against an output schema). The error text names each failing JSON path
    /// and rule.
    pub fn validate_value(&self, value: &Value) -> Result<(), String> {
        let mut message = String::new();
        let mut n_errors = 0usize;
        for error in self.validator.iter_errors(value) {
            n_errors += 1;
            if n_errors > MAX_REPORTED {
                continue;
            }
            let path = error.instance_path().to_string();
            let path = if path.is_empty() {
                "/".to_owned()
            } else {
                path
            };
            let _ = write!(
                message,
                "{}at `{}`: {} (schema rule `{}`)",
                if n_errors > 1 { "; " } else { "" },
                echo_display(&path),
                echo_display(&error),
                echo_display(&error.schema_path())
            );
        }
        if n_errors > MAX_REPORTED {
            let _ = write!(message, "; and {} more", n_errors - MAX_REPORTED);
        }
        if n_errors == 0 { Ok(()) } else { Err(message) }
    }
}
