//! The system-prompt section that teaches the XML tag format and lists the
//! tools, written within [`PromptLimits`]: a schema's `$ref`s can make its
//! listing grow without end (`{"anyOf": [{"$ref": "#"}, …]}` three levels deep
//! is n⁴ labels), so every node visited and every byte written is charged to a
//! budget ([`Budgeted`]) as the work is done.

use std::collections::HashSet;

use rmcp::model::Tool;
use serde_json::{Map, Value};

use super::budget::{Budgeted, Spent, Stop};
use super::calls::write_call;
use crate::convert::note::{ConversionNote, NoteKind};
use crate::convert::schema::{MAX_WALK_DEPTH, required_names, resolve_ref, tool_description};
use crate::core::JsonObject;

/// How deep nested object parameters are listed in the prompt.
const MAX_LISTED_NESTING: usize = 3;

/// The most work (bytes written, schema nodes visited) one tool's parameter
/// list may take, and the worked example.
pub(crate) const MAX_TOOL_SCHEMA_TEXT: usize = 64 * 1024;

/// The most work all tools' parameter lists and the example may take together.
pub(crate) const MAX_SCHEMA_TEXT: usize = 1024 * 1024;

/// The rules of the format, before the tools.
const INTRO: &str = "# Tools\n\n\
    You can call the tools listed below. To call a tool, write its name as an XML tag \
    that contains one element per parameter, each holding that parameter's value:\n\n\
    <tool_name>\n<parameter_name>value</parameter_name>\n</tool_name>\n\n\
    Rules:\n\
    - Write text values as they are, without quotes, except that &, < and > are written \
    &amp;, &lt; and &gt;. Write numbers and booleans as plain literals (42, true) and \
    arrays and objects as JSON, escaped the same way.\n\
    - Give every required parameter; leave out optional parameters you do not need.\n\
    - You may call several tools one after the other. After your last call, stop \
    writing: each result comes back in the next message as \
    <tool_result name=\"tool_name\">...</tool_result>, its text escaped the same way.\n\n\
    ## Available tools\n";

/// What the prompt writer may spend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PromptLimits {
    /// The most work (bytes written, schema nodes visited) the whole
    /// section may take, descriptions included: its bytes are fewer.
    pub(crate) max_bytes: usize,
    /// The most work one tool's parameter list (and the example) may take.
    pub(crate) max_tool_schema: usize,
    /// The most work all parameter lists and the example may take together.
    pub(crate) max_schema: usize,
}

impl PromptLimits {
    /// The fixed caps on schema text, and the whole section at most
    /// `max_bytes` (the proxy's `--max-request-bytes`).
    pub(crate) fn within(max_bytes: usize) -> Self {
        Self {
            max_bytes,
            max_tool_schema: MAX_TOOL_SCHEMA_TEXT,
            max_schema: MAX_SCHEMA_TEXT,
        }
    }
}

/// What the writer does with a tool whose parameters take more than the
/// limits leave them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Overflow {
    /// The prompt is refused ([`PromptError`]).
    Refuse,
    /// The tool is listed without its parameters, and named in
    /// [`Prompt::abridged`].
    Abridge,
}

/// Why the prompt was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum PromptError {
    /// One tool's parameter list takes more than its cap.
    #[error("the parameters of tool `{tool}` take more than {limit} bytes of prompt text")]
    ToolSchema {
        /// The tool (as an error quotes it).
        tool: String,
        /// [`PromptLimits::max_tool_schema`].
        limit: usize,
    },
    /// The parameter lists take more than their cap together.
    #[error("the tools' parameters take more than {limit} bytes of prompt text")]
    Schemas {
        /// [`PromptLimits::max_schema`].
        limit: usize,
    },
    /// The whole section takes more than its cap.
    #[error("the tools take more than {limit} bytes of prompt text")]
    Prompt {
        /// [`PromptLimits::max_bytes`].
        limit: usize,
    },
}

/// A written prompt section.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Prompt {
    /// The section.
    pub(crate) text: String,
    /// The tools listed without their parameters ([`Overflow::Abridge`]).
    pub(crate) abridged: Vec<String>,
}

/// The system-prompt section that teaches the XML tag format and lists every
/// tool: its description, each parameter with type, required-ness, allowed
/// values and description, and a worked example calling the first tool.
/// An empty tool list gives an empty string. Names, descriptions and values
/// are escaped. Within the default limits; a tool whose parameters take more
/// is listed without them.
pub(crate) fn system_prompt(tools: &[Tool]) -> String {
    system_prompt_noted(tools).0
}

/// [`system_prompt`], with a note for each tool listed without its parameters.
pub(crate) fn system_prompt_noted(tools: &[Tool]) -> (String, Vec<ConversionNote>) {
    let limits = PromptLimits::within(usize::MAX);
    // Abridging leaves only the whole section's cap, which is unbounded here.
    let prompt = write_prompt(tools, limits, Overflow::Abridge).unwrap_or_default();
    let notes = prompt
        .abridged
        .into_iter()
        .map(|tool| ConversionNote {
            tool,
            path: String::new(),
            kind: NoteKind::Dropped,
            detail: format!(
                "the parameter list takes more prompt text than the limits allow \
                 (a tool's list at most {MAX_TOOL_SCHEMA_TEXT} bytes, all tools' \
                 {MAX_SCHEMA_TEXT}): not listed"
            ),
        })
        .collect();
    (prompt.text, notes)
}

/// [`system_prompt`] within `limits`, a tool that does not fit them handled
/// as `overflow` says.
pub(crate) fn write_prompt(
    tools: &[Tool],
    limits: PromptLimits,
    overflow: Overflow,
) -> Result<Prompt, PromptError> {
    write_prompt_counted(tools, limits, overflow).0
}

/// [`write_prompt`], and the work it did (units spent), refused or not.
pub(crate) fn write_prompt_counted(
    tools: &[Tool],
    limits: PromptLimits,
    overflow: Overflow,
) -> (Result<Prompt, PromptError>, usize) {
    let mut w = Budgeted::new(limits.max_bytes);
    let result = write_sections(&mut w, tools, limits, overflow);
    let spent = w.spent();
    let result = result.map(|abridged| Prompt {
        text: w.into_text(),
        abridged,
    });
    (result, spent)
}

/// Writes the whole section into `w`; the tools abridged.
fn write_sections(
    w: &mut Budgeted,
    tools: &[Tool],
    limits: PromptLimits,
    overflow: Overflow,
) -> Result<Vec<String>, PromptError> {
    let Some(first) = tools.first() else {
        return Ok(Vec::new());
    };
    let too_long = |_: Spent| PromptError::Prompt {
        limit: limits.max_bytes,
    };
    let mut schema_left = limits.max_schema;
    let mut abridged = Vec::new();
    // What stopped a tool's schema text: its own cap or the schema cap (the
    // smaller of the two), or the whole section's.
    let stopped = |stop: Stop, tool: &Tool, schema_left: usize| match stop {
        Stop::Budget => PromptError::Prompt {
            limit: limits.max_bytes,
        },
        Stop::Cap if limits.max_tool_schema <= schema_left => PromptError::ToolSchema {
            tool: crate::core::echo(&tool.name).to_string(),
            limit: limits.max_tool_schema,
        },
        Stop::Cap => PromptError::Schemas {
            limit: limits.max_schema,
        },
    };
    w.markup(INTRO).map_err(too_long)?;
    for tool in tools {
        w.markup("\n### ").map_err(too_long)?;
        w.text(&tool.name).map_err(too_long)?;
        w.markup("\n").map_err(too_long)?;
        if let Some(description) = tool_description(tool) {
            w.text(&description).map_err(too_long)?;
            w.markup("\n").map_err(too_long)?;
        }
        let cap = limits.max_tool_schema.min(schema_left);
        match w.within(cap, |w| parameters(w, tool)) {
            Ok(used) => schema_left -= used.min(schema_left),
            Err(Stop::Cap) if overflow == Overflow::Abridge => {
                schema_left = schema_left.saturating_sub(cap);
                w.markup("Parameters: not listed (too large).\n")
                    .map_err(too_long)?;
                abridged.push(tool.name.to_string());
            }
            Err(stop) => return Err(stopped(stop, tool, schema_left)),
        }
    }
    w.markup("\n## Example\n\n").map_err(too_long)?;
    let cap = limits.max_tool_schema.min(schema_left);
    match w.within(cap, |w| example_call(w, first)) {
        Ok(_) => {}
        Err(Stop::Cap) if overflow == Overflow::Abridge => {
            let mut call = String::new();
            write_call(&first.name, &JsonObject::new(), &mut call);
            call.push('\n');
            w.markup(&call).map_err(too_long)?;
        }
        Err(stop) => return Err(stopped(stop, first, schema_left)),
    }
    Ok(abridged)
}

/// `Parameters:` and the list, or `Parameters: none.`
fn parameters(w: &mut Budgeted, tool: &Tool) -> Result<(), Spent> {
    let schema = tool.input_schema.as_ref();
    let mark = w.len();
    w.markup("Parameters:\n")?;
    let listed = w.len();
    list_params(w, schema, schema, 0)?;
    if w.len() == listed {
        w.truncate(mark);
        w.markup("Parameters: none.\n")?;
    }
    Ok(())
}

/// Follows local `$ref`s (bounded) to the schema they name, each one charged
/// by its length (resolving it walks its segments).
fn follow<'s>(
    w: &mut Budgeted,
    root: &'s JsonObject,
    mut schema: &'s JsonObject,
) -> Result<&'s JsonObject, Spent> {
    for _ in 0..MAX_WALK_DEPTH {
        let Some(reference) = schema.get("$ref").and_then(Value::as_str) else {
            break;
        };
        w.spend(1 + reference.len())?;
        let Some(target) = resolve_ref(root, reference).and_then(Value::as_object) else {
            break;
        };
        schema = target;
    }
    Ok(schema)
}

/// Lists the properties of an object schema, one line each, nested objects indented.
fn list_params(
    w: &mut Budgeted,
    root: &JsonObject,
    schema: &JsonObject,
    nesting: usize,
) -> Result<(), Spent> {
    w.visit()?;
    let schema = follow(w, root, schema)?;
    let Some(Value::Object(properties)) = schema.get("properties") else {
        return Ok(());
    };
    let required = required_names(schema);
    w.spend(required.len())?;
    let required: HashSet<&str> = required.into_iter().collect();
    let empty = Map::new();
    for (name, prop) in properties {
        w.visit()?;
        let prop = follow(w, root, prop.as_object().unwrap_or(&empty))?;
        for _ in 0..nesting {
            w.markup("  ")?;
        }
        w.markup("- ")?;
        w.text(name)?;
        w.markup(" (")?;
        type_label(w, root, prop, 0)?;
        w.markup(if required.contains(name.as_str()) {
            ", required"
        } else {
            ", optional"
        })?;
        if let Some(Value::Array(values)) = prop.get("enum") {
            w.markup(", one of: ")?;
            for (i, value) in values.iter().enumerate() {
                if i > 0 {
                    w.markup(", ")?;
                }
                w.json(value)?;
            }
        }
        if let Some(constant) = prop.get("const") {
            w.markup(", always ")?;
            w.json(constant)?;
        }
        if let Some(default) = prop.get("default") {
            w.markup(", default ")?;
            w.json(default)?;
        }
        w.markup(")")?;
        if let Some(description) = prop.get("description").and_then(Value::as_str) {
            w.markup(": ")?;
            w.text(description)?;
        }
        w.markup("\n")?;
        if nesting < MAX_LISTED_NESTING {
            list_params(w, root, prop, nesting + 1)?;
            if let Some(items) = prop.get("items").and_then(Value::as_object) {
                list_params(w, root, items, nesting + 1)?;
            }
        }
    }
    Ok(())
}

/// Writes a short type name: `string`, `array of integer`, `string or null`, `any`.
fn type_label(
    w: &mut Budgeted,
    root: &JsonObject,
    schema: &JsonObject,
    depth: usize,
) -> Result<(), Spent> {
    w.visit()?;
    if depth > MAX_LISTED_NESTING {
        return w.markup("any");
    }
    let schema = follow(w, root, schema)?;
    let types: &[Value] = match schema.get("type") {
        Some(t @ Value::String(_)) => std::slice::from_ref(t),
        Some(Value::Array(types)) => types,
        _ => &[],
    };
    w.spend(types.len())?;
    let mut first = true;
    for t in types.iter().filter_map(Value::as_str) {
        if !std::mem::take(&mut first) {
            w.markup(" or ")?;
        }
        match (t, schema.get("items").and_then(Value::as_object)) {
            ("array", Some(items)) => {
                w.markup("array of ")?;
                type_label(w, root, items, depth + 1)?;
            }
            (t, _) => w.text(t)?,
        }
    }
    if !first {
        return Ok(());
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = schema.get(key) {
            w.spend(branches.len())?;
            let mut first = true;
            for branch in branches.iter().filter_map(Value::as_object) {
                if !std::mem::take(&mut first) {
                    w.markup(" or ")?;
                }
                type_label(w, root, branch, depth + 1)?;
            }
            return Ok(());
        }
    }
    if let Some(first) = schema
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|v| v.first())
        .or_else(|| schema.get("const"))
    {
        return w.markup(json_type(first));
    }
    if schema.contains_key("properties") {
        return w.markup("object");
    }
    w.markup("any")
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A call of `tool` with example values for its required parameters (or its
/// first parameter when none is required).
fn example_call(w: &mut Budgeted, tool: &Tool) -> Result<(), Spent> {
    let root = tool.input_schema.as_ref();
    let mut arguments = JsonObject::new();
    if let Value::Object(example) = example_value(w, root, root, 0)? {
        arguments = example;
    }
    if arguments.is_empty()
        && let Some((name, prop)) = root
            .get("properties")
            .and_then(Value::as_object)
            .and_then(|p| p.iter().next())
    {
        let empty = Map::new();
        let prop = prop.as_object().unwrap_or(&empty);
        w.spend(name.len())?;
        arguments.insert(name.clone(), example_value(w, root, prop, 1)?);
    }
    // The arguments' size was charged as they were made; the text is at most
    // a few times as long (quotes, escapes), and is charged again as written.
    let mut call = String::new();
    write_call(&tool.name, &arguments, &mut call);
    call.push('\n');
    w.markup(&call)
}

/// An example value for a schema: its `examples`/`default`/`enum`/`const`
/// when given, else a placeholder of its type; objects list their required
/// properties.
fn example_value(
    w: &mut Budgeted,
    root: &JsonObject,
    schema: &JsonObject,
    depth: usize,
) -> Result<Value, Spent> {
    w.visit()?;
    let schema = follow(w, root, schema)?;
    if let Some(v) = schema
        .get("examples")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
        .or_else(|| schema.get("default"))
        .or_else(|| schema.get("const"))
        .or_else(|| {
            schema
                .get("enum")
                .and_then(Value::as_array)
                .and_then(|e| e.iter().find(|v| !v.is_null()))
        })
    {
        return bounded_clone(w, v);
    }
    let types: &[Value] = match schema.get("type") {
        Some(t @ Value::String(_)) => std::slice::from_ref(t),
        Some(Value::Array(types)) => types,
        _ => &[],
    };
    w.spend(types.len())?;
    let branches = schema
        .get("anyOf")
        .or_else(|| schema.get("oneOf"))
        .and_then(Value::as_array);
    let first = match types
        .iter()
        .filter_map(Value::as_str)
        .find(|t| *t != "null")
    {
        Some(t) => Some(t),
        None => {
            w.spend(branches.map_or(0, Vec::len))?;
            branches.and_then(|b| {
                b.iter()
                    .filter_map(|b| b.get("type")?.as_str())
                    .find(|t| *t != "null")
            })
        }
    };
    Ok(match first {
        Some("integer") => Value::from(1),
        Some("number") => Value::from(1.5),
        Some("boolean") => Value::Bool(true),
        Some("array") => {
            let mut item = None;
            if depth < MAX_LISTED_NESTING
                && let Some(items) = schema.get("items").and_then(Value::as_object)
            {
                item = Some(example_value(w, root, items, depth + 1)?);
            }
            Value::Array(item.into_iter().collect())
        }
        Some("object") | None if schema.contains_key("properties") => {
            let mut object = Map::new();
            if depth <= MAX_LISTED_NESTING {
                let properties = schema.get("properties").and_then(Value::as_object);
                let empty = Map::new();
                for name in required_names(schema) {
                    w.spend(1 + name.len())?;
                    let prop = properties
                        .and_then(|p| p.get(name))
                        .and_then(Value::as_object)
                        .unwrap_or(&empty);
                    object.insert(name.to_owned(), example_value(w, root, prop, depth + 1)?);
                }
            }
            Value::Object(object)
        }
        Some("object") => Value::Object(Map::new()),
        _ => Value::String("text".to_owned()),
    })
}

/// A copy of `value`, each node and each string charged as it is copied.
fn bounded_clone(w: &mut Budgeted, value: &Value) -> Result<Value, Spent> {
    w.visit()?;
    Ok(match value {
        Value::String(s) => {
            w.spend(s.len())?;
            Value::String(s.clone())
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| bounded_clone(w, item))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(map) => {
            let mut copy = Map::new();
            for (key, item) in map {
                w.spend(key.len())?;
                copy.insert(key.clone(), bounded_clone(w, item)?);
            }
            Value::Object(copy)
        }
        other => other.clone(),
    })
}
